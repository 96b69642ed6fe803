import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { type Budget, isBudgetUnavailable } from "../budget/budget";
import type { Db } from "../db/client";
import { HEARTBEAT_MS } from "../leases/timing";
import { purgeDeletedLinks } from "../links/discovery";
import { recordLinks } from "../links/read-model";
import { type LinkSnapshot, writeLinkSnapshot } from "../links/trend-snapshots";
import { evaluateAlerts } from "../alerts/evaluate";
import { type UpstreamError, isUpstreamError } from "../upstream/errors";
import type { UpstreamApi } from "../upstream/index";
import {
  acquireSyncLease,
  failingColumns,
  failingOf,
  finishSyncRun,
  readSyncState,
  releaseSyncLease,
  renewSyncLease,
  type SyncProgressColumns,
  type SyncStateRow,
} from "./lease";
import { FailureStreak, SYNC_BACKOFF, type SyncBackoff, type SyncFailing, failureWords } from "./backoff";
import { type SyncPace, SyncPacer, syncPaceOf } from "./pacer";
import { markLinkDeleted, newlyLearnedLinkIds, requestedLinkIds, staleLinkIds, upsertListedLinks } from "./queries";

// The sync of the links read model. GET /links gives only ids, so a run has two phases:
//   listing: walk GET /links page by page, recording each id with created_at and listed_at; the cursor is saved
//            after every page, so a restarted run carries on from the next page;
//   details: read GET /links/{id} for every link not read since the run started (error-state links first, then
//            links never read, then newest first), in queued mode, a few in flight, paced at the sync's share.
//            Links learned while it reads (a registration, a webhook), and links a webhook asked to read again (a late
//            delivery, an unknown kind of event: lib/webhooks/apply.ts), join the front of its queue.
// GET /links lists active links only (upstream-facts §2): the others reach the read model by other ways
// (lib/links/discovery.ts), and the sync reads them all the same. At the end, links deleted more than 90 days ago leave
// the read model, as they leave the upstream.
// Progress, the cursor and the run's start live in the sync_state row, which is also the lease (lease.ts): a run
// resumes where it stopped, on whichever instance takes the lease next.
// An upstream that fails does not stop a run: after a few failed reads in a row it slows to one try at a time, waiting
// longer after each failure up to a ceiling (backoff.ts), and is back at full pace with the first read that succeeds.
// Since when and why it fails is stored in sync_state beside the progress, for every instance's pages.

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
  /** How the run slows down while the upstream fails (upstream down, credentials refused) and how far. */
  backoff?: SyncBackoff;
  /**
   * Reads of one link a run makes before it leaves the link to the next run. A failed read puts the link back at the
   * end of the queue, so during an outage links not tried yet are tried first, and a link that fails on its own
   * cannot hold the run up for ever.
   */
  maxTriesPerLink?: number;
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
    "concurrency" | "pageSize" | "freshForMs" | "backoff" | "maxTriesPerLink" | "newLinksLookMs" | "progressIntervalMs"
  >
>;

export const SYNC_DEFAULTS: Readonly<SyncOptions> = {
  concurrency: 8,
  pageSize: 5000,
  freshForMs: 5 * 60_000,
  backoff: SYNC_BACKOFF,
  maxTriesPerLink: 3,
  newLinksLookMs: 5_000,
  progressIntervalMs: Math.min(1000, HEARTBEAT_MS),
};

