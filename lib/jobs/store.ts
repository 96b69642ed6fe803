import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type Job, type JobItem, type JobItemState, type JobState, jobItems, jobs } from "../db/schema";
import { LEASE_TTL_MS } from "../leases/timing";

// The job engine's storage: every statement that moves a job or an item from one state to another. Times are the
// database's clock (now()), the one clock every instance shares. Claims take a lease with one UPDATE over rows chosen
// FOR UPDATE SKIP LOCKED, so two instances never claim one item; every later write of an item is fenced by its lease
// owner, so an instance that lost its lease (it stalled past the TTL and another took over) cannot record over the
// new holder.

export interface Actor {
  id: string;
  email: string;
  role: string;
}

export interface NewJobItem {
  input: unknown;
  linkId?: string | null;
  targetId?: string | null;
  /** Items of one group run in order, each after the previous one is done. */
  groupKey?: string | null;
  /** Planned as already settled (e.g. skipped: "already in that category"), with the reason in words. */
  state?: Extract<JobItemState, "pending" | "skipped">;
  reason?: string | null;
}

export interface NewJob {
  kind: string;
  title: string;
  linkId?: string | null;
  params?: Record<string, unknown>;
  concurrency?: number;
  createdBy: Actor;
  undoesJobId?: string | null;
  dedupeKey?: string | null;
  items: NewJobItem[];
}

const INSERT_CHUNK = 1_000;
/** Item inputs written per statement at most (by their `bytes`): a 20 MB import is written a few MB at a time. */
const INSERT_CHUNK_BYTES = 4 * 1024 * 1024;
const ttl = (ms: number) => sql`now() + (${Math.round(ms)}::int * interval '1 millisecond')`;

/** Writes a job and all its items in one transaction: a job is never seen half-planned. */
export async function insertJob(db: Db, job: NewJob): Promise<Job> {
  const { items, ...rest } = job;
  const row = await insertJobStreamed(db, rest, async (writer) => {
    await writer.add(items);
    return {};
  });
  return row!;
}

/** Takes a job's items as they are planned; `bytes` (an estimate of an item's input) decides when to write. */
export interface JobItemWriter {
  add(items: (NewJobItem & { bytes?: number })[]): Promise<void>;
  /** The job being planned, and the transaction it is written in: a kind's own rows then commit with it, or not at all. */
  jobId: string;
  tx: Db;
}

/** What is known of a job only once its items are planned. */
export type JobCompletion = Partial<Pick<NewJob, "title" | "params" | "concurrency">>;

class NotPlanned extends Error {
  constructor() {
    super("The job was not planned.");
    this.name = "NotPlanned";
  }
}

/**
 * Writes a job whose items are produced by `plan` as it goes, in one transaction: items are written in chunks (by
 * count and by size) as they come, so none of them needs to stay in memory, and the job is never seen half-planned.
 * When `plan` returns null nothing is written (the transaction is rolled back) and null is returned.
 */
export async function insertJobStreamed(
  db: Db,
  job: Omit<NewJob, "items">,
  plan: (writer: JobItemWriter) => Promise<JobCompletion | null>,
): Promise<Job | null> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(jobs)
        .values({
          kind: job.kind,
          title: job.title,
          linkId: job.linkId ?? null,
          params: job.params ?? {},
          concurrency: job.concurrency ?? 1,
          createdBy: job.createdBy.id,
          createdByEmail: job.createdBy.email,
          createdByRole: job.createdBy.role,
          undoesJobId: job.undoesJobId ?? null,
          dedupeKey: job.dedupeKey ?? null,
          total: 0,
          state: "running",
        })
        .returning();
      let seq = 0;
      let skipped = 0;
      let pending: NewJobItem[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pending.length === 0) return;
        const chunk = pending;
        pending = [];
        pendingBytes = 0;
        await tx.insert(jobItems).values(
          chunk.map((item) => ({
            jobId: row!.id,
            seq: seq++,
            input: item.input,
            linkId: item.linkId ?? job.linkId ?? null,
            targetId: item.targetId ?? null,
            groupKey: item.groupKey ?? null,
            state: item.state ?? "pending",
            reason: item.reason ?? null,
            finishedAt: item.state === "skipped" ? new Date() : null,
          })),
        );
      };
      const completion = await plan({
        jobId: row!.id,
        tx: tx as unknown as Db,
        async add(items) {
          for (const { bytes, ...item } of items) {
            if (item.state === "skipped") skipped++;
            pending.push(item);
            pendingBytes += bytes ?? 0;
            if (pending.length >= INSERT_CHUNK || pendingBytes >= INSERT_CHUNK_BYTES) await flush();
          }
        },
      });
      if (!completion) throw new NotPlanned();
      await flush();
      const allSettled = skipped === seq;
      const [done] = await tx
        .update(jobs)
        .set({
          total: seq,
          ...(completion.title !== undefined ? { title: completion.title } : {}),
          ...(completion.params !== undefined ? { params: completion.params } : {}),
          ...(completion.concurrency !== undefined ? { concurrency: completion.concurrency } : {}),
          state: allSettled ? "done" : "running",
          finishedAt: allSettled ? new Date() : null,
        })
        .where(eq(jobs.id, row!.id))
        .returning();
      return done!;
    });
  } catch (error) {
    if (error instanceof NotPlanned) return null;
    throw error;
  }
}

