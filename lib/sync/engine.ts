import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { type Budget, isBudgetUnavailable } from "../budget/budget";
import type { Db } from "../db/client";
import { HEARTBEAT_MS } from "../leases/timing";
import { purgeDeletedLinks } from "../links/discovery";
import { recordLinks } from "../links/read-model";
import { type LinkSnapshot, writeLinkSnapshot } from "../links/trend-snapshots";
import { type UpstreamError, isUpstreamError } from "../upstream/errors";
import type { UpstreamApi } from "../upstream/index";
import {
  acquireSyncLease,
  finishSyncRun,
  readSyncState,
  releaseSyncLease,
  renewSyncLease,
  type SyncProgressColumns,
  type SyncStateRow,
} from "./lease";
import { type SyncPace, SyncPacer, syncPaceOf } from "./pacer";
import { markLinkDeleted, newlyLearnedLinkIds, staleLinkIds, upsertListedLinks } from "./queries";

// The sync of the links read model. GET /links gives only ids, so a run has two phases:
//   listing: walk GET /links page by page, recording each id with created_at and listed_at; the cursor is saved
//            after every page, so a restarted run carries on from the next page;
//   details: read GET /links/{id} for every link not read since the run started (error-state links first, then
//            links never read, then newest first), in queued mode, a few in flight, paced at the sync's share.
//            Links learned while it reads (a registration, a webhook) join the front of its queue.
// GET /links lists active links only (upstream-facts §2): the others reach the read model by other ways
// (lib/links/discovery.ts), and the sync reads them all the same. At the end, links deleted more than 90 days ago leave
// the read model, as they leave the upstream.
// Progress, the cursor and the run's start live in the sync_state row, which is also the lease (lease.ts): a run
// resumes where it stopped, on whichever instance takes the lease next.

export interface SyncLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SyncProgress {
  phase: "listing" | "details";
  /** Links listed so far (listing) or read so far (details). */
  done: number;
  /** Links this run reads (details); 0 while listing. */
  total: number;
}

export interface SyncDeps {
  db: Db;
  /** The upstream, through the rate budget. The sync records what it reads itself: an observer on it is not needed. */
  api: Pick<UpstreamApi, "listLinks" | "getLink">;
  /** The budget the api's calls go through: the sync's share applies to its per-app GET /links/{id} limit. */
  budget: Pick<Budget, "keys">;
  /** SYNC_SHARE: the fraction of that limit the sync may use; the rest is left to people. */
  share: number;
  /** Overrides the pace derived from budget and share (tests, benchmarks). */
  pace?: SyncPace;
  /** Identifies this run's holder in sync_state; unique per run by default. */
  owner?: string;
  /** Stops the run after the calls in flight; it resumes at the next run. */
  signal?: AbortSignal;
  /** Detail reads in flight at once: enough to keep the pace when the upstream answers slowly. */
  concurrency?: number;
  /** GET /links page size (the upstream allows 500 to 5000). */
  pageSize?: number;
  /** A link read this recently before the run started is not read again. */
  freshForMs?: number;
  /** Failed reads in a row (upstream down, credentials refused) after which the run stops, to resume later. */
  maxConsecutiveFailures?: number;
  /** How often the details phase looks for links learned meanwhile (never read yet), to read them next. */
  newLinksLookMs?: number;
  /**
   * How often progress and the heartbeat are written: on a timer of its own, so the heartbeat goes on while the run
   * waits for budget slots or a slow upstream. At most HEARTBEAT_MS.
   */
  progressIntervalMs?: number;
  onProgress?: (progress: SyncProgress) => void;
  log?: SyncLog;
}

type SyncOptions = Required<
  Pick<
    SyncDeps,
    "concurrency" | "pageSize" | "freshForMs" | "maxConsecutiveFailures" | "newLinksLookMs" | "progressIntervalMs"
  >
>;

export const SYNC_DEFAULTS: Readonly<SyncOptions> = {
  concurrency: 8,
  pageSize: 5000,
  freshForMs: 5 * 60_000,
  maxConsecutiveFailures: 20,
  newLinksLookMs: 5_000,
  progressIntervalMs: Math.min(1000, HEARTBEAT_MS),
};

