import {
  PRODUCT_REFRESH_INTERVAL_MS,
  RATE_LIMIT_WINDOW_MS,
  type RateLimitRule,
  type RateLimitScope,
  rulesFor,
} from "../upstream/rate-limits";
import type { BudgetedKey } from "./types";

// From the spec's Limits table (lib/upstream/rate-limits.ts) to the keys one upstream call reserves.

/**
 * Added to every window. The upstream counts a call when it arrives, a little after we send it; with our window a
 * second wider than theirs, a call we let through has always left their window too.
 */
export const WINDOW_MARGIN_MS = 1000;

/** The budget's window for the Limits table's per-minute rules. */
export const BUDGET_WINDOW_MS = RATE_LIMIT_WINDOW_MS + WINDOW_MARGIN_MS;

/** Linkdesk's share of each kind of upstream limit, in (0, 1]: other software may call with the same credentials. */
export interface BudgetShares {
  app: number;
  link: number;
  user: number;
  client: number;
}

/** What the call is about; a rule whose scope id is not known does not apply. */
export interface CallIds {
  clientId: string;
  appId: string;
  linkId?: string;
  userId?: string;
  /** POST /link-session re-linking an existing link: only those count on the per-link rule. */
  relink?: boolean;
  /** POST /links/{id}/products: the products refreshed, one key each (refreshKeysFor). */
  products?: readonly RefreshProduct[];
}

/**
 * Rules for endpoints Linkdesk calls that the spec's table has no row for, so the budget still paces them. Assumed by
 * Linkdesk, not published: the sandbox enforces none of them (it enforces only the spec's table).
 *
 * GET /users/{id}/links (upstream-facts §2: one customer user's links in any state). The facts give no limit for it
 * (their §12 table has no users row), so it gets the per-app 600/min of GET /links, the listing of the same links:
 * the lowest per-app limit the table gives any read of links, for a call that serves a few links where GET /links
 * serves thousands. Linkdesk calls it only to find the link an import made, so its pace follows the imports' (60/min
 * per app). Should the guess be high, a 429 closes the key until Retry-After, as for any rule.
 *
 * GET /users/{id}/accounts (upstream-facts §9) and GET /users/{id}/transactions (§4.3): the same customer's accounts
 * and transactions across their links. The facts give no limit for them either (§12 has no users row; §16 lists the
 * users rows as unknown), so each gets the assumed 600/min per app of GET /users/{id}/links. The spec's table gives
 * 600 per app to every read of a link's accounts and 2000 to the link's transactions; a call that reads all of a
 * customer's links at once is taken at the lower figure. No per-user guess: none is published to copy.
 */
export const ASSUMED_RULES: readonly RateLimitRule[] = [
  { endpoint: "GET /users/{id}/links", method: "GET", path: "/users/{id}/links", limitPerMinute: 600, scope: "app" },
  {
    endpoint: "GET /users/{id}/accounts",
    method: "GET",
    path: "/users/{id}/accounts",
    limitPerMinute: 600,
    scope: "app",
  },
  {
    endpoint: "GET /users/{id}/transactions",
    method: "GET",
    path: "/users/{id}/transactions",
    limitPerMinute: 600,
    scope: "app",
  },
];

/** The spec's rules for `endpoint`, or Linkdesk's assumed ones where the spec's table has none. */
export function budgetRulesFor(endpoint: string): RateLimitRule[] {
  return [...rulesFor(endpoint), ...ASSUMED_RULES.filter((rule) => rule.endpoint === endpoint)];
}

// The table's note on the one rule that counts only some of its endpoint's calls.
const RELINK_ONLY = "relink only";

/**
 * The keys one call to `endpoint` (a route template such as "GET /links/{id}") reserves; none for an unlisted endpoint.
 * `windowMs` is for benchmarks against a sandbox counting over a shorter window (the margin then scaled alike).
 */
export function keysFor(
  endpoint: string,
  ids: CallIds,
  shares: BudgetShares,
  windowMs = BUDGET_WINDOW_MS,
): BudgetedKey[] {
  const keys: BudgetedKey[] = [];
  for (const rule of budgetRulesFor(endpoint)) {
    if (rule.note === RELINK_ONLY && !ids.relink) continue;
    const scopeId = scopeIdOf(rule.scope, ids);
    if (scopeId === undefined) continue;
    keys.push({
      endpoint: rule.endpoint,
      scope: rule.scope,
      scopeId,
      limit: shareOf(rule, shares[rule.scope]),
      upstreamLimit: rule.limitPerMinute,
      windowMs,
    });
  }
  // The refresh rule is no per-minute row: one refresh per product per interval, whatever Linkdesk's share.
  if (endpoint === REFRESH_ENDPOINT && ids.linkId && ids.products)
    keys.push(...refreshKeysFor(ids.linkId, ids.products));
  return keys;
}

function scopeIdOf(scope: RateLimitScope, ids: CallIds): string | undefined {
  const id = { client: ids.clientId, app: ids.appId, link: ids.linkId, user: ids.userId }[scope];
  return id === "" ? undefined : id;
}

/** Linkdesk's part of a rule's limit: floored, so the shares of several callers never add up past the upstream's, and at least 1. */
export function shareOf(rule: Pick<RateLimitRule, "limitPerMinute">, share: number): number {
  if (!Number.isFinite(share) || share <= 0 || share > 1)
    throw new RangeError(`A budget share must be above 0 and at most 1, got ${share}`);
  // The epsilon absorbs binary fractions: 0.29 × 100 is 28.999999999999996 in floating point, and means 29.
  return Math.max(1, Math.floor(rule.limitPerMinute * share + 1e-9));
}

/** A share as people write it: 0.5 → "50 %", 0.125 → "12.5 %". */
export function shareLabel(share: number): string {
  return `${Number((share * 100).toFixed(2))} %`;
}

/** The products a link can be asked to refresh (POST /links/{id}/products). */
export type RefreshProduct = keyof typeof PRODUCT_REFRESH_INTERVAL_MS;

export const REFRESH_ENDPOINT = "POST /links/{id}/products";

/** The endpoint part of a refresh key: one counter per product, so a link's keys stay scoped by its link id alone. */
export function refreshEndpoint(product: RefreshProduct): string {
  return `${REFRESH_ENDPOINT} (${product})`;
}

/** The product a refresh key counts, or null for any other key. */
export function refreshProductOf(key: Pick<BudgetedKey, "endpoint">): RefreshProduct | null {
  const product = key.endpoint.startsWith(`${REFRESH_ENDPOINT} (`)
    ? key.endpoint.slice(REFRESH_ENDPOINT.length + 2, -1)
    : null;
  return product !== null && product in PRODUCT_REFRESH_INTERVAL_MS ? (product as RefreshProduct) : null;
}

/**
 * The upstream refuses a product refreshed too recently (once an hour for accounts, once a day for the rest): one key
 * per (link, product), one refresh per interval, plus the same margin as the per-minute windows.
 */
export function refreshKeysFor(linkId: string, products: readonly RefreshProduct[]): BudgetedKey[] {
  return [...new Set(products)].map((product) => ({
    endpoint: refreshEndpoint(product),
    scope: "link",
    scopeId: linkId,
    limit: 1,
    upstreamLimit: 1,
    windowMs: PRODUCT_REFRESH_INTERVAL_MS[product] + WINDOW_MARGIN_MS,
  }));
}
