import "server-only";
import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { getBudget } from "../budget";
import { type Budget, secondsUntil } from "../budget/budget";
import { type KeyHeadroom, describeLimit, estimateTimeLeft, headroomOf } from "../budget/headroom";
import type { BudgetUsage } from "../budget/types";
import type { Db } from "../db/client";
import {
  type Job,
  type JobItemState,
  type JobState,
  importFileRows,
  jobItemStates,
  jobItems,
  jobStates,
  jobs,
} from "../db/schema";
import { csvRecord } from "../http/csv";
import { formatAmount } from "../transactions/rows";
import { CORRECTION_KIND } from "./correction";
import { IMPORT_KIND } from "./import-items";
import { RECONNECT_KIND } from "./reconnect";
import { jobKind } from "./kind-registry";
import type { JobListQuery } from "./filters";
import { type JobControl, controlsFor } from "./store";
import { itemReasonNow, readWaitReason } from "./waits";

// Jobs as people read them: progress, rate and time left, the items with their outcomes, CSV of results and failures.
// Counts and totals come from counting the job's items, never from a page of them.

export type ItemCounts = Record<JobItemState, number>;

/** The job's next calls wait for a rate-limit slot. */
export interface JobWait {
  /**
   * The limit with no room now, in words: "the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment".
   * The endpoint as the spec's table writes it and the scope, never a key's ids.
   */
  limit: string;
  /** Seconds until its next slot frees (or its closure after a 429 ends); at least 1. */
  nextSlotInS: number;
}

export interface JobView {
  id: string;
  kind: string;
  kindLabel: string;
  title: string;
  state: JobState;
  linkId: string | null;
  createdByEmail: string;
  createdAt: string;
  finishedAt: string | null;
  undoesJobId: string | null;
  total: number;
  counts: ItemCounts;
  /** Items settled (done, failed, skipped, cancelled). */
  settled: number;
  /** Items settled in the last minute. */
  perMinute: number;
  /**
   * Seconds left for a running job: the longer of the rate budget's estimate for the calls left (from the start, and
   * counting a wait for slots) and the pace seen lately; while it waits for slots, the budget's alone (the pace stalls
   * then). Null when neither tells (nothing moved yet and the budget has room) or nothing is left.
   */
  etaSeconds: number | null;
  /**
   * Set while a running job's next calls wait for rate-limit slots: the wait its items' calls recorded (what the budget
   * told them), else what the budget's usage says of the kind's endpoint on the job's link. Null otherwise, or when
   * neither can be read.
   */
  waiting: JobWait | null;
  controls: JobControl[];
  /** Whether the job's work can be undone as a job (a finished correction with items done, not undone yet). */
  undoable: boolean;
  /** The job that undoes this one, when there is one: its Undo is not offered again. */
  undoneBy: string | null;
}

const zeroCounts = (): ItemCounts => Object.fromEntries(jobItemStates.map((s) => [s, 0])) as ItemCounts;

/** What the rate budget says of a running job's calls left: whether they wait for a slot, and how long they take. */
interface BudgetOutlook {
  waiting: JobWait | null;
  /** Until the last call left can be sent, at the job's endpoint's limits. */
  seconds: number;
}

/** The pace is taken over the last minute, or since the job started when that is shorter (but at least this long). */
const MIN_PACE_WINDOW_S = 5;

function etaOf(
  job: Job,
  counts: ItemCounts,
  perMinute: number,
  outlook: BudgetOutlook | null,
  wait: JobWait | null,
  now: number,
): number | null {
  const left = counts.pending + counts.sent;
  if (job.state !== "running" || left === 0) return null;
  // The call that waits for a slot now is the next to settle: the pace of the minute before says nothing of it.
  if (wait) return Math.max(outlook?.seconds ?? 0, wait.nextSlotInS);
  const paceWindowS = Math.min(60, Math.max(MIN_PACE_WINDOW_S, (now - job.createdAt.getTime()) / 1000));
  const paceS = perMinute > 0 ? Math.ceil((left / perMinute) * paceWindowS) : null;
  if (paceS !== null) return Math.max(paceS, outlook?.seconds ?? 0);
  return outlook && outlook.seconds > 0 ? outlook.seconds : null;
}

