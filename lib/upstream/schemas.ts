// Wire schemas: what the upstream sends and accepts, as the spec describes it (and upstream-facts.md where the spec says
// "not shown"). Responses are parsed here, at the door; the rest of the app sees the inferred types.
// Optional fields are `.nullish()`: the upstream may omit a field or send null for it.
import { z } from "zod";
import { CATEGORIES, SUBCATEGORIES, categoryOf } from "./taxonomy";

export const LINK_STATES = ["connecting", "awaiting_token_exchange", "connected", "deleted", "error"] as const;
export const LINK_ERROR_CODES = [
  "system_error",
  "provider_error",
  "institution_error",
  "user_error",
  "auth_expired",
  "no_accounts",
  "user_setup_required",
  "invalid_credentials",
  "user_oauth_denied",
  "user_input_incorrect",
  "incomplete",
] as const;
export const PRODUCTS = [
  "accounts",
  "account_numbers",
  "identity",
  "transactions",
  "investments",
  "enrichment",
] as const;
// The spec names eight providers without spelling them; these are the spellings the public SDKs use. The wire schema
// accepts any provider string so an unlisted one is shown, not rejected.
export const KNOWN_PROVIDERS = ["moneykit", "plaid", "finicity", "mx", "yodlee", "akoya", "sophtron"] as const;

const text = z.string();
const optionalText = z.string().nullish();
const dateTime = z.iso.datetime({ offset: true, local: true });
const date = z.iso.date();

export const linkStateSchema = z.enum(LINK_STATES);
export const linkErrorCodeSchema = z.enum(LINK_ERROR_CODES);
export const productSchema = z.enum(PRODUCTS);
export const categorySchema = z.enum(CATEGORIES);
export const subcategorySchema = z.enum(SUBCATEGORIES);

export const productStatusSchema = z.object({
  refreshed_at: dateTime.nullish(),
  last_attempted_at: dateTime.nullish(),
  error_code: optionalText,
  error_message: optionalText,
  unavailable: optionalText,
  last_enriched: dateTime.nullish(),
});

export const linkSchema = z.object({
  link_id: text,
  institution_id: text,
  institution_name: text,
  institution_avatar: optionalText,
  state: linkStateSchema,
  error_code: linkErrorCodeSchema.nullish(),
  /** Deprecated upstream: shown, never relied on. */
  last_synced_at: dateTime.nullish(),
  auth_expired_at: dateTime.nullish(),
  provider: text,
  link_tags: z.array(text).nullish(),
  /** Deprecated upstream (link_tags replaces it). */
  tags: z.array(z.unknown()).nullish(),
  webhook: optionalText,
  products: z.partialRecord(productSchema, productStatusSchema),
  available_products: z.array(productSchema).nullish(),
});

const merchantSchema = z.object({
  id: optionalText,
  name: optionalText,
  display_name: optionalText,
  logo: optionalText,
  website: optionalText,
});

export const enrichmentSchema = z.object({
  category: z.object({ value: categorySchema, confidence: z.number().nullish() }),
  subcategory: z.object({ value: subcategorySchema, confidence: z.number().nullish() }).nullish(),
  merchant: merchantSchema.nullish(),
  processor: merchantSchema.nullish(),
  recurrence: z.object({ frequency: optionalText, next_predicted_date: date.nullish() }).nullish(),
});

// The spec types amount as a number; the public SDKs carry it as a decimal string. Both are read as a number.
const amount = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);
// Balances are numbers in the SDKs; read a decimal string the same way, should one arrive.
const balance = amount.nullish();

export const transactionSchema = z.object({
  transaction_id: text,
  account_id: text,
  amount,
  type: text,
  currency: text,
  date,
  datetime: dateTime.nullish(),
  description: optionalText,
  raw_description: optionalText,
  pending: z.boolean(),
  enrichment: enrichmentSchema.nullish(),
  original_id: optionalText,
});

export const accountSchema = z.object({
  account_id: text,
  account_type: optionalText,
  name: optionalText,
  nickname: optionalText,
  account_mask: optionalText,
  balances: z
    .object({
      currency: optionalText,
      available: balance,
      current: balance,
      limit: balance,
      balance_date: dateTime.nullish(),
    })
    .nullish(),
  original_id: optionalText,
  closed: z.boolean().nullish(),
});

/** An institution (upstream-facts §13; the spec shows no shape). Country is read as any string so a new one shows. */
export const institutionSchema = z.object({
  institution_id: text,
  institution_id_aliases: z.array(text).nullish(),
  name: text,
  country: optionalText,
  domain: optionalText,
  color: optionalText,
  color_dark: optionalText,
  is_featured: z.boolean().nullish(),
});

export const cursorSchema = z.object({ next: optionalText });

