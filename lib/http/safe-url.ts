// Upstream strings that look like addresses (avatars, logos, webhooks) are only used as addresses when they are
// http(s): a javascript:, data: or relative value is shown as text, never loaded or linked.

/** The URL, normalised, when it is an absolute http or https address; otherwise null. */
export function httpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}

/**
 * An upstream picture's address as an <img> src: http(s), and on one of `origins` (those the Content-Security-Policy
 * lets images come from, see imageOrigins). Any other host would only be refused by the browser, with a CSP report in
 * the console, so it is not tried: the initials show instead. `null` origins: any http(s) host.
 */
export function imageUrl(value: string | null | undefined, origins: readonly string[] | null): string | null {
  const url = httpUrl(value);
  if (!url || origins === null) return url;
  return origins.includes(new URL(url).origin) ? url : null;
}

/**
 * The origins upstream pictures may come from: the upstream's own (the sandbox serves its logos there) and those
 * configured (UPSTREAM_IMAGE_ORIGINS: where the real upstream keeps institution avatars and merchant logos).
 */
export function imageOrigins(upstreamBaseUrl: string, configured: readonly string[] = []): string[] {
  const origins = [upstreamBaseUrl, ...configured].flatMap((value) => {
    const url = httpUrl(value);
    return url ? [new URL(url).origin] : [];
  });
  return [...new Set(origins)];
}
