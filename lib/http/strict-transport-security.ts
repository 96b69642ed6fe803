// HTTP Strict Transport Security: once a browser has seen it over https, it goes to that host over https only, for a
// year, subdomains included, so no later first request travels in clear text. Sent only when Linkdesk's public URL
// (AUTH_URL) is https: a browser ignores it over http anyway, and an http-only deployment must not promise https.

export const STRICT_TRANSPORT_SECURITY = "max-age=31536000; includeSubDomains";

/** The Strict-Transport-Security header value for a dashboard served at `publicUrl`, or null when it is not https. */
export function strictTransportSecurity(publicUrl: string | undefined): string | null {
  if (!publicUrl) return null;
  try {
    return new URL(publicUrl).protocol === "https:" ? STRICT_TRANSPORT_SECURITY : null;
  } catch {
    return null;
  }
}
