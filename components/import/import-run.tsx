"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAction } from "next-safe-action/hooks";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { JobControls } from "@/components/jobs/job-controls";
import { JobProgress } from "@/components/jobs/job-progress";
import { JOB_POLL_MS, jobIsLive, jobQueryKey, useJob } from "@/components/jobs/use-job";
import { ScrollTable } from "@/components/ui/scroll-table";
import { resumeImport } from "@/lib/actions/import";
import type { ImportLinkOutcome, ImportSummary } from "@/lib/jobs/import-outcomes";
import { RECONCILIATION_OUTCOMES } from "@/lib/import/reconcile";
import type { JobView } from "@/lib/jobs/view";
import { useHydrated } from "@/components/ui/use-hydrated";
import { UndoImport } from "./undo-import";

// A running or finished import: progress and controls (the job engine's), and each link's result as it lands. The job
// lives on the server: a reload (the job id is in the URL) picks it up where it is.

const STATE_LABELS: Record<string, string> = {
  waiting: "Waiting",
  importing: "Importing",
  done: "Imported",
  failed: "Failed",
  skipped: "Skipped",
  cancelled: "Cancelled",
  pending: "Waiting",
  sent: "Checking",
};

function linkStateLabel(o: ImportLinkOutcome): string {
  if (!o.linkState) return "–";
  if (o.linkState === "error" && o.errorCode === "auth_expired") return "Disconnected (auth_expired)";
  return o.errorCode ? `${o.linkState} (${o.errorCode})` : o.linkState;
}