/** Jobs with work an instance could take: running ones, and cancelled ones with calls whose outcome is unknown. */
export async function jobsWithWork(db: Db): Promise<Pick<Job, "id" | "concurrency">[]> {
  const rows = await db.execute<{ id: string; concurrency: number }>(sql`
    select j.id, j.concurrency from jobs j
    where j.state in ('running', 'cancelled')
      and exists (select 1 from job_items i where i.job_id = j.id and i.state in ('pending', 'sent'))
    order by j.created_at
  `);
  return rows.rows;
}

/**
 * An item no live holder has (never leased, given back, or its holder's lease lapsed), whose back-off is over and whose
 * group has nothing unfinished before it.
 */
const workable = sql`
  (i.lease_until is null or i.lease_until < now())
  and (i.not_before is null or i.not_before <= now())
  and (i.group_key is null or not exists (
    select 1 from job_items p
    where p.job_id = i.job_id and p.group_key = i.group_key and p.seq < i.seq and p.state not in ('done', 'skipped')
  ))
`;

/**
 * Leases up to `limit` workable items of one job to `owner`, lowest seq first: pending items (running jobs only) and
 * sent items whose outcome is unknown (to be checked), whose lease is free or lapsed, whose back-off is over, and whose
 * group has nothing unfinished before them.
 */
export async function claimItems(
  db: Db,
  jobId: string,
  owner: string,
  limit: number,
  leaseMs = LEASE_TTL_MS,
): Promise<JobItem[]> {
  if (limit <= 0) return [];
  const rows = await db.execute<{ id: number }>(sql`
    with candidates as (
      select i.id from job_items i
      join jobs j on j.id = i.job_id
      where i.job_id = ${jobId}
        and (i.state = 'sent' or (i.state = 'pending' and j.state = 'running'))
        and j.state in ('running', 'cancelled')
        and ${workable}
      order by i.seq
      limit ${limit}
      for update of i skip locked
    )
    update job_items set lease_owner = ${owner}, lease_until = ${ttl(leaseMs)}, updated_at = now()
    from candidates where job_items.id = candidates.id
    returning job_items.id
  `);
  return readClaimed(db, rows.rows);
}

/**
 * Leases workable items of one job to `owner` in two lanes, lowest seq first in each, in one statement: up to `checks`
 * sent items (their outcome unknown: a dead holder's, or given back to be checked again) and up to `calls` pending
 * items (running jobs only). The engine checks the first and calls for the second, so items waiting for a rate-limit
 * slot never stand in the way of a dead instance's unknown calls.
 */
export async function claimWork(
  db: Db,
  jobId: string,
  owner: string,
  limits: { checks: number; calls: number },
  leaseMs = LEASE_TTL_MS,
): Promise<JobItem[]> {
  const checks = Math.max(0, limits.checks);
  const calls = Math.max(0, limits.calls);
  if (checks === 0 && calls === 0) return [];
  const rows = await db.execute<{ id: number }>(sql`
    with checks as (
      select i.id from job_items i
      join jobs j on j.id = i.job_id
      where i.job_id = ${jobId} and i.state = 'sent' and j.state in ('running', 'cancelled') and ${workable}
      order by i.seq
      limit ${checks}
      for update of i skip locked
    ), calls as (
      select i.id from job_items i
      join jobs j on j.id = i.job_id
      where i.job_id = ${jobId} and i.state = 'pending' and j.state = 'running' and ${workable}
      order by i.seq
      limit ${calls}
      for update of i skip locked
    )
    update job_items set lease_owner = ${owner}, lease_until = ${ttl(leaseMs)}, updated_at = now()
    where job_items.id in (select id from checks union all select id from calls)
    returning job_items.id
  `);
  return readClaimed(db, rows.rows);
}

