// Numbers and times for the Health page, one way everywhere on it.

const counts = new Intl.NumberFormat("en-US");
const percents = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });

export const formatCount = (n: number) => counts.format(n);

/** 0..1 as a percentage; "<0.1%" rather than a misleading "0%" for a small non-zero share. */
export function formatShare(share: number): string {
  if (share > 0 && share < 0.001) return "<0.1%";
  return percents.format(share);
}

/** 2026-11-20 12:00 UTC: the same for every reader, like the audit trail. */
export const formatUtc = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** "just now", "4 min ago", "3 h ago", "2 days ago". */
export function timeAgo(at: Date, now: Date = new Date()): string {
  const seconds = Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}
