import type { HealthSummary } from "./health-summary";

// What changed on Health over a window a manager picks: each count now beside the same count in a snapshot of the read
// model taken at least that long ago (lib/links/trend-snapshots.ts writes one at start and after each sync). Plain:
// the windows and the arithmetic are the browser's and the server's alike; health-baseline.ts reads the snapshot.

export const CHANGE_WINDOWS = { "1h": 60 * 60_000, "24h": 24 * 60 * 60_000, "7d": 7 * 24 * 60 * 60_000 } as const;
export type ChangeWindow = keyof typeof CHANGE_WINDOWS;
export const DEFAULT_CHANGE_WINDOW: ChangeWindow = "24h";
export const CHANGE_WINDOW_WORDS: Record<ChangeWindow, string> = { "1h": "1 h", "24h": "24 h", "7d": "7 days" };

/** The read model is whole (its counts are the fleet's) when at least this share of its links have been read. */
export const READ_WHOLE_SHARE = 0.95;

/** Whether a read model (or a snapshot of it) has read nearly every link it lists. */
export function isWhole(total: number, read: number): boolean {
  return total > 0 && read >= READ_WHOLE_SHARE * total;
}

export function isChangeWindow(value: unknown): value is ChangeWindow {
  return typeof value === "string" && Object.hasOwn(CHANGE_WINDOWS, value);
}

/** The counts of a snapshot a change is measured from. */
export interface HealthBaseline {
  at: Date;
  total: number;
  byState: Record<string, number>;
  byErrorCode: Record<string, number>;
}

export interface HealthChange {
  window: ChangeWindow;
  /** When the snapshot compared with was taken. */
  since: Date;
  total: number;
  byState: Record<string, number>;
  byErrorCode: Record<string, number>;
  /** The error codes that moved most, by how far, largest first (at most five, none that did not move). */
  movers: { errorCode: string; delta: number; now: number }[];
}

/** Now minus then, for every state and error code either side knows. */
export function healthChange(window: ChangeWindow, summary: HealthSummary, baseline: HealthBaseline): HealthChange {
  const nowByState: Record<string, number> = {};
  for (const s of summary.byState) nowByState[s.state] = s.count;
  for (const s of summary.otherStates) nowByState[s.value] = s.count;
  const nowByCode: Record<string, number> = {};
  for (const e of summary.byErrorCode) nowByCode[e.errorCode] = e.count;
  for (const e of summary.otherErrorCodes) nowByCode[e.value] = e.count;
  const byState = differences(nowByState, baseline.byState);
  const byErrorCode = differences(nowByCode, baseline.byErrorCode);
  const movers = Object.entries(byErrorCode)
    .filter(([, delta]) => delta !== 0)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || a[0].localeCompare(b[0]))
    .slice(0, 5)
    .map(([errorCode, delta]) => ({ errorCode, delta, now: nowByCode[errorCode] ?? 0 }));
  return { window, since: baseline.at, total: summary.total - baseline.total, byState, byErrorCode, movers };
}

function differences(now: Record<string, number>, then: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of new Set([...Object.keys(now), ...Object.keys(then)])) out[key] = (now[key] ?? 0) - (then[key] ?? 0);
  return out;
}

/** "+12", "−3", "no change": a difference as a person reads it (a real minus sign). */
export function signed(delta: number): string {
  if (delta === 0) return "no change";
  return `${delta > 0 ? "+" : "−"}${Math.abs(delta).toLocaleString("en-US")}`;
}