async function readClaimed(db: Db, rows: { id: number }[]): Promise<JobItem[]> {
  const ids = rows.map((r) => Number(r.id));
  if (ids.length === 0) return [];
  return db.select().from(jobItems).where(inArray(jobItems.id, ids)).orderBy(jobItems.seq);
}

/** Renews the leases `owner` holds on these items; returns the ids it still holds. */
export async function renewLeases(db: Db, owner: string, ids: number[], leaseMs = LEASE_TTL_MS): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .update(jobItems)
    .set({ leaseUntil: ttl(leaseMs) })
    .where(and(inArray(jobItems.id, ids), eq(jobItems.leaseOwner, owner), inArray(jobItems.state, ["pending", "sent"])))
    .returning({ id: jobItems.id });
  return rows.map((r) => r.id);
}

/**
 * Records that the item's call is about to go out: from here on, a crash leaves it "sent" and its outcome is checked
 * before anything is resent. Refused (false) when the lease is lost, the item was settled meanwhile (cancelled while
 * it waited for its budget slot) or the job no longer runs (paused, cancelled): then the call is not sent.
 */
export async function markSent(db: Db, itemId: number, owner: string, correlationId: string): Promise<boolean> {
  const rows = await db.execute<{ id: number }>(sql`
    update job_items set state = 'sent', attempts = attempts + 1, correlation_id = ${correlationId}, sent_at = now(),
      upstream_status = null, upstream_error_code = null, reason = null, updated_at = now()
    where id = ${itemId} and lease_owner = ${owner} and state in ('pending', 'sent')
      and exists (select 1 from jobs j where j.id = job_items.job_id and j.state = 'running')
    returning id
  `);
  return rows.rows.length > 0;
}

/**
 * Records that the item's next call (or the read that checks it) waits for a rate-limit slot, as its reason in words
 * (lib/jobs/waits.ts). Only while `owner` holds the item and it is unsettled: a late write never lands on a settled or
 * given-back item. The job's page reads it (lib/jobs/view.ts) from any instance; markSent clears it.
 */
export async function recordWait(db: Db, itemId: number, owner: string, reason: string): Promise<void> {
  await db
    .update(jobItems)
    .set({ reason, updatedAt: sql`now()` })
    .where(
      and(
        eq(jobItems.id, itemId),
        eq(jobItems.leaseOwner, owner),
        inArray(jobItems.state, ["pending", "sent"]),
        sql`${jobItems.leaseUntil} > now()`,
      ),
    );
}

export interface ItemSettlement {
  state: Extract<JobItemState, "done" | "failed" | "skipped" | "cancelled">;
  /** Replaces the stored input (what is kept of a done item). */
  input?: unknown;
  result?: unknown;
  reason?: string | null;
  upstreamStatus?: number | null;
  upstreamErrorCode?: string | null;
}

/**
 * Settles an item for good and gives up its lease, in `tx` (the caller writes the call's audit row in the same
 * transaction). False when `owner` no longer holds it, or it is settled already (cancelled while its holder worked
 * on it): then nothing is written and the caller must not audit.
 */
export async function settleItem(tx: Db, itemId: number, owner: string, settlement: ItemSettlement): Promise<boolean> {
  const rows = await tx
    .update(jobItems)
    .set({
      state: settlement.state,
      ...(settlement.input !== undefined ? { input: settlement.input } : {}),
      result: settlement.result ?? null,
      reason: settlement.reason ?? null,
      upstreamStatus: settlement.upstreamStatus ?? null,
      upstreamErrorCode: settlement.upstreamErrorCode ?? null,
      // The owner stays: it names the instance that settled the item.
      leaseUntil: null,
      notBefore: null,
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(jobItems.id, itemId), eq(jobItems.leaseOwner, owner), inArray(jobItems.state, ["pending", "sent"])))
    .returning({ id: jobItems.id });
  return rows.length > 0;
}

