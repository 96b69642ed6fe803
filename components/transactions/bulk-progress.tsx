"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

interface JobView {
  status: "running" | "done" | "interrupted";
  total: number;
  done: number;
  failed: number;
  eta: string | null;
  lastError: string | null;
}

function secondsLeft(eta: string | null): number {
  return eta ? Math.max(0, Math.ceil((Date.parse(eta) - Date.now()) / 1000)) : 0;
}

/** Follows a bulk job until it ends: how many are done, how many failed, and about how long is left. */
export function BulkProgress({ jobId }: { jobId: string }) {
  const router = useRouter();
  const [job, setJob] = useState<JobView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let stopped = false;
    const poll = async () => {
      try {
        const response = await fetch(`/api/jobs/${jobId}`, { cache: "no-store" });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const next = (await response.json()) as JobView;
        if (stopped) return;
        setJob(next);
        setProblem(null);
        if (next.status === "running") setTimeout(poll, 1500);
        else router.refresh();
      } catch (error) {
        if (stopped) return;
        setProblem(`Progress unavailable (${error instanceof Error ? error.message : "error"}); retrying.`);
        setTimeout(poll, 3000);
      }
    };
    void poll();
    return () => {
      stopped = true;
    };
  }, [jobId, router]);

  if (!job) return <p className="text-sm text-slate-600">{problem ?? "Starting…"}</p>;
  const finished = job.done + job.failed;
  return (
    <div className="w-full space-y-1" data-testid="bulk-progress">
      <div role="progressbar" aria-label="Bulk correction progress" aria-valuemin={0} aria-valuemax={job.total} aria-valuenow={finished} className="h-2 w-full overflow-hidden rounded bg-slate-200">
        <div className="h-full bg-indigo-600" style={{ width: `${Math.round((finished / job.total) * 100)}%` }} />
      </div>
      <p role="status" className="text-sm text-slate-700">
        {job.status === "done"
          ? `Done: ${job.done} of ${job.total} corrected${job.failed ? `, ${job.failed} failed (${job.lastError})` : ""}.`
          : job.status === "interrupted"
            ? `Interrupted after ${finished} of ${job.total}: the server working on it stopped. Start again for the rest.`
            : `${finished} of ${job.total} done, ${secondsLeft(job.eta) > 0 ? `about ${secondsLeft(job.eta)} s left (waiting for rate-limit slots)` : "finishing"}.`}
      </p>
      {problem ? <p className="text-xs text-amber-800">{problem}</p> : null}
    </div>
  );
}