interface ViewInputs {
  counts: ItemCounts;
  perMinute: number;
  outlook: BudgetOutlook | null;
  /** The wait its items' calls recorded, when one does now. */
  recorded: JobWait | null;
  undoneBy: string | null;
}

function toView(job: Job, { counts, perMinute, outlook, recorded, undoneBy }: ViewInputs, now: number): JobView {
  const settled = counts.done + counts.failed + counts.skipped + counts.cancelled;
  const wait =
    job.state === "running" && counts.pending + counts.sent > 0 ? (recorded ?? outlook?.waiting ?? null) : null;
  const kind = jobKind(job.kind);
  const finished = job.state === "done" || job.state === "cancelled";
  return {
    id: job.id,
    kind: job.kind,
    kindLabel: kind?.label ?? job.kind,
    title: job.title,
    state: job.state,
    linkId: job.linkId,
    createdByEmail: job.createdByEmail,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    undoesJobId: job.undoesJobId,
    // Counted, as the counts are: they always add up to it.
    total: jobItemStates.reduce((n, state) => n + counts[state], 0),
    counts,
    settled,
    perMinute,
    etaSeconds: etaOf(job, counts, perMinute, outlook, wait, now),
    waiting: wait,
    controls: controlsFor(job.state, counts),
    undoable: finished && job.kind === "correction" && job.undoesJobId === null && counts.done > 0 && undoneBy === null,
    undoneBy,
  };
}

/** The newest job undoing each of `jobIds` (an undo job is a correction job that names the one it undoes). */
async function undoJobsOf(db: Db, jobIds: string[]): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  if (jobIds.length === 0) return result;
  const rows = await db
    .select({ id: jobs.id, undoes: jobs.undoesJobId })
    .from(jobs)
    .where(and(inArray(jobs.undoesJobId, jobIds), eq(jobs.kind, "correction")))
    .orderBy(jobs.createdAt);
  for (const row of rows) if (row.undoes) result.set(row.undoes, row.id);
  return result;
}

