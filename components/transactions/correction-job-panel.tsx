"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { JobControls } from "@/components/jobs/job-controls";
import { JobProgress } from "@/components/jobs/job-progress";
import { jobIsLive, useJob } from "@/components/jobs/use-job";
import type { JobItemView } from "@/lib/jobs/view";

// A bulk correction where it was started: progress while it runs (the job runs on the server and survives a reload:
// its id is in the page's URL), then a summary with the reasons of what was skipped or failed, and the job's controls
// (pause, cancel, retry, undo the whole job).

async function items(jobId: string, state: "failed" | "skipped"): Promise<JobItemView[]> {
  const response = await fetch(`/api/jobs/${jobId}/items?state=${state}`, { cache: "no-store" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as JobItemView[];
}

function Reasons({ title, list, jobId, state }: { title: string; list: JobItemView[]; jobId: string; state: string }) {
  if (list.length === 0) return null;
  const byReason = new Map<string, number>();
  for (const item of list)
    byReason.set(item.reason ?? "No reason recorded", (byReason.get(item.reason ?? "No reason recorded") ?? 0) + 1);
  return (
    <div className="text-sm">
      <p className="font-medium text-slate-800">{title}</p>
      <ul className="list-disc pl-5 text-slate-700">
        {[...byReason].map(([reason, n]) => (
          <li key={reason}>
            {n} × {reason}
          </li>
        ))}
      </ul>
      <Link href={`/jobs/${jobId}?state=${state}`} className="text-xs text-indigo-700 underline">
        Each one on the job&apos;s page
      </Link>
    </div>
  );
}

export function CorrectionJobPanel({
  linkId,
  jobId,
  canCorrect,
  onClose,
  onJob,
}: {
  linkId: string;
  jobId: string;
  canCorrect: boolean;
  onClose: () => void;
  /** Follow another job here (an undo started from this panel): the person stays on the link. */
  onJob: (jobId: string) => void;
}) {
  const client = useQueryClient();
  const { data: job } = useJob(jobId);
  const finished = job !== undefined && !jobIsLive(job);
  const failed = useQuery({
    queryKey: ["job-items", jobId, "failed"],
    queryFn: () => items(jobId, "failed"),
    enabled: finished && (job?.counts.failed ?? 0) > 0,
  });
  const skipped = useQuery({
    queryKey: ["job-items", jobId, "skipped"],
    queryFn: () => items(jobId, "skipped"),
    enabled: finished && (job?.counts.skipped ?? 0) > 0,
  });

  // The server's copy of the link took every correction as it was answered: show them.
  const settled = job?.settled ?? 0;
  useEffect(() => {
    if (settled > 0) void client.invalidateQueries({ queryKey: ["transactions", linkId] });
  }, [client, linkId, settled, finished]);

  return (
    <section
      aria-label="Bulk correction"
      className="space-y-2 rounded-lg border border-slate-200 bg-white p-3"
      data-testid="correction-job"
    >
      <div className="flex items-start gap-2">
        <div className="min-w-0 flex-1">
          <JobProgress jobId={jobId} />
        </div>
        <button
          type="button"
          onClick={onClose}
          className="text-sm text-slate-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          Hide
        </button>
      </div>
      {finished ? (
        <div className="space-y-2" data-testid="job-summary">
          <Reasons title="Skipped" list={skipped.data ?? []} jobId={jobId} state="skipped" />
          <Reasons title="Failed" list={failed.data ?? []} jobId={jobId} state="failed" />
        </div>
      ) : null}
      {job ? <JobControls initial={job} canControl={canCorrect} canUndo={canCorrect} onUndone={onJob} /> : null}
    </section>
  );
}