export interface SyncCounts {
  /** Links listed by GET /links in this run (after a resume: since the run started). */
  listed: number;
  /** Detail reads answered (410 deleted included). */
  fetched: number;
  /** Detail reads that failed (kept as last read, tried again next run). */
  failed: number;
  /** Links the upstream does not know (404): kept as last read. */
  notFound: number;
  /** Links deleted more than 90 days ago, removed from the read model at the end of the run. */
  purged: number;
}

export type SyncRunResult =
  | {
      outcome: "declined";
      reason: string;
      /** The instance holding the lease, as it names itself. */ holder: string | null;
    }
  | ({ outcome: "completed"; resumed: boolean; snapshot: LinkSnapshot } & SyncCounts)
  | ({ outcome: "stopped"; resumed: boolean; reason: string; error?: unknown } & SyncCounts);

/** A run ends early for a reason of its own (as opposed to the caller's abort signal). */
export class SyncStopped extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SyncStopped";
  }
}

/** A holder's name in sync_state: which host and process runs the sync, unique per run. */
export function newSyncOwner(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

const silent: SyncLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Runs one sync, or resumes the unfinished one; declines at once when another holder's heartbeat is fresh. */
export async function runSync(deps: SyncDeps): Promise<SyncRunResult> {
  const { db } = deps;
  const log = deps.log ?? silent;
  const owner = deps.owner ?? newSyncOwner();
  const options = optionsOf(deps);
  if (!Number.isInteger(options.pageSize) || options.pageSize < 500 || options.pageSize > 5000) {
    throw new RangeError(`GET /links pages hold 500 to 5000 links, got ${options.pageSize}`);
  }
  const pace = deps.pace ?? syncPaceOf(deps.budget, deps.share);

  const taken = await acquireSyncLease(db, owner);
  if (!taken) {
    const { owner: holder } = await readSyncState(db);
    return { outcome: "declined", reason: "Another instance is syncing the links (its heartbeat is fresh).", holder };
  }

  const internal = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, internal.signal]) : internal.signal;
  const progress = new RunProgress(db, owner, options.progressIntervalMs, deps.onProgress, () =>
    internal.abort(new SyncStopped("Another instance took the sync over (this one's heartbeat was late).")),
  );
  const counts: SyncCounts = { listed: 0, fetched: 0, failed: 0, notFound: 0, purged: 0 };
  const resumed = taken.phase !== "idle" && taken.runStartedAt !== null;
  log.info(
    {
      owner,
      resumed,
      ...(resumed
        ? { phase: taken.phase, done: taken.done, total: taken.total, runStartedAt: taken.runStartedAt }
        : {}),
    },
    "sync lease taken",
  );
  const run: RunContext = {
    deps,
    db,
    log,
    signal,
    progress,
    counts,
    pace,
    options,
    runStartedAt: taken.runStartedAt ?? new Date(),
  };

  try {
    let state: SyncStateRow = taken;
    if (!resumed) {
      run.runStartedAt = new Date();
      state = { ...taken, phase: "listing", listCursor: null, done: 0, total: 0 };
      progress.reset("listing", 0, 0, null);
      await progress.checkpoint({ phase: "listing", listCursor: null, runStartedAt: run.runStartedAt });
    } else {
      progress.reset(taken.phase === "listing" ? "listing" : "details", taken.done, taken.total, taken.lastError);
    }
    progress.start();

    if (state.phase === "listing") await listLinks(run, state.listCursor, state.done);
    await readDetails(run, state.phase === "details" ? state.total : 0);

    counts.purged = await purgeDeletedLinks(db);
    const snapshot = await writeLinkSnapshot(db);
    const problems = counts.failed + counts.notFound;
    const lastError =
      problems > 0
        ? `${problems} of ${progress.total} links could not be read (last: ${progress.lastError ?? "unknown"})`
        : null;
    await progress.stop();
    await finishSyncRun(db, owner, {
      runFinishedAt: new Date(),
      done: progress.done,
      total: progress.total,
      lastError,
    });
    log.info({ ...counts, total: progress.total, snapshotTotal: snapshot.total }, "links sync completed");
    return { outcome: "completed", resumed, snapshot, ...counts };
  } catch (error) {
    await progress.stop();
    const callerAborted = deps.signal?.aborted === true && error === deps.signal.reason;
    const reason = callerAborted ? "Stopped on request; the run resumes where it stopped." : stopReason(error);
    const known = callerAborted || error instanceof SyncStopped || isUpstreamError(error) || isBudgetUnavailable(error);
    if (!known) log.error({ err: error }, "links sync failed");
    else log.warn({ reason, ...counts }, "links sync stopped");
    // Best effort: if the database is what failed, the heartbeat goes stale and the next holder resumes anyway.
    await releaseSyncLease(db, owner, {
      done: progress.done,
      total: progress.total,
      lastError: callerAborted ? progress.lastError : reason,
    }).catch((releaseError: unknown) => log.warn({ err: releaseError }, "could not release the sync lease"));
    return { outcome: "stopped", resumed, reason, ...(known ? {} : { error }), ...counts };
  }
}