async function countsOf(db: Db, jobIds: string[]): Promise<Map<string, { counts: ItemCounts; perMinute: number }>> {
  const result = new Map<string, { counts: ItemCounts; perMinute: number }>();
  if (jobIds.length === 0) return result;
  const rows = await db.execute<{ job_id: string; state: JobItemState; n: number; recent: number }>(sql`
    select job_id, state, count(*)::int as n,
      count(*) filter (where finished_at > now() - interval '60 seconds')::int as recent
    from job_items where job_id in ${sql`(${sql.join(
      jobIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})`}
    group by job_id, state
  `);
  for (const row of rows.rows) {
    const entry = result.get(row.job_id) ?? { counts: zeroCounts(), perMinute: 0 };
    entry.counts[row.state] = Number(row.n);
    entry.perMinute += Number(row.recent);
    result.set(row.job_id, entry);
  }
  return result;
}

export interface JobViewOptions {
  /** The rate budget the jobs' calls wait on: by default this process's (lib/budget); null leaves the budget out. */
  budget?: Budget | null;
  /** Milliseconds since the epoch; for tests. */
  now?: number;
}

/** This process's budget, or null when it cannot be had (a test or script without the upstream's settings). */
async function budgetFor(opts: JobViewOptions): Promise<Budget | null> {
  if (opts.budget !== undefined) return opts.budget;
  return getBudget().catch(() => null);
}

/**
 * The budget's outlook for each running job with calls left, from one read of the budget's usage. The keys are those
 * of the kind's endpoint on the job's link. An unreadable budget (its database away) leaves the outlooks out: the page
 * still shows the counts and the pace.
 */
async function outlooksOf(
  opts: JobViewOptions,
  entries: { job: Job; counts: ItemCounts }[],
  now: number,
): Promise<Map<string, BudgetOutlook>> {
  const outlooks = new Map<string, BudgetOutlook>();
  const open = entries.filter(
    ({ job, counts }) => job.state === "running" && counts.pending > 0 && jobKind(job.kind) !== undefined,
  );
  if (open.length === 0) return outlooks;
  const budget = await budgetFor(opts);
  if (!budget) return outlooks;
  const keysOf = (job: Job) => budget.keys(jobKind(job.kind)!.endpoint, { linkId: job.linkId ?? undefined });
  const windowMs = open.map(({ job }) => keysOf(job)[0]?.windowMs).find((w) => w !== undefined);
  if (windowMs === undefined) return outlooks;
  let usage: BudgetUsage;
  try {
    usage = await budget.store.usage(windowMs);
  } catch {
    return outlooks;
  }
  for (const { job, counts } of open) {
    const headrooms = keysOf(job).map((key) => headroomOf(key, usage, now));
    const estimate = estimateTimeLeft(counts.pending, headrooms, now);
    if (estimate) outlooks.set(job.id, { waiting: waitOf(headrooms, now), seconds: estimate.seconds });
  }
  return outlooks;
}

/** The key with no room now whose next slot frees last: what the next call waits for. */
function waitOf(headrooms: KeyHeadroom[], now: number): JobWait | null {
  let blocked: KeyHeadroom | null = null;
  for (const h of headrooms) {
    if (h.remaining > 0 || !h.nextSlotAt) continue;
    if (!blocked || h.nextSlotAt.getTime() > blocked.nextSlotAt!.getTime()) blocked = h;
  }
  return blocked
    ? {
        limit: describeLimit(blocked.key, blocked.closedUntil !== null),
        nextSlotInS: secondsUntil(blocked.nextSlotAt!, now),
      }
    : null;
}

/**
 * The waits running jobs' items recorded (store.recordWait): per job, of the items whose holder still holds them, the
 * wait whose slot frees first. A lapsed holder's wait is nobody's, and one whose slot has come is over.
 */
async function recordedWaitsOf(db: Db, jobIds: string[], now: number): Promise<Map<string, JobWait>> {
  const result = new Map<string, JobWait>();
  if (jobIds.length === 0) return result;
  const rows = await db.execute<{ job_id: string; reason: string | null }>(sql`
    select job_id, reason from job_items
    where job_id in ${sql`(${sql.join(
      jobIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})`}
      and state in ('pending', 'sent') and lease_until > now() and reason like 'Waiting for %'
  `);
  const firsts = new Map<string, { limit: string; until: Date }>();
  for (const row of rows.rows) {
    const wait = readWaitReason(row.reason);
    if (!wait || wait.until.getTime() <= now) continue;
    const seen = firsts.get(row.job_id);
    if (!seen || wait.until < seen.until) firsts.set(row.job_id, wait);
  }
  for (const [jobId, wait] of firsts)
    result.set(jobId, { limit: wait.limit, nextSlotInS: secondsUntil(wait.until, now) });
  return result;
}

export async function readJobView(db: Db, jobId: string, opts: JobViewOptions = {}): Promise<JobView | null> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) return null;
  const entry = (await countsOf(db, [job.id])).get(job.id);
  const counts = entry?.counts ?? zeroCounts();
  const now = opts.now ?? Date.now();
  const outlook = (await outlooksOf(opts, [{ job, counts }], now)).get(job.id) ?? null;
  const recorded = job.state === "running" ? ((await recordedWaitsOf(db, [job.id], now)).get(job.id) ?? null) : null;
  const undoneBy = (await undoJobsOf(db, [job.id])).get(job.id) ?? null;
  return toView(job, { counts, perMinute: entry?.perMinute ?? 0, outlook, recorded, undoneBy }, now);
}

export type JobListFilters = JobListQuery & { limit?: number };

