import type { z } from "zod";
import type { AuditAction } from "../audit/actions";
import type { Permission } from "../auth/roles";
import type { Db } from "../db/client";
import type { Job, JobItem } from "../db/schema";
import type { CallOptions, UpstreamApi } from "../upstream";

// What a kind of job is to the engine: what one item does upstream, how an item whose outcome is unknown is checked,
// and what its audit row says. One file per kind beside this one (correction.ts, import.ts); kind-registry.ts lists them.

/** Handed to a kind for one item: where to call, and the options every upstream call of the item must carry. */
export interface ItemContext {
  job: Job;
  item: JobItem;
  api: UpstreamApi;
  db: Db;
  /**
   * Pass these to the upstream verb: the correlation id (on the audit row and the log line), queued mode (the call
   * waits its budget slot), the stop signal, the hook that records a wait for a slot (the job's page names the limit),
   * and the hook that records "sent" right before the request goes out.
   * For the call that does the item's work only: checks (reads) use `readOptions`.
   */
  callOptions: Required<Pick<CallOptions, "correlationId" | "mode" | "signal" | "beforeSend" | "onWait">>;
  /** For reads: queued mode, the stop signal and the wait's record, no "sent" record. */
  readOptions: Required<Pick<CallOptions, "mode" | "signal" | "onWait">>;
  /** Results of the settled items before this one in its group, in order. */
  groupResults(): Promise<unknown[]>;
}

/** What a check of an item whose call may or may not have been applied found. */
export type Verification<R> = { applied: true; result: R } | { applied: false };

/** What an item's audit row says besides actor, outcome, correlation id and upstream status. */
export interface ItemAudit {
  action: AuditAction;
  targetType: string;
  targetId?: string;
  linkId?: string;
  input?: unknown;
  before?: unknown;
  after?: unknown;
}

/** A skip decided by the kind when the item comes up (e.g. "changed since": an undo must not overwrite). */
export class SkipItem extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "SkipItem";
  }
}

/**
 * A check that cannot tell yet: the last call got no answer and the upstream may still apply it (a slow upstream
 * finishes what it has read even after the client gave up). The item stays "sent" and is checked again after
 * `retryInMs`; the message is the item's reason meanwhile.
 */
export class NotSettledYet extends Error {
  constructor(
    message: string,
    readonly retryInMs: number,
  ) {
    super(message);
    this.name = "NotSettledYet";
  }
}

/**
 * Not yet, decided by the kind before its call (e.g. a reconnect request held while the link's institution is in an
 * outage): nothing is sent, the item stays pending and comes up again after `retryInMs`, its reason saying why
 * meanwhile. It costs no attempt.
 */
export class WaitItem extends Error {
  constructor(
    readonly reason: string,
    readonly retryInMs: number,
  ) {
    super(reason);
    this.name = "WaitItem";
  }
}

/**
 * A definite end decided by the kind, when sending or checking shows the item can never succeed (e.g. its link was
 * deleted upstream): the item fails with this reason in words instead of being checked or retried again.
 */
export class FailItem extends Error {
  constructor(
    readonly reason: string,
    readonly upstreamStatus: number | null = null,
    readonly upstreamErrorCode: string | null = null,
  ) {
    super(reason);
    this.name = "FailItem";
  }
}

export interface JobKind<I = unknown, R = unknown> {
  kind: string;
  /** Words for lists: "Category correction". */
  label: string;
  /** Who may start a job of this kind and pause, resume, cancel or retry it (admins always may). */
  permission: Permission;
  /** Items of one job one instance works on at once; the rate budget paces the calls whatever this is. */
  concurrency: number;
  /** The upstream endpoint an item calls, for the cost and time estimate ("N calls at the per-link limit"). */
  endpoint: string;
  /** The stored input of an item, parsed each time it is worked (rows outlive code versions). */
  inputSchema: z.ZodType<I>;
  /** Does the item's one upstream call. Must pass ctx.callOptions to it. May throw SkipItem before calling. */
  execute(input: I, ctx: ItemContext): Promise<R>;
  /** Whether an earlier call of this item was applied upstream, by reading the upstream (never by resending). */
  verify(input: I, ctx: ItemContext): Promise<Verification<R>>;
  audit(input: I, job: Job, item: JobItem): ItemAudit;
  /**
   * What of a done item's input is kept (the rest is dropped from its row): what is no longer needed once the call is
   * applied, or should not be stored longer than needed (credentials). Without it the input is kept whole.
   */
  settledInput?(input: I): unknown;
  /** A short summary of a done item's result for the items table and the CSV. */
  describeResult?(result: R): string;
}