const CANCELLED_UNSENT = "Cancelled with the job; its call was not made.";

/**
 * Gives an unsettled item back: as `pending` (nothing reached the upstream, or it is known not to have been applied),
 * or still `sent` (outcome unknown: the next holder checks it first), workable again after `retryInMs`. An item
 * settled while its holder had it stays settled: one cancelled while it waited for its budget slot is not pending again.
 * One given back as pending in a job cancelled meanwhile (it was sent when the job was cancelled, then checked and
 * found not applied) is cancelled: its call will never be made, and left pending it would keep the job open for ever.
 * Returns the state the item was left in (after "cancelled" the caller calls finishJobIfSettled), or null when `owner`
 * no longer held it.
 */
export async function releaseItem(
  db: Db,
  itemId: number,
  owner: string,
  opts: {
    state: "pending" | "sent";
    retryInMs?: number;
    reason?: string | null;
    upstreamStatus?: number | null;
    upstreamErrorCode?: string | null;
    undoSend?: boolean;
  },
): Promise<"pending" | "sent" | "cancelled" | null> {
  const cancelled =
    opts.state === "pending"
      ? sql`exists (select 1 from jobs j where j.id = ${jobItems.jobId} and j.state = 'cancelled')`
      : sql`false`;
  const rows = await db
    .update(jobItems)
    .set({
      state: sql`case when ${cancelled} then 'cancelled' else ${opts.state} end`,
      leaseOwner: sql`case when ${cancelled} then ${jobItems.leaseOwner} end`,
      leaseUntil: null,
      notBefore: opts.retryInMs ? sql`case when ${cancelled} then null else ${ttl(opts.retryInMs)} end` : null,
      reason: sql`case when ${cancelled} then ${CANCELLED_UNSENT} else ${opts.reason ?? null}::text end`,
      upstreamStatus: opts.upstreamStatus ?? null,
      upstreamErrorCode: opts.upstreamErrorCode ?? null,
      // A call that the budget or the job's state stopped before it went out does not count as an attempt.
      ...(opts.undoSend ? { attempts: sql`greatest(${jobItems.attempts} - 1, 0)` } : {}),
      finishedAt: sql`case when ${cancelled} then now() end`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(jobItems.id, itemId), eq(jobItems.leaseOwner, owner), inArray(jobItems.state, ["pending", "sent"])))
    .returning({ state: jobItems.state });
  return (rows[0]?.state as "pending" | "sent" | "cancelled" | undefined) ?? null;
}