interface RunContext {
  deps: SyncDeps;
  db: Db;
  log: SyncLog;
  signal: AbortSignal;
  progress: RunProgress;
  counts: SyncCounts;
  pace: SyncPace;
  options: SyncOptions;
  runStartedAt: Date;
}

/** Walks GET /links from `cursor` (null: the first page), recording each page before saving the cursor past it. */
async function listLinks(run: RunContext, cursor: string | null, listedBefore: number): Promise<void> {
  const { db, deps, progress, signal } = run;
  let listed = listedBefore;
  let resumedCursor = cursor !== null;
  for (;;) {
    signal.throwIfAborted();
    let page;
    try {
      page = await deps.api.listLinks({ cursor: cursor ?? undefined, limit: run.options.pageSize }, { mode: "queued" });
    } catch (error) {
      // A saved cursor the upstream no longer accepts (expired, or from before an upgrade): list again from the top.
      if (resumedCursor && isUpstreamError(error) && (error.status === 400 || error.status === 422)) {
        run.log.warn({ err: error }, "the saved GET /links cursor was refused; listing again from the first page");
        cursor = null;
        listed = 0;
        resumedCursor = false;
        continue;
      }
      if (isUpstreamError(error))
        throw new SyncStopped(
          `Listing links failed (${failureText(error)}); the run resumes from the same page later.`,
        );
      throw error;
    }
    resumedCursor = false;
    await upsertListedLinks(db, page.links, new Date());
    listed += page.links.length;
    run.counts.listed += page.links.length;
    const next = page.next_cursor || null;
    // Checkpoint: the page is in the table before the cursor moves past it, so a restart never skips a page.
    if (next && next !== cursor) {
      progress.reset("listing", listed, 0, progress.lastError);
      await progress.checkpoint({ phase: "listing", listCursor: next });
      cursor = next;
      continue;
    }
    progress.reset("details", 0, 0, progress.lastError);
    await progress.checkpoint({ phase: "details", listCursor: null });
    return;
  }
}

/**
 * Reads the details of every stale link, a few in flight, each after a slot of the sync's own pacer. Progress is
 * counted one way, from the database: the run's total is the number of stale links when its details phase began
 * (`totalBefore`, kept across a resume), and done is that total less the links still stale. A resumed run thus
 * carries on from the same total, whatever the last heartbeat had written of done before its holder died.
 */
