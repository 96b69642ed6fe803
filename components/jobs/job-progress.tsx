"use client";

import Link from "next/link";
import { useEffect } from "react";
import { describeDuration } from "@/lib/budget/headroom";
import type { JobView } from "@/lib/jobs/view";
import { JobStateChip } from "./job-state-chip";
import { announceLiveJob, useJobOnScreen } from "./job-on-screen";
import { jobIsLive, useJob, useRefreshOnMovement } from "./use-job";

/**
 * A job's progress where it was started (and on its page): bar, counts, pace and time left, then a summary. With
 * `refreshPage`, what the server rendered around it (the job page's state chips and items table) follows each poll
 * until the job's last item settles.
 */
export function JobProgress({
  jobId,
  initial,
  showLink = true,
  refreshPage = false,
}: {
  jobId: string;
  initial?: JobView;
  showLink?: boolean;
  refreshPage?: boolean;
}) {
  const { data: job, error } = useJob(jobId, initial);
  useRefreshOnMovement(job, initial, refreshPage);
  useJobOnScreen(jobId);
  const live = jobIsLive(job);
  useEffect(() => {
    // The shell's notices start following the person's jobs as soon as one they look at runs.
    if (live) announceLiveJob(jobId);
  }, [jobId, live]);
  if (!job)
    return (
      <p className="text-sm text-slate-600">
        {error ? `Progress unavailable (${error.message}); retrying.` : "Starting…"}
      </p>
    );
  const percent = job.total === 0 ? 100 : Math.round((job.settled / job.total) * 100);
  return (
    <div className="w-full space-y-1" data-testid="job-progress">
      <div className="flex items-center gap-2 text-sm">
        <JobStateChip state={job.state} />
        <span className="font-medium text-slate-900">{job.title}</span>
        {showLink ? (
          <Link href={`/jobs/${job.id}`} className="ml-auto text-indigo-700 underline">
            Job details
          </Link>
        ) : null}
      </div>
      <div
        role="progressbar"
        aria-label={`Progress of ${job.title}`}
        aria-valuemin={0}
        aria-valuemax={job.total}
        aria-valuenow={job.settled}
        className="h-2 w-full overflow-hidden rounded bg-slate-200"
      >
        <div className="h-full bg-indigo-600 transition-[width]" style={{ width: `${percent}%` }} />
      </div>
      <p role="status" className="text-sm text-slate-700">
        {summary(job)}
      </p>
      {error ? <p className="text-xs text-amber-800">Progress unavailable ({error.message}); retrying.</p> : null}
    </div>
  );
}

const finite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

/** A job's progress in one sentence; a figure the server did not send (an older instance's answer) is left out. */
export function summary(job: JobView): string {
  const { counts } = job;
  const parts = [`${counts.done} done`];
  if (counts.skipped) parts.push(`${counts.skipped} skipped`);
  if (counts.failed) parts.push(`${counts.failed} failed`);
  if (counts.cancelled) parts.push(`${counts.cancelled} cancelled`);
  const tally = `${parts.join(", ")} of ${job.total}`;
  switch (job.state) {
    case "done":
      return `Finished: ${tally}.`;
    case "cancelled":
      return counts.sent > 0
        ? `Cancelling: ${tally}; ${counts.sent} call${counts.sent === 1 ? "" : "s"} in flight to settle.`
        : `Cancelled: ${tally}.`;
    case "paused":
      return `Paused: ${tally}. Nothing is sent until it is resumed.`;
    case "running": {
      const pace = finite(job.perMinute) && job.perMinute > 0 ? `, ${job.perMinute}/min` : "";
      const left = finite(job.etaSeconds) ? `${describeDuration(job.etaSeconds)} left` : null;
      const waiting =
        job.waiting && finite(job.waiting.nextSlotInS) && typeof job.waiting.limit === "string" ? job.waiting : null;
      if (waiting) {
        return `${tally}${pace}. Waiting for ${waiting.limit}, next slot in ${waiting.nextSlotInS} s${left ? `; ${left}` : ""}.`;
      }
      return `${tally}${pace}${left ? `, ${left}` : ""}.`;
    }
  }
}
