import "server-only";
import { getBudget } from "../budget";
import { type Db, getDb } from "../db/client";
import { getEnv } from "../env";
import { logger } from "../logger";
import { UpstreamApi, upstream } from "../upstream";
import { TAKEOVER_POLL_MS } from "../leases/timing";
import { isShuttingDown, onShutdown } from "../shutdown";
import { type SyncDeps, type SyncRunResult, newSyncOwner, readLearnedLinks, runSync } from "./engine";
import { releaseSyncLease } from "./lease";
import { getSyncStatus } from "./status";
import { newestVerifiedWebhookAt, webhooksFlowing } from "../webhooks/freshness";
import type { SyncStatus } from "./types";

// The background sync in the server process: a timer looks every TAKEOVER_POLL_MS (2 s) whether a run is due (the
// interval has passed since the last one finished, someone asked for "refresh all", or a run stopped half-way, its
// holder dead once its heartbeat is LEASE_TTL_MS old, or released by an instance that shut down) and starts it.
// Looking is one read of the sync_state row by its primary key, so every instance can afford it that often; a killed
// holder's run moves within about 17 s. Never two runs in one process; across instances the lease decides (runSync
// declines when another holder is alive). On shutdown the run stops after its reads in flight and gives the lease up
// at once, so another instance resumes it at its next look. Between runs, the same look reads the links learned since
// the last run (registered ids, links a webhook named) a few at a time (readLearnedLinks).

export const SCHEDULER_TICK_MS = TAKEOVER_POLL_MS;
/** On shutdown, how long the run may take to finish its reads in flight before its lease is given up regardless. */
export const SHUTDOWN_RUN_WAIT_MS = 3_000;
/**
 * A run that stopped (the database or the budget's store away; an upstream that fails slows a run down instead, see
 * backoff.ts) is retried after this long, not at every tick.
 */
export const RETRY_STOPPED_AFTER_MS = 2 * 60_000;
/** The first look after the server starts: soon, but after the start-up work. */
const FIRST_TICK_MS = 5_000;

export interface SyncDueInput {
  status: Pick<SyncStatus, "phase" | "running" | "runFinishedAt" | "requestedAt" | "failing">;
  now: Date;
  /** SYNC_INTERVAL_MINUTES; 0 = only on demand. */
  intervalMinutes: number;
  /** When a run of this process last stopped early. */
  lastStoppedAt?: Date;
  /**
   * With webhooks flowing the interval is this many times longer (SYNC_WEBHOOK_SLOWDOWN): runs become reconciliation,
   * finding what a missed webhook did not say. Asked only once the plain interval has passed.
   */
  slowdown?: { factor: number; webhooksFlowing: () => Promise<boolean> };
}

/** Whether a run should start now, and why (for the log). */
export async function syncDue({
  status,
  now,
  intervalMinutes,
  lastStoppedAt,
  slowdown,
}: SyncDueInput): Promise<{ due: boolean; reason: string }> {
  if (status.running) return { due: false, reason: "a run is in progress" };
  // After a run stopped early, wait a little before trying again, unless someone asked for a run since.
  const backingOff = lastStoppedAt !== undefined && now.getTime() - lastStoppedAt.getTime() < RETRY_STOPPED_AFTER_MS;
  const askedSinceStop =
    status.requestedAt !== null && (lastStoppedAt === undefined || status.requestedAt > lastStoppedAt);
  if (backingOff && !askedSinceStop)
    return { due: false, reason: "the last run stopped early; waiting before trying again" };
  if (status.phase !== "idle") return { due: true, reason: "resuming an unfinished run" };
  if (status.requestedAt !== null) return { due: true, reason: "refresh all was asked for" };
  if (intervalMinutes <= 0) return { due: false, reason: "SYNC_INTERVAL_MINUTES is 0: only on demand" };
  if (status.runFinishedAt === null) return { due: true, reason: "the links were never synced" };
  const elapsed = now.getTime() - status.runFinishedAt.getTime();
  // The last run ended with the upstream still failing (every link it had left failed its tries): the sync keeps
  // trying at the wait it had reached, instead of waiting the whole interval.
  if (status.failing && elapsed >= status.failing.retryMs)
    return { due: true, reason: "the last run ended while the upstream failed; trying again" };
  if (elapsed < intervalMinutes * 60_000) return { due: false, reason: "synced recently" };
  if (
    slowdown &&
    slowdown.factor > 1 &&
    elapsed < intervalMinutes * slowdown.factor * 60_000 &&
    (await slowdown.webhooksFlowing())
  ) {
    return { due: false, reason: `webhooks are flowing: the sync runs ${slowdown.factor} times less often` };
  }
  return { due: true, reason: "the interval has passed" };
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
  /** The run in progress in this process: its name in sync_state, and how to stop it. */
  current?: { owner: string; db: Db; stop: AbortController };
  stopped?: boolean;
  /** Links learned between runs that a look could not read: left to the next run. */
  learnedUnread?: Set<string>;
}

