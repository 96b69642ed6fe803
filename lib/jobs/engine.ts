import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { type AuditOutcome } from "../db/schema";
import { appendAudit } from "../audit/append";
import type { Db } from "../db/client";
import type { Job, JobItem } from "../db/schema";
import { HEARTBEAT_MS, LEASE_TTL_MS, TAKEOVER_POLL_MS } from "../leases/timing";
import type { UpstreamApi } from "../upstream";
import type { BudgetWait } from "../upstream/client";
import { type UpstreamError, describeUpstreamError, isUpstreamError } from "../upstream/errors";
import { FailItem, type ItemContext, type JobKind, NotSettledYet, SkipItem, WaitItem } from "./kind-contract";
import { readWaitReason, waitReason } from "./waits";
import {
  type ItemSettlement,
  claimWork,
  finishJobIfSettled,
  groupResults,
  jobsWithWork,
  markSent,
  readJob,
  recordWait,
  releaseAllLeases,
  releaseItem,
  renewLeases,
  settleItem,
  skipRestOfGroup,
} from "./store";

// The worker every dashboard instance runs: it leases workable items of running jobs, does each item's one upstream
// call in queued mode (the rate budget paces it), and records the outcome with the call's audit row in one
// transaction. Exactly once: an item is marked "sent" right before its request goes out; an item found "sent" by its
// next holder (a crash, a timeout, a lost answer) is first checked against the upstream, and resent only when the check
// shows the call was not applied.
//
// Two lanes per job, each up to the job's concurrency: calls (pending items, each waiting for its budget slot, then
// sent) and checks (sent items, each a read of the upstream). A check never waits for a place among the calls: when
// the budget is full every call an instance holds may wait a minute for its slot, and a dead instance's unknown calls
// are still checked as soon as their leases lapse. A check that finds its call not applied gives the item back as
// pending, to be sent again in the calls' lane.

export interface JobLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobRunnerOptions {
  db: Db;
  api: UpstreamApi;
  kinds: ReadonlyMap<string, JobKind>;
  /** This instance's name on leases; unique per process. */
  owner?: string;
  log?: JobLog;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  /** Calls this instance works on at once, over all jobs; checks of unknown outcomes have as many places of their own. */
  maxInFlight?: number;
  /** The first wait before an item whose call failed is worked again; it doubles with each call, up to a minute. */
  backoffBaseMs?: number;
}

/** After this many calls of one item without a definite answer, it fails with the last reason. */
export const MAX_ATTEMPTS = 5;
const BACKOFF_CAP_MS = 60_000;

const silent: JobLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The job's state or the lease stopped the call before it went out. */
class NotSent extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "NotSent";
  }
}

/** What an item is held for: its call (it was pending), or a check of a call whose outcome is unknown (it was sent). */
type Lane = "call" | "check";

interface Running {
  jobId: string;
  lane: Lane;
  abort: AbortController;
  done: Promise<void>;
}

export class JobRunner {
  readonly owner: string;
  private readonly db: Db;
  private readonly log: JobLog;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  private readonly maxInFlight: number;
  private readonly backoffBaseMs: number;
  private readonly inFlight = new Map<number, Running>();
  private loop?: Promise<void>;
  private heartbeat?: ReturnType<typeof setInterval>;
  private stopping = false;
  private wakeUp?: () => void;
  private woken = false;
  private databaseDown = false;

  constructor(private readonly options: JobRunnerOptions) {
    this.db = options.db;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.log = options.log ?? silent;
    this.leaseMs = options.leaseMs ?? LEASE_TTL_MS;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.pollMs = options.pollMs ?? TAKEOVER_POLL_MS;
    this.maxInFlight = options.maxInFlight ?? 16;
    this.backoffBaseMs = options.backoffBaseMs ?? 1_000;
  }

  /** Starts looking for work (once). */
  start(): void {
    if (this.loop) return;
    this.heartbeat = setInterval(() => void this.renew(), this.heartbeatMs);
    this.heartbeat.unref?.();
    this.loop = this.run();
  }

  /** Looks for work now rather than at the next poll (a job was started or resumed in this process). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Items this instance works on right now. */
  get busy(): number {
    return this.inFlight.size;
  }

