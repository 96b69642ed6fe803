// Times on the link page: the upstream's ISO strings and Linkdesk's dates, shown the same way, in UTC.

/** 2026-11-19 08:00:00 UTC, or the text as given when it is not a time. */
export function utcText(value: string | Date): string {
  const at = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(at.getTime())) return String(value);
  return `${at.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A <time> for a time, or a muted "never"/"—" for none. */
export function Time({ value, none = "—" }: { value: string | Date | null | undefined; none?: string }) {
  if (value === null || value === undefined || value === "") return <span className="text-slate-500">{none}</span>;
  const at = value instanceof Date ? value : new Date(value);
  return Number.isNaN(at.getTime()) ? (
    <span>{String(value)}</span>
  ) : (
    <time dateTime={at.toISOString()}>{utcText(at)}</time>
  );
}
