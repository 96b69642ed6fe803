// The spec's Limits table as data. The upstream counts calls per rolling minute for each (endpoint, scope, scope id);
// exceeding any row yields 429 api_error.rate_limit_exceeded with Retry-After. Used by the sandbox to enforce and,
// later, by the dashboard's rate budget to stay under.

export type RateLimitScope = "client" | "app" | "user" | "link";

export interface RateLimitRule {
  /** Route template as written in the spec, e.g. "GET /links/{id}". */
  endpoint: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
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

export const RATE_LIMITS: readonly RateLimitRule[] = rows.map(([endpoint, limitPerMinute, scope, note]) => {
  const [method, path] = endpoint.split(" ") as [RateLimitRule["method"], string];
  return { endpoint, method, path, limitPerMinute, scope, ...(note ? { note } : {}) };
});

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Minimum interval between refreshes of one product of one link (POST /links/{id}/products). */
export const PRODUCT_REFRESH_INTERVAL_MS = {
  accounts: 60 * 60_000,
  account_numbers: 24 * 60 * 60_000,
  identity: 24 * 60 * 60_000,
  transactions: 24 * 60 * 60_000,
  investments: 24 * 60 * 60_000,
  enrichment: 24 * 60 * 60_000,
} as const;

/** The rules that govern one endpoint, e.g. rulesFor("GET /links/{id}") gives the per-link and per-app rows. */
export function rulesFor(endpoint: string): RateLimitRule[] {
  return RATE_LIMITS.filter((rule) => rule.endpoint === endpoint);
}
