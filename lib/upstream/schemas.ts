// Wire schemas: what the upstream sends and accepts, as the spec describes it (and upstream-facts.md where the spec says
// "not shown"). Responses are parsed here, at the door; the rest of the app sees the inferred types.
// Read tolerantly, write strictly (docs/decisions/tolerant-reader.md): an answer's enum-valued field reads any string
// (one outside today's list is kept, shown as itself and noted), its lists are read item by item, and its optional
// fields may be omitted or null. What Linkdesk sends is checked against the spec's lists before it leaves.
import { z } from "zod";
import { itemByItem, entryByEntry, ifReadable, openEnum, type Open, type UnreadableItem } from "./reading";
import { CATEGORIES, LEGACY_SUBCATEGORIES, SUBCATEGORIES, categoryOf } from "./taxonomy";

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
/**
 * Providers the public SDKs dropped: `sophtron` left the Provider enum in 2024-08 (upstream-facts §3.3, §15). Old links
 * may still name it, so it reads; an import naming it is warned about and sent without a provider (lib/import).
 */
export const DROPPED_PROVIDERS = ["sophtron"] as const;
/** A product's error (LinkProductError, upstream-facts §3.3; the spec says "Allowed values: not shown"). */
export const PRODUCT_ERROR_CODES = [
  "rate_limit",
  "auth_expired",
  "not_supported",
  "timeout",
  "unknown",
  "no_accounts",
  "institution_error",
  "no_permission",
  // Removed from the SDKs in 2025-05; links last refreshed before then may still carry it.
  "invalid_credentials",
] as const;
export const TRANSACTION_TYPES = ["credit", "debit"] as const;

const text = z.string();
const optionalText = z.string().nullish();
const dateTime = z.iso.datetime({ offset: true, local: true });
const date = z.iso.date();
/** A decimal number as text: sign, digits, an optional fraction and an optional exponent ("-12.50", ".5", "1E+2"). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function shownDate(field: string) {
  return ifReadable(field, date, "").optional();
}

// What Linkdesk sends: the spec's lists, closed.
export const productSchema = z.enum(PRODUCTS);
export const categorySchema = z.enum(CATEGORIES);
export const subcategorySchema = z.enum(SUBCATEGORIES);

/** A time Linkdesk shows but never relies on: one it cannot read is dropped (and noted), not the object around it. */
function shownTime(field: string) {
  return ifReadable(field, dateTime, "").optional();
}

export const productStatusSchema = z.object({
  refreshed_at: shownTime("link.products.refreshed_at"),
  last_attempted_at: shownTime("link.products.last_attempted_at"),
  error_code: openEnum("link.products.error_code", PRODUCT_ERROR_CODES).nullish(),
  error_message: optionalText,
  unavailable: optionalText,
  last_enriched: shownTime("link.products.last_enriched"),
});

const productKey = openEnum("link.products", PRODUCTS);

/**
 * Granted products by key. Both SDKs type every entry as nullable: a null entry is a product without a status and is
 * left out; a key outside the spec's six is kept and shown (noted as not known).
 */
const linkProductsSchema = z
  .record(z.string(), productStatusSchema.nullish())
  .nullish()
  .transform((products) => {
    const out: Partial<Record<Open<Product>, WireProductStatus>> = {};
    for (const [key, status] of Object.entries(products ?? {})) {
      if (!status) continue;
      out[productKey.parse(key)] = status;
    }
    return out;
  });

export const linkSchema = z.object({
  link_id: text,
  institution_id: text,
  institution_name: text,
  institution_avatar: optionalText,
  state: openEnum("link.state", LINK_STATES),
  error_code: openEnum("link.error_code", LINK_ERROR_CODES).nullish(),
  /** Deprecated upstream: shown, never relied on. */
  last_synced_at: shownTime("link.last_synced_at"),
  auth_expired_at: shownTime("link.auth_expired_at"),
  provider: openEnum("link.provider", KNOWN_PROVIDERS),
  link_tags: z
    .array(text.nullable())
    .nullish()
    .transform((tags) => tags?.filter((tag) => tag !== null)),
  /** Deprecated upstream (link_tags replaces it). */
  tags: z.array(z.unknown()).nullish(),
  webhook: optionalText,
  products: linkProductsSchema,
  available_products: z
    .array(openEnum("link.available_products", PRODUCTS).nullable())
    .nullish()
    .transform((products) => products?.filter((product) => product !== null)),
});

const merchantSchema = z.object({
  id: optionalText,
  name: optionalText,
  display_name: optionalText,
  logo: optionalText,
  website: optionalText,
});

/** A confidence percentage: a number, or a numeric string; anything else reads as unknown (null). */
const confidence = z
  .union([z.number(), z.string().regex(DECIMAL).transform(Number)])
  .nullish()
  .catch(null);

