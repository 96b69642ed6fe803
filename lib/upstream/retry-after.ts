/**
 * Parses a Retry-After header into the moment a retry is allowed. The upstream sends either delta-seconds ("30") or
 * an HTTP-date ("Wed, 21 Oct 2026 07:28:00 GMT"). Returns undefined for a missing or unreadable value.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): Date | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return new Date(now + Number(trimmed) * 1000);
  // Only accept something that looks like an HTTP-date, not any string Date.parse happens to read ("1.5", "2").
  if (!/^[A-Za-z]{3},? /.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : new Date(at);
}
