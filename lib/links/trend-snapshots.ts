import "server-only";
import { count, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type LinkSnapshotSource, links, linkSnapshots } from "../db/schema";
import { LINK_ERROR_CODES, type LinkErrorCode, type LinkState } from "../upstream/schemas";

// The read model's counts over time, for the Health trends: a snapshot after each sync (lib/sync/engine.ts), and what
// the trends have before the first sync of this run finishes:
// - at every start, a snapshot of what the read model holds (when it holds any read link), so after a restart the
//   charts reach up to now at once instead of waiting for the next sync;
// - in demo mode, once, on a database with no snapshot at all: 90 days of made-up daily history, so a first look at
//   the demo shows trends. Its snapshots say source "demo", and the charts shade and label them.

const DAY_MS = 86_400_000;
export const DEMO_HISTORY_DAYS = 90;

/** Another instance starting at the same moment must not seed the history a second time. */
const DEMO_HISTORY_LOCK = 0x6c6b_6468; // "lkdh"

export interface DemoSnapshot {
  at: Date;
  total: number;
  byState: Partial<Record<LinkState, number>>;
  byErrorCode: Partial<Record<LinkErrorCode, number>>;
}

export interface LinkSnapshot {
  id: number;
  at: Date;
  total: number;
  byState: Record<string, number>;
  byErrorCode: Record<string, number>;
  source: LinkSnapshotSource;
}

/**
 * Counts of the read model by state and by error_code, kept for the Health trends. `total` is every row, deleted and
 * not-yet-read links included; links whose details were never read have no state and are left out of `byState`.
 */
export async function writeLinkSnapshot(
  db: Db,
  at = new Date(),
  source: LinkSnapshotSource = "sync",
): Promise<LinkSnapshot> {
  const rows = await db
    .select({ state: links.state, errorCode: links.errorCode, n: count() })
    .from(links)
    .groupBy(links.state, links.errorCode);
  const byState: Record<string, number> = {};
  const byErrorCode: Record<string, number> = {};
  let total = 0;
  for (const row of rows) {
    total += row.n;
    if (row.state !== null) byState[row.state] = (byState[row.state] ?? 0) + row.n;
    if (row.errorCode !== null) byErrorCode[row.errorCode] = (byErrorCode[row.errorCode] ?? 0) + row.n;
  }
  const [snapshot] = await db.insert(linkSnapshots).values({ at, total, byState, byErrorCode, source }).returning();
  return snapshot!;
}

/**
 * What the demo's upstream holds, as configuration gives it (lib/env.ts DEMO_HISTORY_*): how many links it deals when the
 * read model knows none yet, and the share of them it deals each error code. Linkdesk itself knows nothing of how
 * the bundled sandbox deals its data.
 */
export interface DemoUpstream {
  links: number;
  errorCodeShare: number;
}

/** A repeatable wobble in [-1, 1] for day `day` of series `key`: the same history on every machine. */
function wobble(key: string, day: number): number {
  let hash = 2166136261 ^ day;
  for (const char of key) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 15), 2246822507) >>> 0;
  return (hash / 0xffffffff) * 2 - 1;
}

/** A bump that rises and falls over [start, end] days, 1 outside it and `peak` at its middle. */
function episode(day: number, start: number, end: number, peak: number): number {
  if (day < start || day > end) return 1;
  const middle = (start + end) / 2;
  const half = Math.max(0.5, (end - start) / 2);
  return 1 + (peak - 1) * (1 - Math.abs(day - middle) / half);
}

/**
 * Ninety days of daily counts ending the day before `now`, about `total` links at the end: the links grow by a fifth
 * over the window, each error code on `errorCodeShare` of them (as the demo's upstream deals them), and a few episodes
 * give the charts a story staff recognise: a provider outage, an institution outage, a wave of expiring
 * authorisations, an institution asking its users to accept new terms.
 */
export function demoHistory({
  now,
  total,
  errorCodeShare: perCodeShare,
  days = DEMO_HISTORY_DAYS,
}: {
  now: Date;
  total: number;
  errorCodeShare: number;
  days?: number;
}): DemoSnapshot[] {
  const story: Partial<Record<LinkErrorCode, (day: number) => number>> = {
    provider_error: (d) => episode(d, 18, 22, 6),
    institution_error: (d) => episode(d, 50, 57, 7),
    auth_expired: (d) => 0.55 + 0.45 * (d / (days - 1)) * episode(d, 62, 70, 1.8),
    user_setup_required: (d) => episode(d, 74, 80, 3),
  };
  return Array.from({ length: days }, (_, day) => {
    const at = new Date(now.getTime() - (days - day) * DAY_MS);
    const size = Math.round(total * (0.8 + 0.2 * (day / (days - 1))) * (1 + 0.005 * wobble("total", day)));
    const byErrorCode: Partial<Record<LinkErrorCode, number>> = {};
    for (const code of LINK_ERROR_CODES) {
      const factor = (story[code]?.(day) ?? 1) * (1 + 0.12 * wobble(code, day));
      byErrorCode[code] = Math.max(0, Math.round(size * perCodeShare * factor));
    }
    const error = Object.values(byErrorCode).reduce((sum, n) => sum + n, 0);
    const connecting = Math.round(size * perCodeShare * (1 + 0.3 * wobble("connecting", day)));
    const awaiting = Math.round(size * perCodeShare * (1 + 0.3 * wobble("awaiting", day)));
    const byState: Partial<Record<LinkState, number>> = {
      connected: Math.max(0, size - error - connecting - awaiting),
      error,
      connecting,
      awaiting_token_exchange: awaiting,
    };
    return { at, total: size, byState, byErrorCode };
  });
}

/** Links whose details Linkdesk has read (they have a state), and all links it knows. */
async function readModelSize(db: Db): Promise<{ read: number; all: number }> {
  const [row] = await db.select({ all: count(), read: count(links.state) }).from(links);
  return { read: row?.read ?? 0, all: row?.all ?? 0 };
}

/**
 * Runs at a dashboard's start; `demo` is the demo's upstream in demo mode, false otherwise. Never throws for a missing
 * table or a busy database: the trends are not worth refusing to start over; the caller logs what it returns.
 */
export async function takeStartSnapshots(
  db: Db,
  { demo, now = new Date() }: { demo: DemoUpstream | false; now?: Date },
): Promise<{ demoSeeded: number; startSnapshot: boolean }> {
  let demoSeeded = 0;
  if (demo) demoSeeded = await seedDemoHistoryOnce(db, now, demo);
  const size = await readModelSize(db);
  const startSnapshot = size.read > 0;
  if (startSnapshot) await writeLinkSnapshot(db, now, "start");
  return { demoSeeded, startSnapshot };
}

/** Seeds the demo history when the database has no snapshot at all; returns how many it wrote (0 when it had some). */
export async function seedDemoHistoryOnce(db: Db, now: Date, demo: DemoUpstream): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_HISTORY_LOCK})`);
    const [existing] = await tx.select({ n: count() }).from(linkSnapshots);
    if ((existing?.n ?? 0) > 0) return 0;
    const [known] = await tx.select({ n: count() }).from(links).where(isNotNull(links.linkId));
    // A first start knows no link yet: the demo's upstream holds demo.links.
    const total = (known?.n ?? 0) > 0 ? known!.n : demo.links;
    const rows = demoHistory({ now, total, errorCodeShare: demo.errorCodeShare }).map((s) => ({
      ...s,
      source: "demo" as const,
    }));
    await tx.insert(linkSnapshots).values(rows);
    return rows.length;
  });
}