/**
 * Categories and subcategories read any string: the taxonomy was renamed on 2025-01-13 and old transactions keep old
 * values (LEGACY_SUBCATEGORIES names them), and it may grow again.
 */
export const enrichmentSchema = z.object({
  category: z.object({ value: openEnum("transaction.enrichment.category", CATEGORIES), confidence }),
  subcategory: z
    .object({
      value: openEnum("transaction.enrichment.subcategory", [...SUBCATEGORIES, ...Object.keys(LEGACY_SUBCATEGORIES)]),
      confidence,
    })
    .nullish(),
  merchant: merchantSchema.nullish(),
  processor: merchantSchema.nullish(),
  recurrence: z
    .object({ frequency: optionalText, next_predicted_date: shownDate("transaction.enrichment.recurrence") })
    .nullish(),
});

// The spec types amount as a number; the public SDKs carry it as a decimal string, in any form Python's Decimal
// prints: "12.50", "1E+2", "0E-8" (zero to eight places). Every form is read as a number.
const amount = z.union([z.number(), z.string().trim().regex(DECIMAL).transform(Number)]);
// Balances are numbers in the SDKs; read a decimal string the same way, should one arrive.
const balance = amount.nullish();

export const transactionSchema = z.object({
  transaction_id: text,
  account_id: text,
  amount,
  type: openEnum("transaction.type", TRANSACTION_TYPES),
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
      balance_date: shownTime("account.balances.balance_date"),
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

export const linksPageSchema = z
  .object({
    links: itemByItem("links", z.object({ link_id: text, created_at: dateTime }), "link_id"),
    next_cursor: optionalText,
  })
  .transform(({ links, ...page }) => ({ ...page, links: links.read, unreadableLinks: links.unreadable }));

/** The link inside an answer about something else (transactions, accounts): set aside (null) if it cannot be read. */
const carriedLink = ifReadable("link", linkSchema, "link_id");

const transactionsAndAccounts = {
  transactions: itemByItem("transaction", transactionSchema, "transaction_id"),
  accounts: itemByItem("account", accountSchema, "account_id"),
  link: carriedLink,
};

function setAside<T extends { transactions: Read<WireTransaction>; accounts: Read<WireAccount> }>({
  transactions,
  accounts,
  ...rest
}: T) {
  return {
    ...rest,
    transactions: transactions.read,
    accounts: accounts.read,
    unreadableTransactions: transactions.unreadable,
    unreadableAccounts: accounts.unreadable,
  };
}

interface Read<T> {
  read: T[];
  unreadable: UnreadableItem[];
}

export const transactionsPageSchema = z
  .object({
    total: z.number().int().nonnegative(),
    page: z.number().int().positive(),
    size: z.number().int().nonnegative(),
    ...transactionsAndAccounts,
  })
  .transform(setAside);

export const correctEnrichmentResponseSchema = z
  .object({ ...transactionsAndAccounts, cursor: cursorSchema.nullish() })
  .transform(setAside);

export const exchangeTokenResponseSchema = z.object({
  /** Deprecated upstream: use link.link_id. */
  link_id: optionalText,
  link: linkSchema,
});

export const linkSessionResponseSchema = z.object({ link_session_token: z.string().min(1) });

export const accountsResponseSchema = z
  .object({ accounts: itemByItem("account", accountSchema, "account_id"), link: carriedLink })
  .transform(({ accounts, ...rest }) => ({
    ...rest,
    accounts: accounts.read,
    unreadableAccounts: accounts.unreadable,
  }));

export const accountResponseSchema = z.object({ account: accountSchema, link: carriedLink });

/**
 * GET /users/{id}/links (upstream-facts §2; not in the spec): one customer user's links in any state, deleted ones
 * included until purged, as a map by link id rather than an array.
 */
export const userLinksResponseSchema = z
  .object({ links: entryByEntry("links", linkSchema) })
  .transform(({ links }) => ({ links: links.read, unreadableLinks: links.unreadable }));

/** An account set aside from a customer user's map of accounts: the link it was listed under, its id and why. */
export interface UnreadableUserAccount extends UnreadableItem {
  linkId: string;
}

/**
 * GET /users/{id}/accounts (upstream-facts §9; not in the spec): one customer user's accounts as a map by link id,
 * each link's with its last sync (deprecated upstream, as on the link: shown, never relied on). A link's entry that
 * cannot be read is set aside with the link's id, an account that cannot be read with its own id and its link's; the
 * rest of the map is read. Only links the upstream has data of are in it (not deleted, not still connecting).
 */
export const userAccountsResponseSchema = z
  .object({
    links: entryByEntry(
      "links",
      z.object({
        accounts: itemByItem("account", accountSchema, "account_id"),
        last_synced_at: shownTime("links.last_synced_at"),
      }),
    ),
  })
  .transform(({ links }) => {
    const read: Record<string, { accounts: WireAccount[]; lastSyncedAt: string | null }> = {};
    const unreadableAccounts: UnreadableUserAccount[] = [];
    for (const [linkId, entry] of Object.entries(links.read)) {
      read[linkId] = { accounts: entry.accounts.read, lastSyncedAt: entry.last_synced_at ?? null };
      unreadableAccounts.push(...entry.accounts.unreadable.map((item) => ({ ...item, linkId })));
    }
    return { links: read, unreadableLinks: links.unreadable, unreadableAccounts };
  });

/**
 * An account named by a customer user's transactions page (upstream-facts §4.3 BasicAccountDetails): its name and the
 * link it belongs to, each read as unknown (null) when absent.
 */
const basicAccountDetailsSchema = z
  .object({ name: optionalText, last_synced_at: shownTime("accounts.last_synced_at"), link_id: optionalText })
  .transform((details) => ({
    name: details.name ?? null,
    linkId: details.link_id ?? null,
    lastSyncedAt: details.last_synced_at ?? null,
  }));

/**
 * GET /users/{id}/transactions (upstream-facts §4.3; not in the spec): a page of one customer user's transactions
 * across their links, paged by number as GET /links/{id}/transactions is, with `accounts` a map by account id of the
 * accounts the page names (not a list, and no link objects). Transactions and account entries are read one by one.
 */
export const userTransactionsPageSchema = z
  .object({
    total: z.number().int().nonnegative(),
    page: z.number().int().positive(),
    size: z.number().int().nonnegative(),
    transactions: itemByItem("transaction", transactionSchema, "transaction_id"),
    accounts: entryByEntry("accounts", basicAccountDetailsSchema).nullish(),
  })
  .transform(({ transactions, accounts, ...page }) => ({
    ...page,
    transactions: transactions.read,
    unreadableTransactions: transactions.unreadable,
    accounts: accounts?.read ?? {},
    unreadableAccounts: accounts?.unreadable ?? [],
  }));

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
export const institutionsPageSchema = z
  .object({
    institutions: itemByItem("institutions", institutionSchema, "institution_id"),
    cursors: cursorSchema.nullish(),
  })
  .transform(({ institutions, ...page }) => ({ ...page, institutions: institutions.read }));

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
  // The SDKs type an imported amount as a decimal string (upstream-facts §8.1), and a strict server refuses a JSON
  // number there: a number in a file is sent as its decimal string.
  amount: z.union([z.string().regex(/^-?\d+(\.\d+)?$/), z.number().transform(String)]),
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

/**
 * POST /link-session (upstream-facts §7.1 CreateLinkSessionRequest): the fields Linkdesk sends, with the SDKs' limits.
 * With `existing_link_id` the session relinks that link and REPLACES its webhook and link_tags with the session's (an
 * omitted one is removed): a relink that should keep them sends them again.
 */
export const linkSessionRequestSchema = z.object({
  customer_user: z.object({ id: z.string().min(4).max(150) }),
  redirect_uri: z.string().min(1).max(65_536),
  existing_link_id: z.string().min(1).optional(),
  institution_id: z.string().optional(),
  webhook: z.string().min(1).max(65_536).optional(),
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
export type WireUserAccounts = z.infer<typeof userAccountsResponseSchema>;
export type WireUserTransactionsPage = z.infer<typeof userTransactionsPageSchema>;
/** An account as a customer user's transactions page names it: its name and its link, either unknown (null). */
export type WireBasicAccountDetails = z.infer<typeof basicAccountDetailsSchema>;
export type WireWebhookKeys = z.infer<typeof webhookKeysSchema>;
export type WireTransactionsPage = z.infer<typeof transactionsPageSchema>;
export type WireCorrectEnrichmentResponse = z.infer<typeof correctEnrichmentResponseSchema>;
export type WireExchangeTokenResponse = z.infer<typeof exchangeTokenResponseSchema>;
export type WireImportLinkRequest = z.input<typeof importLinkRequestSchema>;
/** A transaction as sent: its amount a decimal string. */
export type WireImportTransaction = z.output<typeof importTransactionSchema>;
export type WireCorrectEnrichmentRequest = z.infer<typeof correctEnrichmentRequestSchema>;
export type WireUpdateLinkRequest = z.infer<typeof updateLinkRequestSchema>;
export type WireLinkSessionRequest = z.infer<typeof linkSessionRequestSchema>;
export type WireTestWebhookRequest = z.infer<typeof testWebhookRequestSchema>;
export type WireTestWebhookResponse = z.infer<typeof testWebhookResponseSchema>;
/** The states, codes and products this version of Linkdesk knows; a value read may be any string (`Open<…>`). */
export type LinkState = (typeof LINK_STATES)[number];
export type LinkErrorCode = (typeof LINK_ERROR_CODES)[number];
export type Product = (typeof PRODUCTS)[number];
export type ProductErrorCode = (typeof PRODUCT_ERROR_CODES)[number];
export type { Open, UnreadableItem } from "./reading";
