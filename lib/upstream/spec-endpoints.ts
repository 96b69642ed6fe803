import { RATE_LIMITS } from "./rate-limits";

// Every route Linkdesk may call on the upstream, as "METHOD /template": every route the spec defines (the three
// endpoints it describes in full plus every endpoint of its Limits section), and the few in BEYOND_THE_SPEC. The
// dashboard calls nothing else on a real upstream; in demo mode it may also call the sandbox's own control routes
// (SANDBOX_CONTROL_PREFIX), which only the bundled sandbox has.

const DESCRIBED = [
  "POST /links/{id}/transactions/{txn_id}/enrichment",
  "POST /link-session/exchange-token",
  "POST /links/import",
] as const;

/**
 * Limited by the Limits section's refresh rule rather than a per-minute row (it is also in the spec's list of endpoints
 * that exist): a product refreshed too recently yields 429.
 */
const REFRESH_RULE = ["POST /links/{id}/products"] as const;

/** The routes the spec itself defines. */
export const DEFINED_BY_SPEC: readonly string[] = [
  ...new Set([...DESCRIBED, ...REFRESH_RULE, ...RATE_LIMITS.map((rule) => rule.endpoint)]),
];

/**
 * The exceptions: routes the spec does not define that Linkdesk calls anyway, each on a documented fact of the public
 * upstream. GET /users/{id}/links (upstream-facts §2) lists one customer user's links in any state: how to find the
 * link an import made when its answer was lost, since GET /links lists only active links and an import without
 * credentials is never active. GET /users/{id}/accounts (§9) and GET /users/{id}/transactions (§4.3) read the same
 * customer's accounts and transactions across their links in one call each. Their rate budgets are assumed
 * (lib/budget/rules.ts ASSUMED_RULES).
 * GET /.well-known/jwks.json (upstream-facts §11): the keys that sign webhooks, read by the receiver (lib/webhooks).
 */
export const BEYOND_THE_SPEC: readonly string[] = [
  "GET /users/{id}/links",
  "GET /users/{id}/accounts",
  "GET /users/{id}/transactions",
  "GET /.well-known/jwks.json",
];

export const SPEC_ENDPOINTS: readonly string[] = [...DEFINED_BY_SPEC, ...BEYOND_THE_SPEC];

/** Routes under this prefix exist only on the bundled sandbox (demo mode). */
export const SANDBOX_CONTROL_PREFIX = "/_sandbox/";

export function isSpecEndpoint(endpoint: string): boolean {
  return SPEC_ENDPOINTS.includes(endpoint);
}
