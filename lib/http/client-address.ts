// Who is on the other end of a request. X-Forwarded-For is written by whoever sends the request: a client can put any
// address in it, so only the values our own reverse proxies appended count (TRUSTED_PROXY_HOPS). The proxy (proxy.ts)
// rewrites the header before any page, action or route sees it; the app then reads one trusted value.
//
// Facts about Next.js 16 that this relies on (checked against `next start`): the proxy sees X-Forwarded-For exactly as
// the client (or the last reverse proxy) sent it; when the proxy removes the header from the request, Next.js fills it
// in again with the connection's remote address before the page, action or route handler runs. Next.js gives app
// code no other way to read the socket's address.

const FORWARDED_FOR = "x-forwarded-for";
// Headers that other set-ups use for the same claim; Linkdesk trusts none of them, so none may reach the app.
const UNTRUSTED_ADDRESS_HEADERS = ["x-real-ip", "true-client-ip", "cf-connecting-ip", "forwarded"];

// An IPv4 or IPv6 address (with an optional zone or port-less brackets stripped), nothing else: a "hop" that wrote
// garbage is not an address to throttle or audit by.
const ADDRESS = /^[0-9a-f:.]{2,45}$/i;

/**
 * The client's address according to the trusted part of an X-Forwarded-For header, or null when the connection's own
 * address must be used: with no trusted hops, or when the chain is shorter than the hops (the request bypassed a
 * proxy), or when the value found there is not an address.
 */
export function trustedForwardedAddress(forwardedFor: string | null, trustedHops: number): string | null {
  if (trustedHops <= 0 || !forwardedFor) return null;
  const hops = forwardedFor
    .split(",")
    .map((value) => value.trim())
    .filter(Boolean);
  if (hops.length < trustedHops) return null;
  const candidate = unbracket(hops[hops.length - trustedHops]!);
  return ADDRESS.test(candidate) ? candidate : null;
}

function unbracket(value: string): string {
  return value.startsWith("[") && value.endsWith("]") ? value.slice(1, -1) : value;
}

/**
 * Rewrites a request's headers in place so that X-Forwarded-For holds exactly one trusted address, or is absent (then
 * Next.js sets it to the connection's address). Other address headers are dropped.
 */
export function rewriteClientAddress(headers: Headers, trustedHops: number): void {
  const trusted = trustedForwardedAddress(headers.get(FORWARDED_FOR), trustedHops);
  if (trusted) headers.set(FORWARDED_FOR, trusted);
  else headers.delete(FORWARDED_FOR);
  for (const name of UNTRUSTED_ADDRESS_HEADERS) headers.delete(name);
}

/**
 * The client's address as the proxy left it (see rewriteClientAddress), for the sign-in throttle and the audit trail.
 * The last value is taken: after the rewrite there is only one.
 */
export function clientAddressOf(headers: Pick<Headers, "get">): string | null {
  const value = headers.get(FORWARDED_FOR);
  if (!value) return null;
  const last = unbracket(value.split(",").at(-1)!.trim());
  return ADDRESS.test(last) ? last : null;
}
