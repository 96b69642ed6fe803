// The Content-Security-Policy of every response. Scripts run only with this request's nonce (Next.js reads the nonce
// from the policy on the request and puts it on its own scripts; every page is rendered per request, see
// app/layout.tsx), and what they load ('strict-dynamic'); no inline or injected script runs. Upstream strings are
// rendered as text anyway: this is the second wall.

/** A fresh, unguessable nonce (128 random bits, base64). One per request, never reused. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

export interface PolicyOptions {
  /** `next dev` needs eval (React rebuilds server error stacks) and a websocket for hot reload; production neither. */
  development?: boolean;
  /** Where a form may send the browser besides Linkdesk itself: the identity provider's sign-in page, when configured. */
  formTargets?: readonly string[];
  /**
   * Where upstream pictures (institution avatars, merchant logos) may come from besides Linkdesk: origins only
   * (lib/http/safe-url.ts imageOrigins), never a whole scheme.
   */
  imageOrigins?: readonly string[];
}

export function contentSecurityPolicy(nonce: string, options: PolicyOptions = {}): string {
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": ["'self'", `'nonce-${nonce}'`, "'strict-dynamic'", ...(options.development ? ["'unsafe-eval'"] : [])],
    // Bars and meters set their width in a style attribute, which a nonce cannot cover; styles cannot run code.
    "style-src": ["'self'", "'unsafe-inline'"],
    // Institution avatars and merchant logos: only from the upstream's own origin and the configured picture origins.
    // The avatar component loads nothing else (lib/http/safe-url.ts imageUrl), so this refuses nothing it asks for.
    "img-src": ["'self'", "data:", "blob:", ...(options.imageOrigins ?? [])],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'", ...(options.development ? ["ws:"] : [])],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'", ...(options.formTargets ?? [])],
    "frame-ancestors": ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(" ")}`)
    .join("; ");
}