export function ImportRun({ initial, canControl }: { initial: JobView; canControl: boolean }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const { data: job = initial } = useJob(initial.id, initial);
  const live = jobIsLive(job);
  const outcomes = useQuery({
    // Keyed by whether the job still runs: its end starts one last fetch, so the last results show.
    queryKey: ["import-links", initial.id, live],
    queryFn: async () => {
      const response = await fetch(`/api/import/${initial.id}`, { cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return (await response.json()) as { links: ImportLinkOutcome[]; summary: ImportSummary };
    },
    refetchInterval: live ? JOB_POLL_MS : false,
    placeholderData: keepPreviousData,
  });
  // The last poll may come before the last item settles: read the results once more when the job stops.
  const { refetch: refetchOutcomes } = outcomes;
  useEffect(() => {
    if (!live) void refetchOutcomes();
  }, [live, refetchOutcomes]);
  const resume = useAction(resumeImport, {
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: jobQueryKey(initial.id) });
      router.refresh();
    },
  });
  const links = outcomes.data?.links ?? [];
  const summary = outcomes.data?.summary;
  const hydrated = useHydrated();
  const resumable = canControl && job.state === "cancelled" && job.counts.cancelled > 0 && job.counts.sent === 0;

  return (
    <section
      aria-labelledby="import-run"
      className="space-y-4 rounded-lg border border-slate-200 bg-white p-4"
      data-testid="import-run"
    >
      <h2 id="import-run" className="sr-only">
        Import progress
      </h2>
      <JobProgress jobId={initial.id} initial={initial} />
      <div className="flex flex-wrap items-center gap-3">
        <JobControls initial={initial} canControl={canControl} canUndo={false} />
        {resumable ? (
          <button
            type="button"
            className="rounded border border-indigo-600 bg-indigo-600 px-2.5 py-1 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
            disabled={resume.isPending || !hydrated}
            onClick={() => resume.execute({ jobId: initial.id })}
          >
            Resume the import ({job.counts.cancelled} calls left)
          </button>
        ) : null}
        {resume.result.serverError ? (
          <p role="alert" className="text-sm text-red-700">
            {resume.result.serverError}
          </p>
        ) : null}
        <span className="ml-auto flex gap-3 text-sm">
          <a className="text-indigo-700 underline" href={`/import/${initial.id}/export`}>
            Reconciliation, every line (CSV)
          </a>
          <a className="text-indigo-700 underline" href={`/jobs/${initial.id}/export?state=failed`}>
            Failures (CSV)
          </a>
          <a className="text-indigo-700 underline" href={`/jobs/${initial.id}/export`}>
            Every call (CSV)
          </a>
        </span>
      </div>
      {canControl && summary && summary.created > 0 ? (
        <UndoImport jobId={initial.id} finished={!live && job.state !== "running" && job.state !== "paused"} />
      ) : null}
      {summary ? (
        <p className="text-sm text-slate-700" role="status" data-testid="links-imported">
          {summary.created.toLocaleString("en-US")} of {summary.planned.toLocaleString("en-US")} new link
          {summary.planned === 1 ? "" : "s"} created
          {summary.failed > 0 ? `, ${summary.failed.toLocaleString("en-US")} failed` : ""}
          {summary.cancelled > 0 ? `, ${summary.cancelled.toLocaleString("en-US")} cancelled` : ""}. Of the file&rsquo;s{" "}
          {summary.rows.toLocaleString("en-US")} {summary.rows === 1 ? "line" : "lines"}:{" "}
          {summary.alreadyImported.toLocaleString("en-US")} already imported,{" "}
          {summary.atUpstream > 0
            ? `${summary.atUpstream.toLocaleString("en-US")} at the upstream already (${summary.updating.toLocaleString("en-US")} updated there), `
            : ""}
          {summary.undecided > 0 ? `${summary.undecided.toLocaleString("en-US")} left for you to decide, ` : ""}
          {summary.duplicates.toLocaleString("en-US")} listed twice, {summary.invalid.toLocaleString("en-US")} invalid.
          {summary.rows > links.length
            ? ` The first ${links.length.toLocaleString("en-US")} lines are listed; the CSV has every line.`
            : ""}
        </p>
      ) : null}
      <ScrollTable className="rounded border border-slate-200">
        <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Results per link">
          <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-600">
            <tr>
              <th className="px-3 py-2">Line</th>
              <th className="px-3 py-2">Outcome</th>
              <th className="px-3 py-2">Customer</th>
              <th className="px-3 py-2">Link</th>
              <th className="px-3 py-2">State</th>
              <th className="px-3 py-2 text-right">Transactions</th>
              <th className="px-3 py-2 text-right">Calls</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {links.map((o) => (
              <tr key={o.position}>
                <td className="px-3 py-2 tabular-nums text-slate-500">{o.line}</td>
                {/* The reason sits under the outcome: a column of its own was off screen at 1024 px. */}
                <td className="max-w-md px-3 py-2">
                  {o.outcome === "pending"
                    ? (STATE_LABELS[o.state] ?? "In progress")
                    : RECONCILIATION_OUTCOMES[o.outcome]}
                  {o.reason ? <p className="mt-0.5 text-xs text-slate-600">{o.reason}</p> : null}
                </td>
                <td className="max-w-40 truncate px-3 py-2" title={o.customerUserId ?? undefined}>
                  {o.customerUserId ?? "–"}
                </td>
                <td className="px-3 py-2 font-mono text-xs">
                  {o.linkId ? (
                    <Link className="text-indigo-700 underline" href={`/links/${encodeURIComponent(o.linkId)}`}>
                      {o.linkId}
                    </Link>
                  ) : (
                    "–"
                  )}
                </td>
                <td className="px-3 py-2">{linkStateLabel(o)}</td>
                <td className="px-3 py-2 text-right tabular-nums">
                  {o.calls > 0 ? o.transactions.toLocaleString("en-US") : "–"}
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{o.calls > 0 ? `${o.callsDone}/${o.calls}` : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {outcomes.error ? (
          <p className="px-3 py-2 text-sm text-amber-800">Results unavailable ({outcomes.error.message}); retrying.</p>
        ) : null}
      </ScrollTable>
    </section>
  );
}
