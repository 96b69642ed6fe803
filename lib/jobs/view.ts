import "server-only";
import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type Job, type JobItemState, type JobState, jobItemStates, jobItems, jobStates, jobs } from "../db/schema";
import { csvRecord } from "../http/csv";
import { jobKind } from "./kinds";
import type { JobListQuery } from "./filters";
import { type JobControl, controlsFor } from "./store";

// Jobs as people read them: progress, rate and time left, the items with their outcomes, CSV of results and failures.

export type ItemCounts = Record<JobItemState, number>;

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
  /** Seconds left at the last minute's pace; null when nothing moved in the last minute or nothing is left. */
  etaSeconds: number | null;
  controls: JobControl[];
  /** Whether the job's work can be undone as a job (a finished correction with items done). */
  undoable: boolean;
}

const zeroCounts = (): ItemCounts => Object.fromEntries(jobItemStates.map((s) => [s, 0])) as ItemCounts;

function toView(job: Job, counts: ItemCounts, perMinute: number): JobView {
  const settled = counts.done + counts.failed + counts.skipped + counts.cancelled;
  const left = counts.pending + counts.sent;
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
    total: job.total,
    counts,
    settled,
    perMinute,
    etaSeconds: job.state === "running" && left > 0 && perMinute > 0 ? Math.ceil((left / perMinute) * 60) : null,
    controls: controlsFor(job.state, counts),
    undoable: finished && job.kind === "correction" && job.undoesJobId === null && counts.done > 0,
  };
}

async function countsOf(db: Db, jobIds: string[]): Promise<Map<string, { counts: ItemCounts; perMinute: number }>> {
  const result = new Map<string, { counts: ItemCounts; perMinute: number }>();
  if (jobIds.length === 0) return result;
  const rows = await db.execute<{ job_id: string; state: JobItemState; n: number; recent: number }>(sql`
    select job_id, state, count(*)::int as n,
      count(*) filter (where finished_at > now() - interval '60 seconds')::int as recent
    from job_items where job_id in ${sql`(${sql.join(jobIds.map((id) => sql`${id}::uuid`), sql`, `)})`}
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

export async function readJobView(db: Db, jobId: string): Promise<JobView | null> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) return null;
  const entry = (await countsOf(db, [job.id])).get(job.id);
  return toView(job, entry?.counts ?? zeroCounts(), entry?.perMinute ?? 0);
}

export type JobListFilters = JobListQuery & { limit?: number };

/** Newest first, with when they were read (relative times in the list count from it). */
export async function listJobs(db: Db, filters: JobListFilters = {}): Promise<{ jobs: JobView[]; readAt: Date }> {
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
  const counts = await countsOf(db, rows.map((r) => r.id));
  const views = rows.map((job) => {
    const entry = counts.get(job.id);
    return toView(job, entry?.counts ?? zeroCounts(), entry?.perMinute ?? 0);
  });
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
  linkId: string | null;
  targetId: string | null;
  attempts: number;
  upstreamStatus: number | null;
  upstreamErrorCode: string | null;
  reason: string | null;
  result: string | null;
  correlationId: string | null;
  finishedAt: string | null;
}

export const ITEMS_PAGE_SIZE = 100;

/** One page of a job's items in order, optionally of one state; `after` is the last seq of the previous page. */
export async function listJobItems(db: Db, job: Pick<Job, "id" | "kind">, opts: { state?: JobItemState; after?: number; limit?: number } = {}): Promise<JobItemView[]> {
  const kind = jobKind(job.kind);
  const rows = await db
    .select()
    .from(jobItems)
    .where(
      and(
        eq(jobItems.jobId, job.id),
        opts.state ? eq(jobItems.state, opts.state) : undefined,
        opts.after !== undefined ? gt(jobItems.seq, opts.after) : undefined,
      ),
    )
    .orderBy(asc(jobItems.seq))
    .limit(opts.limit ?? ITEMS_PAGE_SIZE);
  return rows.map((row) => ({
    id: row.id,
    seq: row.seq,
    state: row.state,
    linkId: row.linkId,
    targetId: row.targetId,
    attempts: row.attempts,
    upstreamStatus: row.upstreamStatus,
    upstreamErrorCode: row.upstreamErrorCode,
    reason: row.reason,
    result: row.result === null ? null : (kind?.describeResult?.(row.result) ?? JSON.stringify(row.result)),
    correlationId: row.correlationId,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  }));
}

const CSV_HEADER = ["seq", "state", "link_id", "target", "attempts", "upstream_status", "upstream_error_code", "reason", "result", "correlation_id", "finished_at"];

/** Every item of a job (or of one state) as CSV lines, a thousand at a time. */
export async function* streamJobItemsCsv(db: Db, job: Pick<Job, "id" | "kind">, state?: JobItemState): AsyncGenerator<string, void, unknown> {
  yield csvRecord(CSV_HEADER);
  let after: number | undefined;
  for (;;) {
    const page = await listJobItems(db, job, { state, after, limit: 1000 });
    if (page.length === 0) return;
    yield page
      .map((i) =>
        csvRecord([i.seq, i.state, i.linkId, i.targetId, i.attempts, i.upstreamStatus, i.upstreamErrorCode, i.reason, i.result, i.correlationId, i.finishedAt]),
      )
      .join("");
    after = page[page.length - 1]!.seq;
  }
}