/** Newest first, with when they were read (relative times in the list count from it). */
export async function listJobs(
  db: Db,
  filters: JobListFilters = {},
  opts: JobViewOptions = {},
): Promise<{ jobs: JobView[]; readAt: Date }> {
  const readAt = new Date();
  const conditions = [
    filters.state ? eq(jobs.state, filters.state) : undefined,
    filters.kind ? eq(jobs.kind, filters.kind) : undefined,
    filters.linkId ? eq(jobs.linkId, filters.linkId) : undefined,
  ].filter((c) => c !== undefined);
  const rows = await db
    .select()
    .from(jobs)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(filters.limit ?? 100);
  const counts = await countsOf(
    db,
    rows.map((r) => r.id),
  );
  const entries = rows.map((job) => ({
    job,
    counts: counts.get(job.id)?.counts ?? zeroCounts(),
    perMinute: counts.get(job.id)?.perMinute ?? 0,
  }));
  const now = opts.now ?? readAt.getTime();
  const outlooks = await outlooksOf(opts, entries, now);
  const recorded = await recordedWaitsOf(
    db,
    rows.filter((r) => r.state === "running").map((r) => r.id),
    now,
  );
  const undone = await undoJobsOf(
    db,
    rows.map((r) => r.id),
  );
  const views = entries.map(({ job, counts, perMinute }) =>
    toView(
      job,
      {
        counts,
        perMinute,
        outlook: outlooks.get(job.id) ?? null,
        recorded: recorded.get(job.id) ?? null,
        undoneBy: undone.get(job.id) ?? null,
      },
      now,
    ),
  );
  return { jobs: views, readAt };
}

export function isJobState(value: string | null | undefined): value is JobState {
  return value !== null && value !== undefined && (jobStates as readonly string[]).includes(value);
}

export function isItemState(value: string | null | undefined): value is JobItemState {
  return value !== null && value !== undefined && (jobItemStates as readonly string[]).includes(value);
}

export interface JobItemView {
  id: number;
  seq: number;
  state: JobItemState;
  /** The link the item's call works on: its own, or the job's. */
  linkId: string | null;
  targetId: string | null;
  /**
   * The item as people know it: a corrected transaction by its date, description and amount; an import's step by
   * the file's line, customer and institution. Its id when nothing more was recorded.
   */
  label: string;
  attempts: number;
  upstreamStatus: number | null;
  upstreamErrorCode: string | null;
  reason: string | null;
  result: string | null;
  correlationId: string | null;
  finishedAt: string | null;
}

/** The line of an import's file an item came from (import_file_rows). */
export interface FileLine {
  line: number;
  customerUserId: string | null;
  institutionId: string | null;
}

const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const count = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;

/** "2024-03-05 · Blue Bottle Coffee · −$4.50"; the transaction's id for items planned before these were recorded. */
function correctionLabel(input: Record<string, unknown>): string | undefined {
  const amount = typeof input.amount === "number" && Number.isFinite(input.amount) ? input.amount : undefined;
  const currency = text(input.currency);
  const description = text(input.description);
  const money =
    amount !== undefined && currency
      ? formatAmount({ amount, currency, direction: input.direction === "credit" ? "credit" : "debit" })
      : undefined;
  if (!description && !money) return text(input.transactionId);
  return [text(input.date)?.slice(0, 10), description ?? "no description", money]
    .filter((p) => p !== undefined)
    .join(" · ");
}

/** The step of an import an item is: the import call, a batch of transactions, a category correction. */
function importStep(input: Record<string, unknown>): string | undefined {
  if (input.step === "link") return "the import";
  if (input.step === "batch") return count(input.batch) !== undefined ? `batch ${count(input.batch)}` : "a batch";
  if (input.step === "category")
    return text(input.originalId) ? `category correction of ${text(input.originalId)}` : "a category correction";
  return undefined;
}