  /** The items this instance holds leases on right now (each one it works on). */
  heldItemIds(): number[] {
    return [...this.inFlight.keys()];
  }

  /**
   * Stops taking work, stops the calls still waiting for a budget slot (they go back to pending), waits up to
   * `drainMs` for calls in flight to be answered and recorded, then releases every lease this instance holds so another
   * instance takes the items over at once (a call still unanswered stays "sent", to be checked by its next holder).
   */
  async stop(drainMs = 5_000): Promise<void> {
    if (this.stopping) return this.loop;
    this.stopping = true;
    this.wake();
    clearInterval(this.heartbeat);
    for (const running of this.inFlight.values()) running.abort.abort(new NotSent("this instance is stopping"));
    const drained = Promise.all([...this.inFlight.values()].map((r) => r.done));
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, drainMs).unref?.())]);
    await this.loop;
    const released = await releaseAllLeases(this.db, this.owner).catch((error: unknown) => {
      this.log.warn({ err: error }, "job engine: could not release leases at stop; they lapse on their own");
      return 0;
    });
    this.log.info({ owner: this.owner, released, unanswered: this.inFlight.size }, "job engine stopped");
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.fill();
        if (this.databaseDown) this.log.info({}, "job engine: database reachable again; jobs resume");
        this.databaseDown = false;
      } catch (error) {
        if (!this.databaseDown)
          this.log.warn({ err: error }, "job engine: database unavailable; jobs pause until it answers");
        this.databaseDown = true;
      }
      await this.idle();
    }
  }

  private idle(): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      timer.unref?.();
      this.wakeUp = done;
    });
  }

  private async fill(): Promise<void> {
    if (this.room("call") <= 0 && this.room("check") <= 0) return;
    for (const job of await jobsWithWork(this.db)) {
      if (this.stopping) return;
      const limits = { checks: this.room("check", job), calls: this.room("call", job) };
      if (limits.checks <= 0 && limits.calls <= 0) continue;
      for (const item of await claimWork(this.db, job.id, this.owner, limits, this.leaseMs)) {
        // Its own lease had lapsed (this instance stalled past the TTL) and nobody took it: it is being worked already.
        if (this.inFlight.has(item.id)) continue;
        this.spawn(item);
      }
    }
  }

  /** Places left in a lane: of this job (up to its concurrency) and of the instance (up to maxInFlight). */
  private room(lane: Lane, job?: Pick<Job, "id" | "concurrency">): number {
    const held = [...this.inFlight.values()].filter((r) => r.lane === lane);
    const free = this.maxInFlight - held.length;
    return job ? Math.min(free, job.concurrency - held.filter((r) => r.jobId === job.id).length) : free;
  }

  private spawn(item: JobItem): void {
    const abort = new AbortController();
    const running: Running = {
      jobId: item.jobId,
      lane: item.state === "sent" ? "check" : "call",
      abort,
      done: Promise.resolve(),
    };
    this.inFlight.set(item.id, running);
    running.done = this.work(item, abort.signal)
      .catch((error: unknown) => {
        // Recording failed (the database went away): the lease lapses and the next holder checks the item.
        this.log.warn(
          { err: error, itemId: item.id, jobId: item.jobId },
          "job engine: could not record an item's outcome",
        );
      })
      .finally(() => {
        this.inFlight.delete(item.id);
        if (!this.stopping) this.wake();
      });
  }

  /** Gives the item back (releaseItem); one that this cancels (its job was cancelled meanwhile) may end the job. */
  private async release(item: JobItem, opts: Parameters<typeof releaseItem>[3]): Promise<void> {
    if ((await releaseItem(this.db, item.id, this.owner, opts)) === "cancelled")
      await finishJobIfSettled(this.db, item.jobId);
  }

  private backoff(attempts: number): number {
    return backoffFor(attempts, this.backoffBaseMs);
  }

  private async renew(): Promise<void> {
    const ids = [...this.inFlight.keys()];
    if (ids.length === 0) return;
    try {
      const held = new Set(await renewLeases(this.db, this.owner, ids, this.leaseMs));
      for (const id of ids) {
        // Lost (this instance stalled past the TTL and another took over): stop before sending; writes are fenced anyway.
        if (!held.has(id)) this.inFlight.get(id)?.abort.abort(new NotSent("the lease was taken over"));
      }
    } catch (error) {
      this.log.warn({ err: error }, "job engine: heartbeat failed");
    }
  }

  private async work(item: JobItem, signal: AbortSignal): Promise<void> {
    const job = await readJob(this.db, item.jobId);
    const kind = job ? this.options.kinds.get(job.kind) : undefined;
    if (!job || !kind) {
      // An instance of another version may know this kind: leave it for a minute.
      await this.release(item, {
        state: item.state === "sent" ? "sent" : "pending",
        retryInMs: 60_000,
        reason: "No worker for this kind of job on this instance.",
      });
      return;
    }
    const parsed = kind.inputSchema.safeParse(item.input);
    if (!parsed.success) {
      await this.settle(job, kind, item, {
        state: "failed",
        reason: `The item's stored input is not valid: ${parsed.error.issues[0]?.message ?? "unreadable"}.`,
      });
      return;
    }
    const input = parsed.data;
    // A wait recorded by a holder that died while it waited is over: it is no reason for what comes next.
    if (readWaitReason(item.reason)) item.reason = null;
    // The stored JSON is not needed past here (an import batch's is about 1 MB; several are in flight at once).
    item.input = null;
    // Each wait of the item's calls for a budget slot is recorded on its row, for the job's page on any instance; in
    // order, and before the call is marked sent, so a late write never outlives the wait it describes.
    let waits = Promise.resolve();
    const onWait = (wait: BudgetWait) => {
      waits = waits
        .then(() => recordWait(this.db, item.id, this.owner, waitReason(wait)))
        .catch((error: unknown) =>
          this.log.warn(
            { err: error, itemId: item.id, jobId: item.jobId },
            "job engine: could not record an item's wait",
          ),
        );
    };
    const context = (correlationId: string, beforeSend: () => Promise<void>): ItemContext => ({
      job,
      item,
      api: this.options.api,
      db: this.db,
      callOptions: {
        correlationId,
        mode: "queued",
        signal,
        onWait,
        beforeSend: async () => {
          await waits;
          await beforeSend();
        },
      },
      readOptions: { mode: "queued", signal, onWait },
      groupResults: () => groupResults(this.db, item),
    });

    if (item.state === "sent") {
      // The last call's outcome is unknown: ask the upstream before anything is resent.
      let verification;
      try {
        verification = await kind.verify(
          input,
          context(randomUUID(), async () => undefined),
        );
      } catch (error) {
        if (error instanceof NotSettledYet) {
          await this.release(item, {
            state: "sent",
            retryInMs: signal.aborted ? 0 : error.retryInMs,
            reason: error.message,
            upstreamErrorCode: item.upstreamErrorCode,
          });
          return;
        }
        if (error instanceof FailItem) {
          await this.settle(
            job,
            kind,
            item,
            {
              state: "failed",
              reason: error.reason,
              upstreamStatus: error.upstreamStatus,
              upstreamErrorCode: error.upstreamErrorCode,
            },
            undefined,
            input,
          );
          return;
        }
        const reason = `Checking whether the last call went through failed (${describe(error)}); checking again shortly.`;
        await this.release(item, {
          state: "sent",
          retryInMs: signal.aborted ? 0 : this.backoff(item.attempts),
          reason,
        });
        return;
      }
      if (verification.applied) {
        await this.settle(
          job,
          kind,
          item,
          { state: "done", result: verification.result, upstreamStatus: item.upstreamStatus ?? 200 },
          {
            outcome: "ok",
            correlationId: item.correlationId ?? randomUUID(),
            note: { verified: "applied: confirmed by reading the upstream after the answer was lost" },
          },
          input,
        );
        return;
      }
      // The earlier call did not take effect: its audit row says so, then the item is sent again (or not, if cancelled).
      await this.auditOnly(job, kind, item, input, {
        outcome: item.upstreamStatus ? "upstream_error" : "error",
        correlationId: item.correlationId ?? randomUUID(),
        upstreamStatus: item.upstreamStatus ?? undefined,
        upstreamErrorCode: item.upstreamErrorCode ?? "no_answer",
        note: { verified: "not applied: checked against the upstream" },
      });
      if (job.state === "cancelled") {
        await this.settle(
          job,
          kind,
          item,
          { state: "cancelled", reason: "Cancelled; the last call was checked and had not gone through." },
          undefined,
          input,
        );
        return;
      }
      if (item.attempts < MAX_ATTEMPTS) {
        // Sent again in the calls' lane, where it waits for its budget slot like any call, not in a check's place.
        await this.release(item, {
          state: "pending",
          reason: item.reason,
          upstreamStatus: item.upstreamStatus,
          upstreamErrorCode: item.upstreamErrorCode,
        });
        return;
      }
    }

    if (item.attempts >= MAX_ATTEMPTS) {
      await this.settle(
        job,
        kind,
        item,
        {
          state: "failed",
          reason:
            `Gave up after ${item.attempts} calls: no answer said whether the change was applied. ${item.reason ?? ""}`.trim(),
        },
        undefined,
        input,
      );
      return;
    }

    const correlationId = randomUUID();
    let sent = false;
    const beforeSend = async () => {
      if (signal.aborted) throw signal.reason;
      // The client repeats a call once after renewing an expired token; the first was refused, not applied. It is one
      // call of this item: marked sent once, one attempt.
      if (sent) return;
      if (!(await markSent(this.db, item.id, this.owner, correlationId)))
        throw new NotSent("the job is paused or cancelled, or the lease was lost");
      sent = true;
    };
    try {
      const result = await kind.execute(input, context(correlationId, beforeSend));
      await this.settle(
        job,
        kind,
        item,
        { state: "done", result, upstreamStatus: 200 },
        { outcome: "ok", correlationId },
        input,
      );
    } catch (error) {
      if (error instanceof SkipItem) {
        await this.settle(job, kind, item, { state: "skipped", reason: error.reason }, undefined, input);
      } else if (error instanceof WaitItem && !sent) {
        await this.release(item, {
          state: "pending",
          retryInMs: signal.aborted ? 0 : error.retryInMs,
          reason: error.reason,
        });
      } else if (error instanceof FailItem) {
        await this.settle(
          job,
          kind,
          item,
          {
            state: "failed",
            reason: error.reason,
            upstreamStatus: error.upstreamStatus,
            upstreamErrorCode: error.upstreamErrorCode,
          },
          sent ? { outcome: "upstream_error", correlationId } : undefined,
          input,
        );
      } else if (!sent) {
        // Nothing went out (stopped, paused, the budget's store away): the item is simply pending again.
        const retryInMs = error instanceof NotSent || signal.aborted ? 0 : 5_000;
        await this.release(item, {
          state: "pending",
          retryInMs,
          reason: error instanceof NotSent ? null : `Not sent: ${describe(error)}`,
        });
      } else if (isUpstreamError(error)) {
        await this.afterUpstreamError(job, kind, item, input, error, correlationId);
      } else {
        // Sent, then something failed on our side: the outcome is unknown.
        await this.release(item, {
          state: "sent",
          retryInMs: this.backoff(item.attempts + 1),
          reason: describe(error),
        });
      }
    }
  }

  private async afterUpstreamError(
    job: Job,
    kind: JobKind,
    item: JobItem,
    input: unknown,
    error: UpstreamError,
    correlationId: string,
  ): Promise<void> {
    const status = error.status ?? null;
    const code = error.errorCode ?? error.kind;
    const { title, detail } = describeUpstreamError(error);
    const reason = `${title}. ${detail}`.trim();
    if (status === 429) {
      // Not applied: the budget closed the key until Retry-After; the item waits for it and goes again.
      await this.auditOnly(job, kind, item, input, {
        outcome: "upstream_error",
        correlationId,
        upstreamStatus: 429,
        upstreamErrorCode: code,
      });
      const retryInMs = error.retryAfter ? Math.max(1_000, error.retryAfter.getTime() - Date.now()) : 60_000;
      await this.release(item, { state: "pending", retryInMs, reason, upstreamStatus: 429, upstreamErrorCode: code });
      return;
    }
    if (error.kind === "http" && status !== null && status >= 400 && status < 500 && status !== 408) {
      // A definite refusal: nothing was applied, and sending the same call again would be refused again.
      await this.settle(
        job,
        kind,
        item,
        { state: "failed", reason, upstreamStatus: status, upstreamErrorCode: code },
        { outcome: "upstream_error", correlationId },
        input,
      );
      return;
    }
    if (error.kind === "network" && refusedBeforeSending(error)) {
      await this.release(item, {
        state: "pending",
        retryInMs: this.backoff(item.attempts + 1),
        reason,
        upstreamErrorCode: code,
        undoSend: true,
      });
      return;
    }
    // Timeout, a dropped connection, a 5xx, an unreadable answer: the call may have been applied. Checked first.
    await this.release(item, {
      state: "sent",
      retryInMs: this.backoff(item.attempts + 1),
      reason,
      upstreamStatus: status,
      upstreamErrorCode: code,
    });
  }

  /** Settles the item and, for a call that was made, writes its audit row in the same transaction. */
  private async settle(
    job: Job,
    kind: JobKind,
    item: JobItem,
    settlement: ItemSettlement,
    audit?: { outcome: AuditOutcome; correlationId: string; note?: Record<string, unknown> },
    parsedInput?: unknown,
  ): Promise<void> {
    const input =
      parsedInput !== undefined
        ? { success: true as const, data: parsedInput }
        : kind.inputSchema.safeParse(item.input);
    // A done item keeps only what its kind says is still needed (never credentials it no longer needs).
    const kept =
      settlement.state === "done" && input.success && kind.settledInput ? { input: kind.settledInput(input.data) } : {};
    await this.db.transaction(async (tx) => {
      const tdb = tx as unknown as Db;
      if (!(await settleItem(tdb, item.id, this.owner, { ...settlement, ...kept }))) return;
      if (settlement.state === "failed")
        await skipRestOfGroup(tdb, item, "Not run: an earlier step for the same link failed.");
      if (audit && input.success) {
        await this.writeAudit(tdb, job, kind, item, input.data, {
          ...audit,
          upstreamStatus: settlement.upstreamStatus ?? undefined,
          upstreamErrorCode: settlement.upstreamErrorCode ?? undefined,
        });
      }
    });
    await finishJobIfSettled(this.db, job.id);
  }

  private async auditOnly(
    job: Job,
    kind: JobKind,
    item: JobItem,
    input: unknown,
    audit: {
      outcome: AuditOutcome;
      correlationId: string;
      upstreamStatus?: number;
      upstreamErrorCode?: string;
      note?: Record<string, unknown>;
    },
  ): Promise<void> {
    await this.writeAudit(this.db, job, kind, item, input, audit);
  }

  private async writeAudit(
    db: Db,
    job: Job,
    kind: JobKind,
    item: JobItem,
    input: unknown,
    audit: {
      outcome: AuditOutcome;
      correlationId: string;
      upstreamStatus?: number;
      upstreamErrorCode?: string;
      note?: Record<string, unknown>;
    },
  ): Promise<void> {
    const described = kind.audit(input, job, item);
    await appendAudit(
      {
        actor: { id: job.createdBy, email: job.createdByEmail, role: job.createdByRole },
        action: described.action,
        outcome: audit.outcome,
        correlationId: audit.correlationId,
        targetType: described.targetType,
        targetId: described.targetId,
        linkId: described.linkId,
        input: { ...(described.input as object | undefined), job: job.id, item: item.seq, ...audit.note },
        before: described.before,
        after: described.after,
        upstreamStatus: audit.upstreamStatus,
        upstreamErrorCode: audit.upstreamErrorCode,
      },
      db,
    );
  }
}

function backoffFor(attempts: number, baseMs: number): number {
  return Math.min(BACKOFF_CAP_MS, baseMs * 2 ** Math.max(0, attempts - 1));
}

function describe(error: unknown): string {
  if (isUpstreamError(error)) {
    const { title, detail } = describeUpstreamError(error);
    return `${title}. ${detail}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A connection that was refused never carried the request: nothing can have been applied. */
function refusedBeforeSending(error: UpstreamError): boolean {
  const cause = error.cause as { code?: string; cause?: { code?: string } } | undefined;
  return (cause?.cause?.code ?? cause?.code) === "ECONNREFUSED";
}
