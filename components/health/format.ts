// Numbers and times for the Health page, one way everywhere on it.
import { formatAgo } from "@/components/data-table/relative-time";

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

/** "just now", "4 min ago", "3 h ago": the data table's wording, for one way of saying it across the app. */
export function timeAgo(at: Date, now: Date = new Date()): string {
  return formatAgo(at.getTime(), now.getTime());
}
