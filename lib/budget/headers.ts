import type { KeyHeadroom } from "./headroom";

// The standard rate-limit headers (IETF httpapi "RateLimit header fields", structured-field form) for the budget keys
// a request touched, so scripts calling Linkdesk see the headroom too:
//   RateLimit-Policy: "link";q=30;w=61, "app";q=1000;w=61
//   RateLimit: "link";r=12;t=0, "app";r=990;t=0

function policyName(h: KeyHeadroom): string {
  return h.key.scope;
}

export function rateLimitHeaders(headrooms: KeyHeadroom[], now = Date.now()): Record<string, string> {
  if (headrooms.length === 0) return {};
  const window = (h: KeyHeadroom) => Math.ceil(h.key.windowMs / 1000);
  const reset = (h: KeyHeadroom) => (h.nextSlotAt ? Math.max(0, Math.ceil((h.nextSlotAt.getTime() - now) / 1000)) : 0);
  return {
    "RateLimit-Policy": headrooms.map((h) => `"${policyName(h)}";q=${h.key.limit};w=${window(h)}`).join(", "),
    RateLimit: headrooms.map((h) => `"${policyName(h)}";r=${h.remaining};t=${reset(h)}`).join(", "),
  };
}
