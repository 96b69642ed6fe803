// Upstream strings that look like addresses (avatars, webhooks) are only used as addresses when they are http(s):
// a javascript:, data: or relative value is shown as text, never loaded or linked.

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
