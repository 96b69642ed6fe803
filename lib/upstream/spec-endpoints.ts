import { RATE_LIMITS } from "./rate-limits";

// Every route the spec defines, as "METHOD /template": the three endpoints it describes in full plus every endpoint of
// its Limits table. The dashboard calls nothing else on a real upstream; in demo mode it may also call the sandbox's
// own control routes (SANDBOX_CONTROL_PREFIX), which only the bundled sandbox has.

const DESCRIBED = [
  "POST /links/{id}/transactions/{txn_id}/enrichment",
  "POST /link-session/exchange-token",
  "POST /links/import",
] as const;

export const SPEC_ENDPOINTS: readonly string[] = [...new Set([...DESCRIBED, ...RATE_LIMITS.map((rule) => rule.endpoint)])];

/** Routes under this prefix exist only on the bundled sandbox (demo mode). */
export const SANDBOX_CONTROL_PREFIX = "/_sandbox/";

export function isSpecEndpoint(endpoint: string): boolean {
  return SPEC_ENDPOINTS.includes(endpoint);
}
