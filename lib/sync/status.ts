import "server-only";
import { keysFor } from "../budget/rules";
import { cachedRead } from "../db/cached-read";
import type { Db } from "../db/client";
import { getEnv } from "../env";
import { failingOf, readSyncState } from "./lease";
import { type SyncPace, syncPaceOf } from "./pacer";
import { SYNC_PHASES, type SyncPhase, type SyncStatus } from "./types";

/** The pace the configured sync runs at (SYNC_SHARE of Linkdesk's per-app GET /links/{id} budget), for ETAs. */
export function plannedSyncPace(): SyncPace {
  const env = getEnv();
  const shares = {
    app: env.BUDGET_APP_SHARE,
    link: env.BUDGET_LINK_SHARE,
    user: env.BUDGET_USER_SHARE,
    client: env.BUDGET_CLIENT_SHARE,
  };
  const ids = { clientId: env.UPSTREAM_CLIENT_ID, appId: env.UPSTREAM_CLIENT_ID };
  return syncPaceOf({ keys: (endpoint, more) => keysFor(endpoint, { ...ids, ...more }, shares) }, env.SYNC_SHARE);
}

/** Seconds to read `remaining` links at `pace` (the sync hands out its reads evenly over the window). */
export function etaSecondsAt(remaining: number, pace: SyncPace): number {
  return Math.ceil((Math.max(0, remaining) * pace.windowMs) / pace.limit / 1000);
}

/**
 * The sync as a page shows it. `pace` defaults to the configured one; the ETA assumes the sync gets its whole share
 * (people's clicks beyond their part of the budget slow it down).
 */
export async function getSyncStatus(db: Db, { pace }: { pace?: SyncPace } = {}): Promise<SyncStatus> {
  const row = await readSyncState(db);
  const phase: SyncPhase = (SYNC_PHASES as readonly string[]).includes(row.phase) ? (row.phase as SyncPhase) : "idle";
  return {
    phase,
    done: row.done,
    total: row.total,
    etaSeconds: phase === "details" ? etaSecondsAt(row.total - row.done, pace ?? plannedSyncPace()) : null,
    runStartedAt: row.runStartedAt,
    runFinishedAt: row.runFinishedAt,
    lastError: row.lastError,
    running: row.heartbeatFresh,
    requestedAt: row.requestedAt,
    failing: failingOf(row),
  };
}

/**
 * The status kept 5 s and shared by the page views in that time, as the pages' other reads are: a page that shows it
 * beside them renders it at once (peek) instead of streaming it after them.
 */
export const cachedSyncStatus = cachedRead((db) => getSyncStatus(db), 5_000);
