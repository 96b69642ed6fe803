// Test support (not shipped): the shapes the sandbox sends with drift off, written from the spec and the facts
// (spec/upstream-spec.txt, spec/upstream-facts.md) and the sandbox's vocabulary, so its tests check it against the
// service it models and never against Linkdesk's reader. Objects are strict: a field the model does not name fails,
// so clean answers stay clean. Whether Linkdesk can read the sandbox is lib/upstream/sandbox-conformance.test.ts's
// question.
import { z } from "zod";
import {
  CATEGORIES,
  categoryOf,
  COUNTRIES,
  LINK_ERROR_CODES,
  LINK_STATES,
  PRODUCT_ERROR_CODES,
  PRODUCTS,
  PROVIDERS,
  SUBCATEGORIES,
  TRANSACTION_TYPES,
} from "./wire-vocabulary";

const dateTime = z.iso.datetime({ offset: true });
const date = z.iso.date();
const text = z.string();

export const productStatusShape = z.strictObject({
  refreshed_at: dateTime.nullable(),
  last_attempted_at: dateTime.nullable(),
  error_code: z.enum(PRODUCT_ERROR_CODES).optional(),
  error_message: text.optional(),
  unavailable: text.optional(),
  /** The transactions product only (spec "Product status object"). */
  last_enriched: dateTime.optional(),
});

/** The link object (spec "Link object"; facts §3.1 LinkCommon). */
export const linkShape = z
  .strictObject({
    link_id: z.string().regex(/^mk_[1-9A-HJ-NP-Za-km-z]{22}$/),
    institution_id: text,
    institution_name: text,
    institution_avatar: text,
    state: z.enum(LINK_STATES),
    error_code: z.enum(LINK_ERROR_CODES).nullable(),
    last_synced_at: dateTime.nullable(),
    auth_expired_at: dateTime.nullable(),
    provider: z.enum(PROVIDERS),
    link_tags: z.array(text),
    tags: z.array(text).optional(),
    webhook: text.nullable(),
    products: z.partialRecord(z.enum(PRODUCTS), productStatusShape),
    available_products: z.array(z.enum(PRODUCTS)),
  })
  // The spec: error_code is "present when the link is in the error state", null when there is no error. A deleted
  // link keeps the code it had.
  .refine((link) => link.state === "deleted" || (link.state === "error") === (link.error_code !== null), {
    message: "error_code is set exactly when the state is error",
  });

const brandShape = z.strictObject({ id: text, name: text, display_name: text, logo: text, website: text });

/** Enrichment (spec "Enrichment object"; facts §5.2), its subcategory one of its category's. */
export const enrichmentShape = z
  .strictObject({
    category: z.strictObject({ value: z.enum(CATEGORIES), confidence: z.number().int().min(0).max(100) }),
    subcategory: z
      .strictObject({ value: z.enum(SUBCATEGORIES), confidence: z.number().int().min(0).max(100) })
      .nullable(),
    merchant: brandShape.nullable(),
    processor: brandShape.nullable(),
    recurrence: z.strictObject({ frequency: text, next_predicted_date: date }).nullable(),
  })
  .refine(
    (enrichment) => !enrichment.subcategory || categoryOf(enrichment.subcategory.value) === enrichment.category.value,
    { message: "the subcategory belongs to another category" },
  );

/** Transaction (spec "Transaction object"; facts §5.1): an unsigned amount, its direction in `type`. */
export const transactionShape = z.strictObject({
  transaction_id: text,
  account_id: text,
  amount: z.number().nonnegative(),
  type: z.enum(TRANSACTION_TYPES),
  currency: z.string().regex(/^[A-Z]{3}$/),
  date,
  datetime: dateTime.nullable(),
  description: text,
  raw_description: text,
  pending: z.boolean(),
  enrichment: enrichmentShape,
  original_id: text.nullable(),
});

/** The same, with the amount as the public SDKs type it: a decimal string (SandboxOptions.amountsAsStrings). */
export const stringAmountTransactionShape = transactionShape.extend({ amount: z.string().regex(/^\d+\.\d{2,}$/) });

