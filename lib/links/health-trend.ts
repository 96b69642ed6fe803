import "server-only";
import { and, desc, gte, sql } from "drizzle-orm";
import { type CachedRead, cachedRead } from "../db/cached-read";
import type { Db } from "../db/client";
import { type LinkSnapshotSource, linkSnapshots } from "../db/schema";
import type { LinkErrorCode, LinkState } from "../upstream/schemas";
import { isErrorCode, isState } from "./health-summary";

// The Health page's trend: the link snapshots taken at start and after each sync (lib/links/trend-snapshots.ts), read back
// over a window for the charts.

const DAY_MS = 24 * 60 * 60 * 1000;

export interface TrendPoint {
  at: Date;
  total: number;
  byState: Partial<Record<LinkState, number>>;
  byErrorCode: Partial<Record<LinkErrorCode, number>>;
  /** "sync", "start", or "demo" (made-up history in demo mode). */
  source: LinkSnapshotSource;
}

export interface HealthTrend {
  /** The window asked for. */
  from: Date;
  to: Date;
  /** Oldest first; at most `maxPoints`, the newest snapshot of each equal slice of the window. */
  points: TrendPoint[];
}

/** The last made-up demo point of a trend (its history before the first real snapshot), or null when it has none. */
export function demoHistoryUntil(trend: HealthTrend): Date | null {
  const demo = trend.points.filter((p) => p.source === "demo");
  return demo.length > 0 ? demo.at(-1)!.at : null;
}

/** The default most points a chart draws: a sync every few minutes for 30 days would otherwise be thousands. */
export const TREND_MAX_POINTS = 120;

/**
 * The link snapshots (taken after each sync) of the last `days` days, for the charts. The window is cut into
 * `maxPoints` equal slices and the newest snapshot of each is kept, so a chart's cost does not grow with the sync rate.
 */
export async function healthTrend(
  db: Db,
  { days, maxPoints = TREND_MAX_POINTS, now = new Date() }: { days: number; maxPoints?: number; now?: Date },
): Promise<HealthTrend> {
  if (!(days > 0) || !(maxPoints >= 1)) throw new RangeError("healthTrend: days and maxPoints must be positive");
  const from = new Date(now.getTime() - days * DAY_MS);
  const sliceSeconds = Math.max(1, Math.floor((days * DAY_MS) / 1000 / Math.floor(maxPoints)));
  // Written into the text, not bound: PostgreSQL matches DISTINCT ON to ORDER BY by expression, and two parameters
  // ($1, $5) are different expressions to it. Both are numbers computed here.
  const slice = sql`floor((extract(epoch from ${linkSnapshots.at}) - ${sql.raw(String(from.getTime() / 1000))}) / ${sql.raw(String(sliceSeconds))})`;
  const rows = await db
    .selectDistinctOn([slice], {
      at: linkSnapshots.at,
      total: linkSnapshots.total,
      byState: linkSnapshots.byState,
      byErrorCode: linkSnapshots.byErrorCode,
      source: linkSnapshots.source,
    })
    .from(linkSnapshots)
    .where(and(gte(linkSnapshots.at, from), sql`${linkSnapshots.at} <= ${now.toISOString()}::timestamptz`))
    .orderBy(slice, desc(linkSnapshots.at), desc(linkSnapshots.id));
  return {
    from,
    to: now,
    points: rows
      .map((row) => ({
        at: row.at,
        total: row.total,
        byState: pickCounts(row.byState, isState),
        byErrorCode: pickCounts(row.byErrorCode, isErrorCode),
        source: row.source,
      }))
      .sort((a, b) => a.at.getTime() - b.at.getTime()),
  };
}

/** Each trend window's reads, kept 5 s per database as the summary is. */
const trendReads = new Map<number, CachedRead<HealthTrend>>();

function trendRead(days: number): CachedRead<HealthTrend> {
  let read = trendReads.get(days);
  if (!read) trendReads.set(days, (read = cachedRead((one) => healthTrend(one, { days }), 5_000)));
  return read;
}

/**
 * The trend of the last `days` days, kept 5 s and shared by the views in that time, as the summary's counts are:
 * snapshots are taken at start and after each sync, so every view of a few seconds would read the same ones. For the
 * page's few windows only (one kept read each).
 */
export function cachedHealthTrend(db: Db, days: number): Promise<HealthTrend> {
  return trendRead(days)(db);
}

/** The kept trend of the last `days` days if it is at hand (CachedRead.peek). */
export function peekHealthTrend(db: Db, days: number): HealthTrend | undefined {
  return trendRead(days).peek(db);
}

/** Keeps the known keys with numeric counts: a snapshot is JSON written by an older or newer Linkdesk. */
function pickCounts<K extends string>(value: unknown, known: (key: unknown) => key is K): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  if (value && typeof value === "object") {
    for (const [key, n] of Object.entries(value))
      if (known(key) && typeof n === "number" && Number.isFinite(n)) out[key] = n;
  }
  return out;
}
