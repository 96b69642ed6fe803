import "server-only";
import { getBudget } from "../budget";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import { logger } from "../logger";
import { UpstreamApi, upstream } from "../upstream";
import { type SyncDeps, type SyncRunResult, runSync } from "./engine";
import { getSyncStatus } from "./status";
import type { SyncStatus } from "./types";

// The background sync in the server process: a timer looks every 30 s whether a run is due (the interval has passed
// since the last one finished, someone asked for "refresh all", or a run stopped half-way) and starts it. Never two
// runs in one process; across instances the lease decides (runSync declines when another holder is alive).

export const SCHEDULER_TICK_MS = 30_000;
/** A run that stopped (upstream down, database away) is retried after this long, not at every tick. */
export const RETRY_STOPPED_AFTER_MS = 2 * 60_000;
/** The first look after the server starts: soon, but after the start-up work. */
const FIRST_TICK_MS = 5_000;

export interface SyncDueInput {
  status: Pick<SyncStatus, "phase" | "running" | "runFinishedAt" | "requestedAt">;
  now: Date;
  /** SYNC_INTERVAL_MINUTES; 0 = only on demand. */
  intervalMinutes: number;
  /** When a run of this process last stopped early. */
  lastStoppedAt?: Date;
}

/** Whether a run should start now, and why (for the log). */
export function syncDue({ status, now, intervalMinutes, lastStoppedAt }: SyncDueInput): { due: boolean; reason: string } {
  if (status.running) return { due: false, reason: "a run is in progress" };
  // After a run stopped early, wait a little before trying again, unless someone asked for a run since.
  const backingOff = lastStoppedAt !== undefined && now.getTime() - lastStoppedAt.getTime() < RETRY_STOPPED_AFTER_MS;
  const askedSinceStop = status.requestedAt !== null && (lastStoppedAt === undefined || status.requestedAt > lastStoppedAt);
  if (backingOff && !askedSinceStop) return { due: false, reason: "the last run stopped early; waiting before trying again" };
  if (status.phase !== "idle") return { due: true, reason: "resuming an unfinished run" };
  if (status.requestedAt !== null) return { due: true, reason: "refresh all was asked for" };
  if (intervalMinutes <= 0) return { due: false, reason: "SYNC_INTERVAL_MINUTES is 0: only on demand" };
  if (status.runFinishedAt === null) return { due: true, reason: "the links were never synced" };
  const elapsed = now.getTime() - status.runFinishedAt.getTime();
  return elapsed >= intervalMinutes * 60_000 ? { due: true, reason: "the interval has passed" } : { due: false, reason: "synced recently" };
}

/** The sync as the server runs it: the process's database and budget, the configured share, the server log. */
export async function defaultSyncDeps(): Promise<SyncDeps> {
  const env = getEnv();
  return {
    db: (await getDb()).db,
    // The shared client (credentials, token, budget gate) without the read-model observer: the sync records what it
    // reads itself, once.
    api: new UpstreamApi(upstream().client),
    budget: await getBudget(),
    share: env.SYNC_SHARE,
    log: logger().child({ component: "sync" }),
  };
}

interface SchedulerState {
  timer?: ReturnType<typeof setInterval>;
  running?: Promise<SyncRunResult | null>;
  lastStoppedAt?: Date;
}

// On globalThis: Next.js may evaluate this module more than once in one process, and there must be one timer.
const shared: SchedulerState = ((globalThis as { [key: symbol]: SchedulerState })[Symbol.for("linkdesk.sync-scheduler")] ??= {});

/**
 * Starts the background sync in this server process (once; later calls do nothing). The timer is unref'd: it never
 * keeps a process alive on its own.
 */
export function startSyncScheduler(): void {
  if (shared.timer) return;
  shared.timer = setInterval(() => void tick(), SCHEDULER_TICK_MS);
  shared.timer.unref();
  setTimeout(() => void tick(), FIRST_TICK_MS).unref();
}

/** Looks at once whether a run is due (after "refresh all"), if the scheduler runs in this process. */
export function kickSyncScheduler(): void {
  if (shared.timer) void tick();
}

function tick(): Promise<SyncRunResult | null> {
  shared.running ??= (async () => {
    const log = logger().child({ component: "sync" });
    try {
      const deps = await defaultSyncDeps();
      const status = await getSyncStatus(deps.db);
      const { due, reason } = syncDue({ status, now: new Date(), intervalMinutes: getEnv().SYNC_INTERVAL_MINUTES, lastStoppedAt: shared.lastStoppedAt });
      if (!due) return null;
      log.info({ reason }, "starting a links sync");
      const result = await runSync(deps);
      if (result.outcome === "stopped") shared.lastStoppedAt = new Date();
      if (result.outcome === "completed") shared.lastStoppedAt = undefined;
      return result;
    } catch (error) {
      log.error({ err: error }, "the sync scheduler failed");
      shared.lastStoppedAt = new Date();
      return null;
    } finally {
      shared.running = undefined;
    }
  })();
  return shared.running;
}