// On globalThis: Next.js may evaluate this module more than once in one process, and there must be one timer.
const shared: SchedulerState = ((globalThis as { [key: symbol]: SchedulerState })[
  Symbol.for("linkdesk.sync-scheduler")
] ??= {});

/**
 * Starts the background sync in this server process (once; later calls do nothing) and makes it part of the server's
 * shutdown. The timer is unref'd: it never keeps a process alive on its own.
 */
export function startSyncScheduler(): void {
  if (shared.timer || shared.stopped) return;
  shared.timer = setInterval(() => void tick(), SCHEDULER_TICK_MS);
  shared.timer.unref();
  setTimeout(() => void tick(), FIRST_TICK_MS).unref();
  onShutdown("sync scheduler", stopSyncScheduler, "stop-intake");
  onShutdown("sync run", finishSyncRunForShutdown, "drain");
}

/** Looks at once whether a run is due (after "refresh all"), if the scheduler runs in this process. */
export function kickSyncScheduler(): void {
  if (shared.timer) void tick();
}

/** No run starts any more; the run in progress stops after its reads in flight and releases its lease. */
export function stopSyncScheduler(): void {
  shared.stopped = true;
  clearInterval(shared.timer);
  shared.timer = undefined;
  shared.current?.stop.abort(new Error("The server is shutting down."));
}

/**
 * Waits for the stopped run to give its lease up. A read the upstream is slow to answer is not worth waiting the whole
 * shutdown for: reads are idempotent, so after SHUTDOWN_RUN_WAIT_MS the lease is released on the run's behalf and the
 * next holder reads that link again.
 */
async function finishSyncRunForShutdown(signal: AbortSignal): Promise<void> {
  const { running, current } = shared;
  if (!running) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<"gave up">((resolve) => {
    timer = setTimeout(() => resolve("gave up"), SHUTDOWN_RUN_WAIT_MS);
    signal.addEventListener("abort", () => resolve("gave up"), { once: true });
  });
  try {
    const outcome = await Promise.race([running, gaveUp]);
    if (outcome === "gave up" && current) {
      const released = await releaseSyncLease(current.db, current.owner);
      logger()
        .child({ component: "sync" })
        .warn({ released }, "the sync's reads in flight did not finish in time; its lease was released for it");
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Between runs, links learned since the last one (ids the back end registered, links a webhook named) are read a few
 * at a time, at the sync's pace and under its lease, so they show with their state within seconds. One that cannot be
 * read is left to the next run.
 */
async function readLearnedLinksNow(log: ReturnType<typeof logger>): Promise<void> {
  const deps = await defaultSyncDeps();
  const current = { owner: newSyncOwner(), db: deps.db, stop: new AbortController() };
  shared.current = current;
  const skip = (shared.learnedUnread ??= new Set());
  try {
    const result = await readLearnedLinks({ ...deps, owner: current.owner, signal: current.stop.signal }, { skip });
    if (result.outcome === "read") for (const linkId of result.failed) skip.add(linkId);
  } catch (error) {
    if (!current.stop.signal.aborted) log.warn({ err: error }, "links learned since the last run could not be read");
  }
}

function tick(): Promise<SyncRunResult | null> {
  shared.running ??= (async () => {
    if (shared.stopped || isShuttingDown()) return null;
    const log = logger().child({ component: "sync" });
    try {
      // The cheap look first (one row by its key); the run's dependencies only when a run is due.
      const status = await getSyncStatus((await getDb()).db);
      const now = new Date();
      const env = getEnv();
      const { due, reason } = await syncDue({
        status,
        now,
        intervalMinutes: env.SYNC_INTERVAL_MINUTES,
        lastStoppedAt: shared.lastStoppedAt,
        slowdown: {
          factor: env.SYNC_WEBHOOK_SLOWDOWN,
          webhooksFlowing: async () => webhooksFlowing(await newestVerifiedWebhookAt((await getDb()).db), now),
        },
      });
      if (shared.stopped) return null;
      if (!due) {
        if (!status.running) await readLearnedLinksNow(log);
        return null;
      }
      log.debug({ reason }, "a links sync is due");
      const deps = await defaultSyncDeps();
      const current = { owner: newSyncOwner(), db: deps.db, stop: new AbortController() };
      shared.current = current;
      const result = await runSync({ ...deps, owner: current.owner, signal: current.stop.signal });
      // Another instance took the lease first (both saw the run due at once): say who holds it, once per decline.
      if (result.outcome === "declined")
        log.info(
          { reason, holder: result.holder },
          `sync lease declined (held by ${result.holder ?? "another instance"})`,
        );
      if (result.outcome === "stopped") shared.lastStoppedAt = new Date();
      if (result.outcome === "completed") {
        shared.lastStoppedAt = undefined;
        // The run tried every link: those a look between runs could not read get another chance.
        shared.learnedUnread?.clear();
      }
      return result;
    } catch (error) {
      log.error({ err: error }, "the sync scheduler failed");
      shared.lastStoppedAt = new Date();
      return null;
    } finally {
      shared.current = undefined;
      shared.running = undefined;
    }
  })();
  return shared.running;
}
