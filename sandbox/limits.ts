// The spec's limits as data: the per-endpoint rate limits (spec "Limits"), the minimum interval between product
// refreshes and the import limits. Where the facts' partial table differs (GET /links/{id} 15/min per link, the
// accounts rows), the spec wins, as the facts themselves say.

export type RateLimitScope = "client" | "app" | "user" | "link";

export interface RateLimitRule {
  /** Route template as written in the spec, e.g. "GET /links/{id}". */
  endpoint: string;
  limitPerMinute: number;
  scope: RateLimitScope;
  /** Only part of the endpoint's calls count, e.g. relinks for POST /link-session per link. */
  note?: string;
}

const rows: [string, number, RateLimitScope, string?][] = [
  ["POST /auth/token", 300, "client"],
  ["GET /institutions", 30, "app"],
  ["GET /institutions/{institution_id}", 400, "app"],
  ["POST /link-session", 20, "user"],
  ["POST /link-session", 1200, "app"],
  ["POST /link-session", 12, "link", "relink only"],
  ["GET /links", 600, "app"],
  ["POST /links/import", 60, "app"],
  ["GET /links/{id}", 30, "link"],
  ["GET /links/{id}", 1000, "app"],
  ["PATCH /links/{id}", 4, "link"],
  ["PATCH /links/{id}", 600, "app"],
  ["DELETE /links/{id}", 600, "app"],
  ["GET /links/{id}/accounts", 30, "link"],
  ["GET /links/{id}/accounts", 600, "app"],
  ["GET /links/{id}/accounts/numbers", 10, "link"],
  ["GET /links/{id}/accounts/numbers", 600, "app"],
  ["GET /links/{id}/accounts/{account_id}", 30, "link"],
  ["GET /links/{id}/accounts/{account_id}", 600, "app"],
  ["GET /links/{id}/identity", 10, "link"],
  ["GET /links/{id}/identity", 600, "app"],
  ["POST /links/{id}/import/transactions", 120, "app"],
  ["GET /links/{id}/investments/holdings", 30, "link"],
  ["GET /links/{id}/investments/holdings", 600, "app"],
  ["GET /links/{id}/investments/transactions", 60, "link"],
  ["GET /links/{id}/investments/transactions", 600, "app"],
  ["GET /links/{id}/transactions", 60, "link"],
  ["GET /links/{id}/transactions", 2000, "app"],
  ["GET /links/{id}/transactions/sync", 60, "link"],
  ["GET /links/{id}/transactions/sync", 2000, "app"],
  ["POST /links/{id}/transactions/{txn_id}/enrichment", 60, "link"],
  ["POST /links/{id}/transactions/{txn_id}/enrichment", 2000, "app"],
  ["POST /webhooks/test/link/{id}", 5, "link"],
  ["POST /webhooks/test/link/{id}", 20, "app"],
];

export const RATE_LIMITS: readonly RateLimitRule[] = rows.map(([endpoint, limitPerMinute, scope, note]) => ({
  endpoint,
  limitPerMinute,
  scope,
  ...(note ? { note } : {}),
}));

/** The upstream counts calls per rolling minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** The rows that govern one endpoint, e.g. rulesFor("GET /links/{id}") gives the per-link and per-app rows. */
export function rulesFor(endpoint: string): RateLimitRule[] {
  return RATE_LIMITS.filter((rule) => rule.endpoint === endpoint);
}

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/** POST /links/{id}/products: the spec's minimum interval, one hour for accounts and one day for every other product. */
export const PRODUCT_REFRESH_INTERVAL_MS = {
  accounts: HOUR_MS,
  account_numbers: DAY_MS,
  identity: DAY_MS,
  transactions: DAY_MS,
  investments: DAY_MS,
  enrichment: DAY_MS,
} as const;

/** Import Link and its transaction batches: at most 1 MB of data and 4000 transactions per call (spec). */
export const IMPORT_MAX_BYTES = 1024 * 1024;
export const IMPORT_MAX_TRANSACTIONS = 4000;