/** AccountResponse (facts §9). */
export const accountShape = z.strictObject({
  account_id: z.string().regex(/^acc_\w{22}$/),
  account_type: z.string().regex(/^((depository|investment|liability|other)\.[a-z_]+|unknown)$/),
  name: text,
  nickname: text.nullable(),
  account_mask: text.nullable(),
  balances: z.strictObject({
    currency: z.string().regex(/^[A-Z]{3}$/),
    available: z.number().nullable(),
    current: z.number().nullable(),
    limit: z.number().nullable(),
    balance_date: dateTime.nullable(),
  }),
  original_id: text.nullable(),
  closed: z.boolean(),
});

/** Institution (facts §13). */
export const institutionShape = z.strictObject({
  institution_id: text,
  institution_id_aliases: z.array(text),
  name: text,
  country: z.enum(COUNTRIES),
  domain: text.nullable(),
  color: text.nullable(),
  color_dark: text.nullable(),
  is_featured: z.boolean(),
});

/** The error envelope (spec "Errors"; facts §10), validation_errors as HTTPValidationError carries them. */
export const errorEnvelopeShape = z.strictObject({
  error_code: text,
  error_message: z.string().min(1),
  documentation_url: text,
  link_error_code: text.optional(),
  validation_errors: z
    .array(z.strictObject({ location: z.array(z.union([z.string(), z.number()])), message: text, type: text }))
    .optional(),
});

/** CreateAccessTokenResponse (facts §1). */
export const accessTokenShape = z.strictObject({
  access_token: z.string().min(1),
  token_type: z.literal("bearer"),
  expires_in: z.number().int().positive(),
});

/** GetLinksResponse (facts §2): `next_cursor` is "" on the last page. */
export const linksPageShape = z.strictObject({
  links: z.array(z.strictObject({ link_id: text, created_at: dateTime })),
  next_cursor: text,
});

/** GET /links/{id}/transactions (facts §4.1): no cursor; `size` counts this batch. */
export const transactionsPageShape = z.strictObject({
  total: z.number().int().nonnegative(),
  page: z.number().int().positive(),
  size: z.number().int().nonnegative(),
  transactions: z.array(transactionShape),
  accounts: z.array(accountShape),
  link: linkShape,
});

/** Correct Enrichment's answer (spec endpoint 1; facts §6). */
export const correctionShape = z.strictObject({
  transactions: z.array(transactionShape),
  accounts: z.array(accountShape),
  link: linkShape,
  cursor: z.strictObject({ next: text }),
});

/** Exchange Token's answer (spec endpoint 2): the deprecated link_id beside the link. */
export const exchangeShape = z.strictObject({ link_id: text, link: linkShape });

export const linkSessionShape = z.strictObject({ link_session_token: z.string().regex(/^sandbox_/) });

export const accountsShape = z.strictObject({ accounts: z.array(accountShape), link: linkShape });
export const accountAnswerShape = z.strictObject({ account: accountShape, link: linkShape });

/** GET /users/{id}/links (facts §2): a map by link id. */
export const userLinksShape = z.strictObject({ links: z.record(text, linkShape) });

/** GET /users/{id}/accounts (facts §9): a map by link id of each link's accounts and its last sync. */
export const userAccountsShape = z.strictObject({
  links: z.record(text, z.strictObject({ accounts: z.array(accountShape), last_synced_at: dateTime.nullable() })),
});

/** GET /users/{id}/transactions (facts §4.3): a page across links; `accounts` maps ids to BasicAccountDetails. */
export const userTransactionsPageShape = z.strictObject({
  total: z.number().int().nonnegative(),
  page: z.number().int().positive(),
  size: z.number().int().nonnegative(),
  transactions: z.array(transactionShape),
  accounts: z.record(text, z.strictObject({ name: text, last_synced_at: dateTime.nullable(), link_id: text })),
});

/** GET /institutions (facts §13): the plural `cursors`, null at the end. */
export const institutionsPageShape = z.strictObject({
  institutions: z.array(institutionShape),
  cursors: z.strictObject({ next: text.nullable() }),
});

export type WireLink = z.infer<typeof linkShape>;
export type WireTransaction = z.infer<typeof transactionShape>;
