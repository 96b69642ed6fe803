"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useAction } from "next-safe-action/hooks";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { cancelJob, pauseJob, resumeJob, retryJob, undoJob } from "@/lib/actions/jobs";
import type { JobView } from "@/lib/jobs/view";
import { jobQueryKey, useJob } from "./use-job";
import { useHydrated } from "@/components/ui/use-hydrated";

const button = "rounded border px-2.5 py-1 text-sm font-medium disabled:opacity-50";

/** Pause, resume, cancel, retry the failed, undo: shown to the roles that may control this kind of job. */
export function JobControls({
  initial,
  canControl,
  canUndo,
  onUndone,
}: {
  initial: JobView;
  canControl: boolean;
  canUndo: boolean;
  /** Where the undo job is followed; by default its own page (a link's page keeps the person on the link). */
  onUndone?: (jobId: string) => void;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const { data: job = initial } = useJob(initial.id, initial);
  const onSuccess = () => {
    void queryClient.invalidateQueries({ queryKey: jobQueryKey(initial.id) });
    void queryClient.invalidateQueries({ queryKey: ["jobs"] });
    router.refresh();
  };
  const pause = useAction(pauseJob, { onSuccess });
  const resume = useAction(resumeJob, { onSuccess });
  const cancel = useAction(cancelJob, { onSuccess });
  const retry = useAction(retryJob, { onSuccess });
  const undo = useAction(undoJob, {
    onSuccess: ({ data }) => data && (onUndone ? onUndone(data.jobId) : router.push(`/jobs/${data.jobId}`)),
  });
  const hydrated = useHydrated();
  // Until the page's script runs a click could not act: the buttons wait for it, disabled.
  const pending =
    !hydrated || pause.isPending || resume.isPending || cancel.isPending || retry.isPending || undo.isPending;
  const error = [pause, resume, cancel, retry, undo]
    .map((a) => a.result.serverError ?? a.result.validationErrors?.fieldErrors?.jobId?.[0])
    .find(Boolean);
  const input = { jobId: job.id };

  return (
    <div className="flex flex-wrap items-center gap-2">
      {canControl && job.controls.includes("pause") ? (
        <button
          type="button"
          className={`${button} border-slate-300 bg-white text-slate-800 hover:bg-slate-50`}
          disabled={pending}
          onClick={() => pause.execute(input)}
        >
          Pause
        </button>
      ) : null}
      {canControl && job.controls.includes("resume") ? (
        <button
          type="button"
          className={`${button} border-indigo-600 bg-indigo-600 text-white hover:bg-indigo-700`}
          disabled={pending}
          onClick={() => resume.execute(input)}
        >
          Resume
        </button>
      ) : null}
      {canControl && job.controls.includes("retry") ? (
        <button
          type="button"
          className={`${button} border-indigo-600 bg-indigo-600 text-white hover:bg-indigo-700`}
          disabled={pending}
          onClick={() => retry.execute(input)}
        >
          Retry {job.counts.failed} failed
        </button>
      ) : null}
      {canControl && job.controls.includes("cancel") ? (
        <button
          type="button"
          className={`${button} border-red-300 bg-white text-red-800 hover:bg-red-50`}
          disabled={pending}
          onClick={() => {
            if (window.confirm(`Cancel "${job.title}"? The ${job.counts.pending} calls not yet made will not be made.`))
              cancel.execute(input);
          }}
        >
          Cancel job
        </button>
      ) : null}
      {canUndo && job.undoable ? (
        <button
          type="button"
          className={`${button} border-slate-300 bg-white text-slate-800 hover:bg-slate-50`}
          disabled={pending}
          onClick={() => undo.execute(input)}
        >
          Undo the whole job
        </button>
      ) : null}
      {canUndo && job.undoneBy ? (
        <p className="text-sm text-slate-700" data-testid="undone-by">
          Undone already:{" "}
          <Link className="text-indigo-700 underline" href={`/jobs/${job.undoneBy}`}>
            the undo job
          </Link>
          .
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="w-full text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