/** "Line 12 · customer user-7 · institution chase · batch 2"; the file's position when its line is not recorded. */
function importLabel(input: Record<string, unknown>, file: FileLine | null): string | undefined {
  const position = count(input.position);
  const where = file
    ? [
        `Line ${file.line}`,
        text(file.customerUserId) && `customer ${text(file.customerUserId)}`,
        text(file.institutionId) && `institution ${text(file.institutionId)}`,
      ]
    : [position !== undefined ? `Link ${position + 1} of the file` : undefined];
  const parts = [...where, importStep(input)].filter((p): p is string => typeof p === "string" && p !== "");
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** What a job's item is called on its page and in its CSV (`file` for an import's item: the line it came from). */
export function itemLabel(
  kind: string,
  item: { seq: number; targetId: string | null; input: unknown },
  file: FileLine | null = null,
): string {
  const input = item.input !== null && typeof item.input === "object" ? (item.input as Record<string, unknown>) : {};
  const label =
    kind === CORRECTION_KIND
      ? correctionLabel(input)
      : kind === IMPORT_KIND
        ? importLabel(input, file)
        : kind === RECONNECT_KIND
          ? text(input.about)
          : undefined;
  return label ?? text(item.targetId) ?? `Item ${item.seq + 1}`;
}

export const ITEMS_PAGE_SIZE = 100;

type ItemsJob = Pick<Job, "id" | "kind"> & { linkId?: string | null };

/** One page of a job's items in order, optionally of one state; `after` is the last seq of the previous page. */
export async function listJobItems(
  db: Db,
  job: ItemsJob,
  opts: { state?: JobItemState; after?: number; limit?: number } = {},
): Promise<JobItemView[]> {
  const kind = jobKind(job.kind);
  // An import's items name the file's line they came from: joined by the item's position in the file.
  const fileLine =
    job.kind === IMPORT_KIND
      ? and(
          eq(importFileRows.jobId, jobItems.jobId),
          eq(importFileRows.position, sql`(${jobItems.input}->>'position')::int`),
        )
      : sql`false`;
  const rows = await db
    .select({
      item: jobItems,
      line: importFileRows.line,
      customerUserId: importFileRows.customerUserId,
      institutionId: importFileRows.institutionId,
    })
    .from(jobItems)
    .leftJoin(importFileRows, fileLine)
    .where(
      and(
        eq(jobItems.jobId, job.id),
        opts.state ? eq(jobItems.state, opts.state) : undefined,
        opts.after !== undefined ? gt(jobItems.seq, opts.after) : undefined,
      ),
    )
    .orderBy(asc(jobItems.seq))
    .limit(opts.limit ?? ITEMS_PAGE_SIZE);
  const now = Date.now();
  return rows.map(({ item: row, line, customerUserId, institutionId }) => ({
    id: row.id,
    seq: row.seq,
    state: row.state,
    linkId: row.linkId ?? job.linkId ?? null,
    targetId: row.targetId,
    label: itemLabel(job.kind, row, line === null ? null : { line, customerUserId, institutionId }),
    attempts: row.attempts,
    upstreamStatus: row.upstreamStatus,
    upstreamErrorCode: row.upstreamErrorCode,
    // A recorded wait for a slot, worded for now ("next slot in 12 s"), or nothing once it is over.
    reason: itemReasonNow(row.reason, row.leaseUntil !== null && row.leaseUntil.getTime() > now),
    result: row.result === null ? null : (kind?.describeResult?.(row.result) ?? JSON.stringify(row.result)),
    correlationId: row.correlationId,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  }));
}

const CSV_HEADER = [
  "seq",
  "item",
  "state",
  "link_id",
  "target",
  "attempts",
  "upstream_status",
  "upstream_error_code",
  "reason",
  "result",
  "correlation_id",
  "finished_at",
];

/** Every item of a job (or of one state) as CSV lines, a thousand at a time. */
export async function* streamJobItemsCsv(
  db: Db,
  job: ItemsJob,
  state?: JobItemState,
): AsyncGenerator<string, void, unknown> {
  yield csvRecord(CSV_HEADER);
  let after: number | undefined;
  for (;;) {
    const page = await listJobItems(db, job, { state, after, limit: 1000 });
    if (page.length === 0) return;
    yield page
      .map((i) =>
        csvRecord([
          i.seq,
          i.label,
          i.state,
          i.linkId,
          i.targetId,
          i.attempts,
          i.upstreamStatus,
          i.upstreamErrorCode,
          i.reason,
          i.result,
          i.correlationId,
          i.finishedAt,
        ]),
      )
      .join("");
    after = page[page.length - 1]!.seq;
  }
}
