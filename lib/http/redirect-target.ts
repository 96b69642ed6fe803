// Where Linkdesk may send a browser that named its own destination (?callbackUrl=, a form's hidden field, Auth.js's
// callbackUrl): a path on Linkdesk itself, or nowhere. Plain code with no imports: the proxy, the pages, the actions
// and Auth.js's redirect callback all use it.
//
// Browsers read a Location far more loosely than a string test does (the WHATWG URL parser): they drop tabs and line
// breaks anywhere, read a backslash as a slash, and take `//host` as another site. So `/\t/evil.example` becomes
// `//evil.example`, and a header value holding a line break makes Node refuse the whole response (a 500). Servers
// and proxies on the way may also decode `%2f` and `%5c` once more. A target is therefore checked as a browser would
// read it, raw and decoded, and anything doubtful goes to the start page.

/** Where a doubtful target goes instead. */
export const START_PAGE = "/";

/** Longer than any real path and query Linkdesk builds; longer ones are not read at all. */
export const MAX_REDIRECT_TARGET_LENGTH = 2_000;

// A reserved name (RFC 2606): parsing against it tells a relative path from one that leaves the origin.
const PLACEHOLDER_ORIGIN = "http://linkdesk.invalid";

// Printable ASCII without space: what a URL that a browser or Linkdesk itself encoded consists of. No control
// characters, no whitespace of any kind, nothing a header cannot carry.
const URL_CHARACTERS = /^[\x21-\x7e]+$/;

// The sign-in and password pages send a signed-in person on to their target: a target among them would loop.
const AUTH_PAGES = /^\/(sign-in|change-password|api\/auth)(\/|$)/;

/** `value` decoded until it no longer changes (at most a few rounds), or null when it is not valid percent-encoding. */
function fullyDecoded(value: string): string | null {
  let current = value;
  for (let round = 0; round < 4; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return null;
    }
    if (next === current) return current;
    current = next;
  }
  return null;
}

/**
 * `value` as a path on this origin (path, query and fragment, e.g. `/links?state=error`), or null when it is anything
 * else: another origin, another scheme, a protocol-relative `//host`, control characters or whitespace, backslashes,
 * slashes or backslashes that decoding reveals, broken percent-encoding, or more than MAX_REDIRECT_TARGET_LENGTH
 * characters. With `ownOrigin` (Auth.js's baseUrl), an absolute URL on exactly that origin is accepted too.
 */
export function sameOriginPath(value: unknown, ownOrigin?: string): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_REDIRECT_TARGET_LENGTH) return null;
  if (!URL_CHARACTERS.test(value) || value.includes("\\")) return null;
  let base: string;
  try {
    base = ownOrigin ? new URL(ownOrigin).origin : PLACEHOLDER_ORIGIN;
  } catch {
    return null;
  }
  // Relative targets must be paths; absolute ones must spell out this origin itself.
  if (!(value.startsWith("/") && !value.startsWith("//")) && !(ownOrigin && value.startsWith(`${base}/`))) return null;
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  // As resolved: `/.//evil` resolves to the path `//evil`, which a Location would send to another host.
  const path = fullyDecoded(url.pathname);
  if (path === null || !path.startsWith("/") || path.startsWith("//") || /[\x00-\x1f\x7f\\]/.test(path)) return null;
  const target = `${url.pathname}${url.search}${url.hash}`;
  return target.startsWith("//") ? null : target;
}

/**
 * Where to send a person once signed in (or once their password is chosen): `value` when it is a path on Linkdesk
 * (see sameOriginPath) other than the sign-in and password pages themselves, the start page otherwise.
 */
export function safeRedirectPath(value: unknown, ownOrigin?: string): string {
  const path = sameOriginPath(value, ownOrigin);
  if (path === null || AUTH_PAGES.test(fullyDecoded(new URL(path, PLACEHOLDER_ORIGIN).pathname) ?? ""))
    return START_PAGE;
  return path;
}
