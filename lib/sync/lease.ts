import "server-only";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { syncState } from "../db/schema";
import { LEASE_TTL_MS } from "../leases/timing";
import type { SyncFailing } from "./types";

// One sync at a time across every dashboard instance: the sync_state row is the lease. An instance takes it with one
// conditional UPDATE (free, or its holder's heartbeat is stale), which PostgreSQL serialises on the row: of two
// instances racing, the second re-checks the WHERE clause against the first one's committed row and matches nothing.
// PGlite runs one statement at a time, so the same statement is atomic there too. Heartbeats use the database's clock,
// the only clock every instance shares.

export const SYNC_STATE_ID = "current";

/**
 * A holder whose heartbeat is older than this is taken to have crashed, and its run is taken over: the lease TTL
 * shared with the job engine (lib/leases/timing.ts). The holder renews well within it (every progress write); a holder
 * that stops on purpose releases the lease at once instead.
 */
export const LEASE_STALE_MS = LEASE_TTL_MS;

export type SyncStateRow = typeof syncState.$inferSelect;

/** The progress columns a holder may write with its heartbeat. */
export type SyncProgressColumns = Partial<
  Pick<
    SyncStateRow,
    | "phase"
    | "listCursor"
    | "total"
    | "done"
    | "lastError"
    | "runStartedAt"
    | "runFinishedAt"
    | "requestedAt"
    | "failingSince"
    | "failure"
    | "retryMs"
  >
>;

const isCurrent = eq(syncState.id, SYNC_STATE_ID);
const staleBefore = (staleMs: number) => sql`now() - (${Math.round(staleMs)}::int * interval '1 millisecond')`;

async function ensureSyncState(db: Db): Promise<void> {
  await db.insert(syncState).values({ id: SYNC_STATE_ID }).onConflictDoNothing();
}

const NEVER_SYNCED: SyncStateRow = {
  id: SYNC_STATE_ID,
  owner: null,
  heartbeatAt: null,
  runStartedAt: null,
  runFinishedAt: null,
  phase: "idle",
  listCursor: null,
  total: 0,
  done: 0,
  lastError: null,
  requestedAt: null,
  failingSince: null,
  failure: null,
  retryMs: null,
};

/** Since when and why the sync's reads fail, as the row stores it (null while they succeed). */
export function failingOf(row: Pick<SyncStateRow, "failingSince" | "failure" | "retryMs">): SyncFailing | null {
  return row.failingSince && row.failure
    ? { since: row.failingSince, failure: row.failure, retryMs: row.retryMs ?? 0 }
    : null;
}

/** The columns that store `failing` (all null once the sync reads again). */
export function failingColumns(
  failing: SyncFailing | null,
): Pick<SyncProgressColumns, "failingSince" | "failure" | "retryMs"> {
  return { failingSince: failing?.since ?? null, failure: failing?.failure ?? null, retryMs: failing?.retryMs ?? null };
}

/** The row as stored (a read only: pages call this on every view), or an idle one before the first run. */
export async function readSyncState(db: Db): Promise<SyncStateRow & { heartbeatFresh: boolean }> {
  const [row] = await db
    .select({
      state: syncState,
      heartbeatFresh: sql<boolean>`coalesce(${syncState.heartbeatAt} >= ${staleBefore(LEASE_STALE_MS)}, false)`,
    })
    .from(syncState)
    .where(isCurrent);
  if (!row) return { ...NEVER_SYNCED, heartbeatFresh: false };
  return { ...row.state, heartbeatFresh: Boolean(row.heartbeatFresh) && row.state.owner !== null };
}

/**
 * Takes the lease for `owner` when nobody holds it or its holder's heartbeat is older than `staleMs`. Returns the row
 * as taken (its phase and cursor say whether a run is to be resumed), or null when another holder is alive.
 */
export async function acquireSyncLease(
  db: Db,
  owner: string,
  { staleMs = LEASE_STALE_MS }: { staleMs?: number } = {},
): Promise<SyncStateRow | null> {
  await ensureSyncState(db);
  const [row] = await db
    .update(syncState)
    .set({ owner, heartbeatAt: sql`now()` })
    .where(
      and(
        isCurrent,
        or(isNull(syncState.owner), isNull(syncState.heartbeatAt), lt(syncState.heartbeatAt, staleBefore(staleMs))),
      ),
    )
    .returning();
  return row ?? null;
}

/** Renews the heartbeat (and writes progress) while `owner` still holds the lease; false once it does not. */
export async function renewSyncLease(db: Db, owner: string, progress: SyncProgressColumns = {}): Promise<boolean> {
  const rows = await db
    .update(syncState)
    .set({ ...progress, heartbeatAt: sql`now()` })
    .where(and(isCurrent, eq(syncState.owner, owner)))
    .returning({ id: syncState.id });
  return rows.length > 0;
}

/** Gives the lease up (with the run's last progress); false when `owner` no longer held it. */
export async function releaseSyncLease(db: Db, owner: string, progress: SyncProgressColumns = {}): Promise<boolean> {
  const rows = await db
    .update(syncState)
    .set({ ...progress, owner: null, heartbeatAt: null })
    .where(and(isCurrent, eq(syncState.owner, owner)))
    .returning({ id: syncState.id });
  return rows.length > 0;
}

/**
 * Finishes a run: idle, its end time, the lease given up. A "refresh all" asked for before the run started is
 * answered by it; one asked for while it ran stays pending (the run may have read those links before the request).
 */
export async function finishSyncRun(
  db: Db,
  owner: string,
  progress: SyncProgressColumns & { runFinishedAt: Date },
): Promise<boolean> {
  const rows = await db
    .update(syncState)
    .set({
      ...progress,
      phase: "idle",
      listCursor: null,
      owner: null,
      heartbeatAt: null,
      requestedAt: sql`case when ${syncState.requestedAt} <= ${syncState.runStartedAt} then null else ${syncState.requestedAt} end`,
    })
    .where(and(isCurrent, eq(syncState.owner, owner)))
    .returning({ id: syncState.id });
  return rows.length > 0;
}

/**
 * "Refresh all": asks for a run at the next scheduler tick of any instance. Not recorded while a run is in progress
 * (it is already reading every link); the answer says which.
 */
export async function requestSync(db: Db, at = new Date()): Promise<{ requested: boolean; running: boolean }> {
  await ensureSyncState(db);
  const rows = await db
    .update(syncState)
    .set({ requestedAt: at })
    .where(
      and(
        isCurrent,
        or(
          isNull(syncState.owner),
          isNull(syncState.heartbeatAt),
          lt(syncState.heartbeatAt, staleBefore(LEASE_STALE_MS)),
        ),
      ),
    )
    .returning({ id: syncState.id });
  return rows.length > 0 ? { requested: true, running: false } : { requested: false, running: true };
}