export const errorEnvelopeSchema = z.object({
  error_code: text,
  error_message: text,
  documentation_url: optionalText,
  link_error_code: optionalText,
});

// --- responses ---

export const accessTokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: text,
  expires_in: z.number().int().positive(),
});

export const linksPageSchema = z.object({
  links: z.array(z.object({ link_id: text, created_at: dateTime })).default([]),
  next_cursor: optionalText,
});

export const transactionsPageSchema = z.object({
  total: z.number().int().nonnegative(),
  page: z.number().int().positive(),
  size: z.number().int().nonnegative(),
  transactions: z.array(transactionSchema),
  accounts: z.array(accountSchema),
  link: linkSchema,
});

export const correctEnrichmentResponseSchema = z.object({
  transactions: z.array(transactionSchema),
  accounts: z.array(accountSchema),
  link: linkSchema,
  cursor: cursorSchema.nullish(),
});

export const exchangeTokenResponseSchema = z.object({
  /** Deprecated upstream: use link.link_id. */
  link_id: optionalText,
  link: linkSchema,
});

export const linkSessionResponseSchema = z.object({ link_session_token: z.string().min(1) });

export const accountsResponseSchema = z.object({ accounts: z.array(accountSchema), link: linkSchema });

export const accountResponseSchema = z.object({ account: accountSchema, link: linkSchema });

/**
 * GET /users/{id}/links (upstream-facts §2; not in the spec): one customer user's links in any state, deleted ones
 * included until purged, as a map by link id rather than an array.
 */
export const userLinksResponseSchema = z.object({ links: z.record(text, linkSchema) });

/**
 * GET /.well-known/jwks.json (upstream-facts §11): the public keys that sign webhooks, by `kid`. Only EC P-256 keys
 * can verify an ES256 signature; others are kept as sent and never match.
 */
export const webhookKeysSchema = z.object({
  keys: z.array(
    z.looseObject({
      kty: z.string(),
      kid: z.string().min(1).optional(),
      crv: z.string().optional(),
      x: z.string().optional(),
      y: z.string().optional(),
      alg: z.string().optional(),
    }),
  ),
});

/**
 * DELETE /links/{id}: the upstream answers 2xx with an empty body (upstream-facts §3.5; the SDK returns nil). A body it
 * might send anyway is ignored rather than refused: the link is deleted either way.
 */
export const emptyResponseSchema = z.unknown().transform((): void => undefined);

/** GET /institutions: note the plural `cursors` here, unlike `cursor` on transactions (upstream-facts §13). */
export const institutionsPageSchema = z.object({
  institutions: z.array(institutionSchema),
  cursors: cursorSchema.nullish(),
});

// --- requests ---

export const correctEnrichmentRequestSchema = z
  .object({ category: categorySchema, subcategory: subcategorySchema.optional() })
  .refine((body) => body.subcategory === undefined || categoryOf(body.subcategory) === body.category, {
    message: "subcategory does not belong to category",
    path: ["subcategory"],
  });

export const exchangeTokenRequestSchema = z.object({ exchangeable_token: z.string().min(1) });

const customerUserSchema = z.object({
  id: z.string().min(1),
  email: z.object({ address: z.string(), customer_verified_at: dateTime.nullish() }).nullish(),
  phone: z.object({ number: z.string(), country: optionalText, customer_verified_at: dateTime.nullish() }).nullish(),
});

// Item shapes of imported accounts and transactions: not shown in the spec; these follow the public SDKs. Imported
// amounts are signed decimal strings (positive = money in), unlike responses.
export const importAccountSchema = z.object({
  account_id: z.string().min(1),
  name: z.string().min(1),
  nickname: optionalText,
  type: z.string().min(1),
  mask: optionalText,
  balances: z.object({
    currency: optionalText,
    available: z.number().nullish(),
    current: z.number().nullish(),
    limit: z.number().nullish(),
    balance_date: dateTime.nullish(),
  }),
});

export const importTransactionSchema = z.object({
  account_id: z.string().min(1),
  transaction_id: optionalText,
  amount: z.union([z.string().regex(/^-?\d+(\.\d+)?$/), z.number()]),
  date: z.union([date, dateTime]),
  description: optionalText,
  type: optionalText,
});

/** A plain institution id (`chase`, `ins_3`): letters, digits, `_` and `-`. */
export const INSTITUTION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
/** `<provider>.<provider_institution_id>` (`mx.chase`, `yodlee.30188`): a known provider, a dot, that provider's id. */
export const PROVIDER_INSTITUTION_ID_PATTERN = new RegExp(`^(?:${KNOWN_PROVIDERS.join("|")})\\.[A-Za-z0-9_.-]{1,128}$`);