export interface SyncCounts {
  /** Links listed by GET /links in this run (after a resume: since the run started). */
  listed: number;
  /** Detail reads answered (410 deleted included). */
  fetched: number;
  /** Links whose every read this run failed (kept as last read, tried again next run). */
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
  const stored = failingOf(taken);
  progress.failing = stored;
  const streak = new FailureStreak(
    options.backoff,
    (failing) => {
      const before = progress.failing;
      // One line when it starts failing and whenever the wait or the reason changes, not one per failed try.
      if (failing && (failing.retryMs !== before?.retryMs || failing.failure !== before?.failure))
        log.warn(
          { failingSince: failing.since, failure: failing.failure, retryMs: failing.retryMs },
          "links sync failing; one try at a time",
        );
      else if (!failing && before)
        log.info({ failingSince: before.since, lastFailure: before.failure }, "links sync recovered; full pace again");
      progress.noteFailing(failing);
    },
    stored,
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
    streak,
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
    // The alert catalogue, against the read model just brought up to date: once per run, on the instance syncing.
    const alerting = await evaluateAlerts(db).catch((error: unknown) => {
      log.warn({ err: error }, "alerts: evaluation failed; the next run tries again");
      return null;
    });
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
      ...failingColumns(progress.failing),
    });
    log.info(
      { ...counts, total: progress.total, snapshotTotal: snapshot.total, alerts: alerting },
      "links sync completed",
    );
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
      ...failingColumns(progress.failing),
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
  streak: FailureStreak;
  runStartedAt: Date;
}

