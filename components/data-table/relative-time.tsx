const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "40 s ago", "3 min ago", "3 h ago", "5 d ago"; a date from about two months back; "in 2 h" ahead. */
export function formatAgo(at: number, now: number): string {
  const delta = now - at;
  const ahead = delta < 0;
  const span = Math.abs(delta);
  let text: string;
  if (span < 10_000) return "just now";
  if (span < MINUTE) text = `${Math.floor(span / 1000)} s`;
  else if (span < HOUR) text = `${Math.floor(span / MINUTE)} min`;
  else if (span < 2 * DAY) text = `${Math.floor(span / HOUR)} h`;
  else if (span < 60 * DAY) text = `${Math.floor(span / DAY)} d`;
  else return new Date(at).toISOString().slice(0, 10);
  return ahead ? `in ${text}` : `${text} ago`;
}

/** 2025-03-01 12:34:56 UTC: the exact time, the same for every reader. */
export const exactUtc = (at: number) => `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** A time given as epoch milliseconds or as text: its epoch milliseconds, NaN for text that is not a time. */
export const timeOf = (value: number | string): number => (typeof value === "number" ? value : Date.parse(value));

/**
 * A time as "3 h ago" with the exact time on hover. `now` comes from the server's render (not the browser's clock), so
 * the HTML and the hydrated page agree. A value that is not a time is shown as given, as text.
 */
export function RelativeTime({ value, now, className }: { value: number | string; now: number; className?: string }) {
  const at = timeOf(value);
  if (Number.isNaN(at)) return <span className={className}>{value}</span>;
  return (
    <time dateTime={new Date(at).toISOString()} title={exactUtc(at)} className={className}>
      {formatAgo(at, now)}
    </time>
  );
}