/** Releases every lease `owner` holds (a graceful stop), so another instance takes the items over at once. */
export async function releaseAllLeases(db: Db, owner: string): Promise<number> {
  const rows = await db
    .update(jobItems)
    .set({ leaseOwner: null, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(eq(jobItems.leaseOwner, owner), inArray(jobItems.state, ["pending", "sent"])))
    .returning({ id: jobItems.id });
  return rows.length;
}

/**
 * Releases every lease in the database. Only for the embedded database at start: one process opens it at a time, so
 * any lease in it belongs to a process that is gone.
 */
export async function releaseOrphanedLeases(db: Db): Promise<number> {
  const rows = await db
    .update(jobItems)
    .set({ leaseOwner: null, leaseUntil: null })
    .where(and(sql`${jobItems.leaseUntil} is not null`, inArray(jobItems.state, ["pending", "sent"])))
    .returning({ id: jobItems.id });
  return rows.length;
}

/** Marks later items of a group skipped after one of them failed for good: they depend on it. */
export async function skipRestOfGroup(
  tx: Db,
  item: Pick<JobItem, "jobId" | "groupKey" | "seq">,
  reason: string,
): Promise<void> {
  if (item.groupKey === null) return;
  await tx.execute(sql`
    update job_items set state = 'skipped', reason = ${reason}, finished_at = now(), updated_at = now()
    where job_id = ${item.jobId} and group_key = ${item.groupKey} and seq > ${item.seq} and state = 'pending'
  `);
}

/** A running or cancelled job with nothing left to work is finished (done, or stays cancelled with its end time). */
export async function finishJobIfSettled(db: Db, jobId: string): Promise<void> {
  await db.execute(sql`
    update jobs set state = case when state = 'running' then 'done' else state end, finished_at = now(), updated_at = now()
    where id = ${jobId} and state in ('running', 'cancelled') and finished_at is null
      and not exists (select 1 from job_items i where i.job_id = ${jobId} and i.state in ('pending', 'sent'))
  `);
}

export type JobControl = "pause" | "resume" | "cancel" | "retry";

/** Which controls apply to a job in a given state, for the page's buttons and the actions' checks. */
export function controlsFor(state: JobState, counts: { failed: number }): JobControl[] {
  switch (state) {
    case "running":
      return ["pause", "cancel"];
    case "paused":
      return ["resume", "cancel"];
    case "done":
      return counts.failed > 0 ? ["retry"] : [];
    case "cancelled":
      return [];
  }
}

/**
 * Applies a control in one transaction. Pause: no new calls start (calls in flight finish). Resume: calls start again.
 * Cancel: every pending item is cancelled, those an instance holds while they wait for a budget slot too (its holder
 * then cannot mark them sent, and stops waiting at its next heartbeat); calls in flight finish, unknown outcomes are
 * still checked. Retry: failed items (and the items of their groups skipped because of them) are pending again and
 * the job runs.
 * Returns the job's state after, or null when the control does not apply to the job's state now.
 */
export async function applyControl(db: Db, jobId: string, control: JobControl, by: string): Promise<JobState | null> {
  return db.transaction(async (tx) => {
    const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for("update");
    if (!job) return null;
    const failed = control === "retry" ? await countItems(tx, jobId, "failed") : 0;
    if (!controlsFor(job.state, { failed }).includes(control)) return null;
    const setJob = (state: JobState, finished: boolean) =>
      tx
        .update(jobs)
        .set({ state, finishedAt: finished ? sql`now()` : null, updatedAt: sql`now()` })
        .where(eq(jobs.id, jobId));
    switch (control) {
      case "pause":
        await setJob("paused", false);
        return "paused";
      case "resume":
        await setJob("running", false);
        return "running";
      case "cancel": {
        await tx.execute(sql`
          update job_items set state = 'cancelled', reason = ${`Cancelled by ${by}`}, lease_until = null, not_before = null,
            finished_at = now(), updated_at = now()
          where job_id = ${jobId} and state = 'pending'
        `);
        const [open] = await tx
          .execute<{ n: number }>(
            sql`select count(*)::int as n from job_items where job_id = ${jobId} and state = 'sent'`,
          )
          .then((r) => r.rows);
        await setJob("cancelled", (open?.n ?? 0) === 0);
        return "cancelled";
      }
      case "retry": {
        await tx.execute(sql`
          update job_items s set state = 'pending', reason = null, finished_at = null, updated_at = now()
          where s.job_id = ${jobId} and s.state = 'skipped' and s.group_key is not null
            and exists (select 1 from job_items f where f.job_id = s.job_id and f.group_key = s.group_key and f.seq < s.seq and f.state = 'failed')
        `);
        await tx.execute(sql`
          update job_items set state = 'pending', reason = null, not_before = null, finished_at = null, updated_at = now()
          where job_id = ${jobId} and state = 'failed'
        `);
        await setJob("running", false);
        return "running";
      }
    }
  });
}

async function countItems(db: Db, jobId: string, state: JobItemState): Promise<number> {
  const [row] = await db
    .execute<{ n: number }>(sql`select count(*)::int as n from job_items where job_id = ${jobId} and state = ${state}`)
    .then((r) => r.rows);
  return row?.n ?? 0;
}

/** Results of the settled items before this one in its group, in order (an import's later batches need the link id). */
export async function groupResults(db: Db, item: Pick<JobItem, "jobId" | "groupKey" | "seq">): Promise<unknown[]> {
  if (item.groupKey === null) return [];
  const rows = await db
    .select({ result: jobItems.result })
    .from(jobItems)
    .where(
      and(eq(jobItems.jobId, item.jobId), eq(jobItems.groupKey, item.groupKey), sql`${jobItems.seq} < ${item.seq}`),
    )
    .orderBy(jobItems.seq);
  return rows.map((r) => r.result);
}

export async function readJob(db: Db, jobId: string): Promise<Job | null> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  return job ?? null;
}