/** Walks GET /links from `cursor` (null: the first page), recording each page before saving the cursor past it. */
async function listLinks(run: RunContext, cursor: string | null, listedBefore: number): Promise<void> {
  const { db, deps, progress, signal, streak } = run;
  let listed = listedBefore;
  let resumedCursor = cursor !== null;
  for (;;) {
    signal.throwIfAborted();
    let page;
    const attempt = await streak.take(signal);
    try {
      page = await deps.api.listLinks({ cursor: cursor ?? undefined, limit: run.options.pageSize }, { mode: "queued" });
      streak.succeeded();
    } catch (error) {
      // A saved cursor the upstream no longer accepts (expired, or from before an upgrade): list again from the top.
      if (resumedCursor && isUpstreamError(error) && (error.status === 400 || error.status === 422)) {
        run.log.warn({ err: error }, "the saved GET /links cursor was refused; listing again from the first page");
        cursor = null;
        listed = 0;
        resumedCursor = false;
        continue;
      }
      // The same page again, after the streak's wait once it is failing: the listing is the upstream's, not a link's.
      if (!isUpstreamError(error)) throw error;
      progress.lastError = `listing links failed (${failureText(error)})`;
      streak.failed(failureWords(error), new Date(), attempt.probe);
      continue;
    } finally {
      attempt.done();
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
  const { streak } = run;
  /** Failed reads of a link this run, and the links a 429 has already sent to the back of the queue once. */
  const tries = new Map<string, number>();
  const retried = new Set<string>();
  const stop = new AbortController();
  const signal = AbortSignal.any([run.signal, stop.signal]);
  let failure: unknown;
  let next = 0;

  /** Links in the queue not taken yet, and links whose read is under way: a webhook's request adds neither again. */
  const waiting = new Set(queue);
  const reading = new Set<string>();
  const toBack = (linkId: string) => {
    queue.push(linkId);
    waiting.add(linkId);
  };

  // Links learned while the run reads (never read yet), and links a webhook asked to read again since their last
  // read, go to the front of what is left: one look at a time.
  let lastLookAt = performance.now();
  let looking: Promise<void> | null = null;
  const lookForNewLinks = (): Promise<void> =>
    (looking ??= (async () => {
      try {
        const learned = await newlyLearnedLinkIds(db, queuedSince, queued);
        const asked = (await requestedLinkIds(db)).filter(
          (id) => !waiting.has(id) && !reading.has(id) && (tries.get(id) ?? 0) < options.maxTriesPerLink,
        );
        const front = [...new Set([...learned, ...asked])];
        if (front.length === 0) return;
        for (const linkId of front) {
          queued.add(linkId);
          waiting.add(linkId);
        }
        queue.splice(next, 0, ...front);
        progress.grow(front.length);
      } finally {
        lastLookAt = performance.now();
        looking = null;
      }
    })());

  const readOne = async (linkId: string, probe: boolean): Promise<void> => {
    let link;
    try {
      link = await deps.api.getLink(linkId, { mode: "queued" });
    } catch (error) {
      // Not an upstream answer (the budget's store): nothing later would go better, so the run stops.
      if (!isUpstreamError(error)) throw error;
      if (error.status === 404) {
        streak.succeeded();
        counts.notFound++;
        progress.lastError = `link ${linkId} is not found upstream (404); its row is kept as last read`;
      } else if (error.status === 410) {
        streak.succeeded();
        await markLinkDeleted(db, linkId, new Date());
        counts.fetched++;
      } else if (error.status === 429 && !retried.has(linkId)) {
        // The budget has closed the keys until Retry-After; the link waits its turn again at the end of the queue.
        retried.add(linkId);
        toBack(linkId);
        return;
      } else {
        streak.failed(failureWords(error), new Date(), probe);
        progress.lastError = `link ${linkId} could not be read (${failureText(error)})`;
        const failedReads = (tries.get(linkId) ?? 0) + 1;
        tries.set(linkId, failedReads);
        // Tried again after the links not tried yet: in an outage the run moves on, and reads them all once it ends.
        if (failedReads < options.maxTriesPerLink) {
          toBack(linkId);
          return;
        }
        counts.failed++;
      }
      progress.advance();
      return;
    }
    streak.succeeded();
    await recordLinks(db, [link], new Date());
    counts.fetched++;
    progress.advance();
  };

  const worker = async (): Promise<void> => {
    while (!signal.aborted) {
      // While the upstream fails, one try at a time after the streak's wait; then the slot, then the link: reads start
      // in exactly the queue's order.
      let attempt;
      try {
        attempt = await streak.take(signal);
      } catch {
        return;
      }
      try {
        await pacer.acquire(signal);
      } catch {
        attempt.done();
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
        waiting.delete(linkId);
        reading.add(linkId);
        try {
          await readOne(linkId, attempt.probe);
        } finally {
          reading.delete(linkId);
        }
      } catch (error) {
        failure ??= error;
        stop.abort(error);
        return;
      } finally {
        attempt.done();
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
 * registered, links a webhook named), then the links a webhook asked to read again (a late delivery, an unknown kind
 * of event), up to `limit`, so they show with their state within seconds instead of at the next run. It holds the
 * sync lease while it reads (one reader across instances; a run in progress reads such links itself) and leaves the
 * last run's progress and times as they were. `skip`: links it failed to read before, left to the next run.
 */
export async function readLearnedLinks(
  deps: Pick<SyncDeps, "db" | "api" | "budget" | "share" | "pace" | "owner" | "signal" | "log" | "progressIntervalMs">,
  { skip = new Set<string>(), limit = LEARNED_LINKS_PER_LOOK }: { skip?: ReadonlySet<string>; limit?: number } = {},
): Promise<LearnedLinksResult> {
  const { db } = deps;
  const state = await readSyncState(db);
  // Never synced, or a run to resume: the run reads them.
  if (state.phase !== "idle" || state.runStartedAt === null || state.heartbeatFresh) return { outcome: "declined" };
  const learned = await newlyLearnedLinkIds(db, state.runStartedAt, skip, limit);
  const asked =
    learned.length < limit
      ? await requestedLinkIds(db, { except: new Set([...skip, ...learned]), limit: limit - learned.length })
      : [];
  const ids = [...learned, ...asked];
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
    // A read that succeeded ends a failing streak the last run stored: the upstream answers again.
    const recovered = fetched > 0 && failingOf(taken) !== null;
    await releaseSyncLease(db, owner, recovered ? failingColumns(null) : {}).catch((error: unknown) =>
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
  /** Since when and why the run's reads fail, while they do. */
  failing: SyncFailing | null = null;
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

  /** The run started or stopped failing, or waits longer: written at once, so pages say so within seconds. */
  noteFailing(failing: SyncFailing | null): void {
    this.failing = failing;
    this.write().catch(() => undefined);
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
        ...failingColumns(this.failing),
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
  const d = SYNC_DEFAULTS;
  return {
    concurrency: deps.concurrency ?? d.concurrency,
    pageSize: deps.pageSize ?? d.pageSize,
    freshForMs: deps.freshForMs ?? d.freshForMs,
    backoff: deps.backoff ?? d.backoff,
    maxTriesPerLink: deps.maxTriesPerLink ?? d.maxTriesPerLink,
    newLinksLookMs: deps.newLinksLookMs ?? d.newLinksLookMs,
    progressIntervalMs: deps.progressIntervalMs ?? d.progressIntervalMs,
  };
}