/** The spec: "the service's institution ID, or a provider name and that provider's institution ID joined by a dot". */
export const importInstitutionIdSchema = z
  .string()
  .min(1)
  .refine((value) => INSTITUTION_ID_PATTERN.test(value) || PROVIDER_INSTITUTION_ID_PATTERN.test(value), {
    message: `must be an institution id (letters, digits, _ or -) or <provider>.<id> with a provider of ${KNOWN_PROVIDERS.join(", ")}`,
  });

export const importLinkRequestSchema = z.object({
  customer_user: customerUserSchema,
  institution_id: importInstitutionIdSchema,
  // The spec allows the same provider values here as on the link object; an import names one of them or none.
  provider: z.enum(KNOWN_PROVIDERS).optional(),
  accounts: z.array(importAccountSchema).default([]),
  transactions: z.array(importTransactionSchema).default([]),
  webhook: z.url().optional(),
  link_tags: z.array(z.string()).optional(),
  provider_data: z.record(z.string(), z.unknown()).optional(),
});

export const importTransactionsRequestSchema = z.object({ transactions: z.array(importTransactionSchema) });

/**
 * PATCH /links/{id} (upstream-facts §3.5 UpdateLinkRequest; the spec shows no shape): `webhook` of 1–65536 characters,
 * or null to remove it; `link_tags` each under 100 characters and starting with a letter or digit. A field left out
 * is left as it is. (`tags`, the deprecated alias, is never sent.)
 */
export const updateLinkRequestSchema = z.object({
  webhook: z.string().min(1).max(65_536).nullable().optional(),
  link_tags: z
    .array(
      z
        .string()
        .min(1)
        .max(99)
        .regex(/^[A-Za-z0-9]/),
    )
    .optional(),
});

/** POST /links/{id}/products (upstream-facts §3.5 RefreshProductsRequest): at least one product. Answered 202 with the link. */
export const refreshProductsRequestSchema = z.object({ products: z.array(productSchema).min(1) });

/**
 * The events POST /webhooks/test/link/{id} accepts (upstream-facts §11 WebhookLinkTestEvent), `product.state_changed`
 * among them although no webhook the upstream sends carries that name.
 */
export const WEBHOOK_TEST_EVENTS = [
  "link.state_changed",
  "transactions.updates_available",
  "product.state_changed",
  "link.product_refresh",
] as const;

export const testWebhookRequestSchema = z.object({
  webhook_event: z.enum(WEBHOOK_TEST_EVENTS),
  webhook_idempotency_key: z.string().min(1),
});

/** The test webhook's answer: the token its delivery carries in the MoneyKit-Delivery-Token header. */
export const testWebhookResponseSchema = z.object({ delivery_token: z.string().min(1) });

export const linkSessionRequestSchema = z.object({
  customer_user: customerUserSchema,
  redirect_uri: z.string().min(1),
  existing_link_id: z.string().optional(),
  institution_id: z.string().optional(),
  webhook: z.string().optional(),
  link_tags: z.array(z.string()).optional(),
});

/** Import limits from the spec: at most 1 MB of data and 4000 transactions per call. */
export const IMPORT_MAX_BYTES = 1024 * 1024;
export const IMPORT_MAX_TRANSACTIONS = 4000;

export type WireLink = z.infer<typeof linkSchema>;
export type WireProductStatus = z.infer<typeof productStatusSchema>;
export type WireTransaction = z.infer<typeof transactionSchema>;
export type WireEnrichment = z.infer<typeof enrichmentSchema>;
export type WireAccount = z.infer<typeof accountSchema>;
export type WireInstitution = z.infer<typeof institutionSchema>;
export type WireErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
export type WireLinksPage = z.infer<typeof linksPageSchema>;
export type WireUserLinks = z.infer<typeof userLinksResponseSchema>;
export type WireWebhookKeys = z.infer<typeof webhookKeysSchema>;
export type WireTransactionsPage = z.infer<typeof transactionsPageSchema>;
export type WireCorrectEnrichmentResponse = z.infer<typeof correctEnrichmentResponseSchema>;
export type WireExchangeTokenResponse = z.infer<typeof exchangeTokenResponseSchema>;
export type WireImportLinkRequest = z.input<typeof importLinkRequestSchema>;
export type WireImportTransaction = z.input<typeof importTransactionSchema>;
export type WireCorrectEnrichmentRequest = z.infer<typeof correctEnrichmentRequestSchema>;
export type WireUpdateLinkRequest = z.infer<typeof updateLinkRequestSchema>;
export type WireTestWebhookRequest = z.infer<typeof testWebhookRequestSchema>;
export type WireTestWebhookResponse = z.infer<typeof testWebhookResponseSchema>;
export type LinkState = (typeof LINK_STATES)[number];
export type LinkErrorCode = (typeof LINK_ERROR_CODES)[number];
export type Product = (typeof PRODUCTS)[number];