async function readDetails(run: RunContext, totalBefore: number): Promise<void> {
  const { db, deps, progress, counts, options } = run;
  const freshSince = new Date(run.runStartedAt.getTime() - options.freshForMs);
  // A link learned from now on is not in the queue below: the run looks for such links as it goes.
  const queuedSince = new Date();
  const queue = await staleLinkIds(db, { runStartedAt: run.runStartedAt, freshSince });
  const queued = new Set(queue);
  // More stale links than the saved total only when the holder died before saving it: then this is the start.
  const total = Math.max(totalBefore, queue.length);
  progress.reset("details", total - queue.length, total, progress.lastError);
  await progress.checkpoint({ phase: "details", listCursor: null });

  const pacer = new SyncPacer(run.pace);
  const retried = new Set<string>();
  const stop = new AbortController();
  const signal = AbortSignal.any([run.signal, stop.signal]);
  let failure: unknown;
  let next = 0;
  let failedInARow = 0;

  // Links learned while the run reads (never read yet) go to the front of what is left: one look at a time.
  let lastLookAt = performance.now();
  let looking: Promise<void> | null = null;
  const lookForNewLinks = (): Promise<void> =>
    (looking ??= (async () => {
      try {
        const learned = await newlyLearnedLinkIds(db, queuedSince, queued);
        if (learned.length === 0) return;
        for (const linkId of learned) queued.add(linkId);
        queue.splice(next, 0, ...learned);
        progress.grow(learned.length);
      } finally {
        lastLookAt = performance.now();
        looking = null;
      }
    })());

  const readOne = async (linkId: string): Promise<void> => {
    try {
      const link = await deps.api.getLink(linkId, { mode: "queued" });
      await recordLinks(db, [link], new Date());
      counts.fetched++;
      failedInARow = 0;
    } catch (error) {
      // Not an upstream answer (the budget's store, the database): nothing later would go better, so the run stops.
      if (!isUpstreamError(error)) throw error;
      if (error.status === 404) {
        counts.notFound++;
        failedInARow = 0;
        progress.lastError = `link ${linkId} is not found upstream (404); its row is kept as last read`;
      } else if (error.status === 410) {
        await markLinkDeleted(db, linkId, new Date());
        counts.fetched++;
        failedInARow = 0;
      } else if (error.status === 429 && !retried.has(linkId)) {
        // The budget has closed the keys until Retry-After; the link waits its turn again at the end of the queue.
        retried.add(linkId);
        queue.push(linkId);
        return;
      } else {
        counts.failed++;
        failedInARow++;
        progress.lastError = `link ${linkId} could not be read (${failureText(error)})`;
        if (failedInARow >= options.maxConsecutiveFailures) {
          throw new SyncStopped(
            `Stopped after ${failedInARow} failed reads in a row (last: ${failureText(error)}); the run resumes later.`,
          );
        }
      }
    }
    progress.advance();
  };

  const worker = async (): Promise<void> => {
    while (!signal.aborted) {
      // The slot first, then the link: reads start in exactly the queue's order.
      try {
        await pacer.acquire(signal);
      } catch {
        return;
      }
      try {
        if (performance.now() - lastLookAt >= options.newLinksLookMs) await lookForNewLinks();
        // At the end of the queue, one more look: the run ends when nothing was learned meanwhile.
        if (next >= queue.length) await lookForNewLinks();
        const linkId = queue[next++];
        if (linkId === undefined) {
          next = queue.length;
          return;
        }
        await readOne(linkId);
      } catch (error) {
        failure ??= error;
        stop.abort(error);
        return;
      }
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  if (failure !== undefined) throw failure;
  run.signal.throwIfAborted();
}

/** Links a look between runs reads at most; the next look, a scheduler tick later, reads the next ones. */
export const LEARNED_LINKS_PER_LOOK = 100;

export type LearnedLinksResult =
  { outcome: "nothing" | "declined" } | { outcome: "read"; fetched: number; failed: string[] };

/**
 * Between runs: reads the links learned since the last run started and never read (ids the product's back end
 * registered, links a webhook named), up to `limit`, so they show with their state within seconds instead of at the
 * next run. It holds the sync lease while it reads (one reader across instances; a run in progress reads such links
 * itself) and leaves the last run's progress and times as they were. `skip`: links it failed to read before, left to
 * the next run.
 */
export async function readLearnedLinks(
  deps: Pick<SyncDeps, "db" | "api" | "budget" | "share" | "pace" | "owner" | "signal" | "log" | "progressIntervalMs">,
  { skip = new Set<string>(), limit = LEARNED_LINKS_PER_LOOK }: { skip?: ReadonlySet<string>; limit?: number } = {},
): Promise<LearnedLinksResult> {
  const { db } = deps;
  const state = await readSyncState(db);
  // Never synced, or a run to resume: the run reads them.
  if (state.phase !== "idle" || state.runStartedAt === null || state.heartbeatFresh) return { outcome: "declined" };
  const ids = await newlyLearnedLinkIds(db, state.runStartedAt, skip, limit);
  if (ids.length === 0) return { outcome: "nothing" };
  const owner = deps.owner ?? newSyncOwner();
  const taken = await acquireSyncLease(db, owner);
  if (!taken) return { outcome: "declined" };
  const heartbeat = setInterval(
    () => void renewSyncLease(db, owner).catch(() => undefined),
    Math.min(deps.progressIntervalMs ?? SYNC_DEFAULTS.progressIntervalMs, HEARTBEAT_MS),
  );
  heartbeat.unref?.();
  const failed: string[] = [];
  let fetched = 0;
  try {
    // Taken between the look and now by a run that stopped half-way: it is the run's to resume.
    if (taken.phase !== "idle") return { outcome: "declined" };
    const pacer = new SyncPacer(deps.pace ?? syncPaceOf(deps.budget, deps.share));
    for (const linkId of ids) {
      await pacer.acquire(deps.signal);
      try {
        await recordLinks(db, [await deps.api.getLink(linkId, { mode: "queued", signal: deps.signal })], new Date());
        fetched++;
      } catch (error) {
        if (!isUpstreamError(error)) throw error;
        if (error.status === 410) {
          await markLinkDeleted(db, linkId, new Date());
          fetched++;
        } else failed.push(linkId);
      }
    }
    if (fetched > 0 || failed.length > 0)
      deps.log?.info({ fetched, failed: failed.length }, "links learned since the last run read");
    return { outcome: "read", fetched, failed };
  } finally {
    clearInterval(heartbeat);
    await releaseSyncLease(db, owner).catch((error: unknown) =>
      deps.log?.warn({ err: error }, "could not release the sync lease"),
    );
  }
}

/** Progress of the run, written with the heartbeat every interval and at each checkpoint. */
class RunProgress {
  phase: SyncProgress["phase"] = "listing";
  done = 0;
  total = 0;
  lastError: string | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly owner: string,
    private readonly intervalMs: number,
    private readonly onProgress: ((progress: SyncProgress) => void) | undefined,
    private readonly onLost: () => void,
  ) {}

  reset(phase: SyncProgress["phase"], done: number, total: number, lastError: string | null): void {
    this.phase = phase;
    this.done = done;
    this.total = total;
    this.lastError = lastError;
    this.onProgress?.({ phase, done, total });
  }

  advance(): void {
    this.done++;
    this.onProgress?.({ phase: this.phase, done: this.done, total: this.total });
  }

  /** Links joined the run's queue (learned while it read). */
  grow(by: number): void {
    this.total += by;
    this.onProgress?.({ phase: this.phase, done: this.done, total: this.total });
  }

  start(): void {
    this.timer ??= setInterval(() => {
      this.write().catch(() => undefined);
    }, this.intervalMs);
    this.timer.unref?.();
  }

  /** Ends the heartbeat; resolves once the last write is done, so nothing lands after the lease is given up. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.writing;
  }

  /** Writes progress now (with what must be saved at this point); throws once the lease is no longer ours. */
  async checkpoint(columns: SyncProgressColumns): Promise<void> {
    if (!(await this.write(columns)))
      throw new SyncStopped("Another instance took the sync over (this one's heartbeat was late).");
  }

  /** One write at a time, in order: a late heartbeat must not overwrite a newer checkpoint. */
  private write(columns: SyncProgressColumns = {}): Promise<boolean> {
    const mine = this.writing.then(async () => {
      const ours = await renewSyncLease(this.db, this.owner, {
        done: this.done,
        total: this.total,
        lastError: this.lastError,
        ...columns,
      });
      if (!ours) this.onLost();
      return ours;
    });
    this.writing = mine.catch(() => undefined);
    return mine;
  }
}

/** An upstream failure in Linkdesk's words: status and error code, never the upstream's own message. */
function failureText(error: UpstreamError): string {
  switch (error.kind) {
    case "timeout":
      return "no answer in time";
    case "network":
      return "upstream unreachable";
    case "invalid_response":
      return "unexpected response";
    case "http":
      return `HTTP ${error.status}${error.errorCode ? ` ${error.errorCode}` : ""}`;
  }
}

function stopReason(error: unknown): string {
  if (error instanceof SyncStopped) return error.message;
  if (isBudgetUnavailable(error)) return `${error.message} The sync resumes where it stopped.`;
  if (isUpstreamError(error)) return `Stopped: ${failureText(error)}; the run resumes later.`;
  return "Stopped by an internal error (see the server log); the run resumes later.";
}

function optionsOf(deps: SyncDeps): SyncOptions {
  const options = { ...SYNC_DEFAULTS };
  for (const key of Object.keys(SYNC_DEFAULTS) as (keyof SyncOptions)[]) options[key] = deps[key] ?? SYNC_DEFAULTS[key];
  return options;
}
