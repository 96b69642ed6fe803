import "server-only";
import { and, desc, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type Job, jobs } from "../db/schema";
import { CORRECTION_KIND } from "./correction";
import { IMPORT_KIND } from "./import-items";
import { readImportSummary } from "./import-outcomes";
import { IMPORT_UNDO_KIND } from "./import-undo";

// What the dashboard's shell needs to tell a person that a long job of theirs ended while they were elsewhere: their
// own jobs that still move, and those that ended lately with what came of them in words. Small on purpose: the shell
// asks every few seconds while one of their jobs runs (components/jobs/job-end-notices.tsx).

/** A job that ran at least this long is worth a notice when it ends; a shorter one ends before anyone looks away. */
export const LONG_JOB_S = 30;
/** Jobs that ended longer ago than this are not mentioned any more. */
export const NOTICE_WINDOW_MS = 10 * 60_000;
const MAX_JOBS = 20;

export interface JobNotice {
  id: string;
  /** Its items still move without anyone touching it: running, or cancelled with calls still to settle. */
  live: boolean;
  /** Done, or cancelled with every call settled. A paused job is neither live nor ended. */
  ended: boolean;
  /** For an ended job that ran LONG_JOB_S or more: "“Import of legacy.json: 50 links” finished: 48 imported, 2 failed." */
  message: string | null;
}

/** Of a done item, per kind: what it did. */
const DONE_WORDS: Record<string, string> = { [CORRECTION_KIND]: "corrected", [IMPORT_UNDO_KIND]: "deleted" };

const plural = (n: number, word: string) => `${n} ${word}`;

/** What came of an ended job, counted over its items (an import's over its file's links). */
async function outcomeOf(db: Db, job: Job): Promise<string> {
  if (job.kind === IMPORT_KIND) {
    const s = await readImportSummary(db, job.id);
    const parts = [plural(s.created, "imported")];
    if (s.alreadyImported) parts.push(plural(s.alreadyImported, "already imported"));
    if (s.failed) parts.push(plural(s.failed, "failed"));
    if (s.cancelled) parts.push(plural(s.cancelled, "cancelled"));
    return parts.join(", ");
  }
  const rows = await db.execute<{ state: string; n: number }>(
    sql`select state, count(*)::int as n from job_items where job_id = ${job.id} group by state`,
  );
  const n = Object.fromEntries(rows.rows.map((r) => [r.state, Number(r.n)])) as Record<string, number | undefined>;
  const parts = [plural(n.done ?? 0, DONE_WORDS[job.kind] ?? "done")];
  for (const state of ["skipped", "failed", "cancelled"] as const) if (n[state]) parts.push(plural(n[state], state));
  return parts.join(", ");
}

/** The person's jobs that move, are paused, or ended in the last NOTICE_WINDOW_MS; newest first, at most MAX_JOBS. */
export async function readJobNotices(db: Db, staffId: string, now = Date.now()): Promise<JobNotice[]> {
  const rows = await db
    .select()
    .from(jobs)
    .where(
      and(
        eq(jobs.createdBy, staffId),
        or(isNull(jobs.finishedAt), gt(jobs.finishedAt, new Date(now - NOTICE_WINDOW_MS))),
      ),
    )
    .orderBy(desc(jobs.createdAt))
    .limit(MAX_JOBS);
  return Promise.all(
    rows.map(async (job) => {
      const ended = job.finishedAt !== null && (job.state === "done" || job.state === "cancelled");
      const live = !ended && (job.state === "running" || job.state === "cancelled");
      const ranLong = ended && job.finishedAt!.getTime() - job.createdAt.getTime() >= LONG_JOB_S * 1000;
      const message = ranLong
        ? `“${job.title}” ${job.state === "done" ? "finished" : "was cancelled"}: ${await outcomeOf(db, job)}.`
        : null;
      return { id: job.id, live, ended, message };
    }),
  );
}
