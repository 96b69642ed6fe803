"use client";

import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useHydrated } from "@/components/ui/use-hydrated";
import { reprocessWebhookEvent } from "@/lib/actions/webhooks";

/**
 * Processes one stored event again (shown to ops and admins; the action checks the role itself). On success the page
 * is read again: the event shows as waiting, or already processed when the processor was quicker.
 */
export function ReprocessButton({ eventId, label }: { eventId: string; label: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const reprocess = useAction(reprocessWebhookEvent, { onSuccess: () => router.refresh() });
  const error = reprocess.result.serverError ?? reprocess.result.validationErrors?.fieldErrors?.eventId?.[0];
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        aria-label={label}
        disabled={!hydrated || reprocess.isPending}
        onClick={() => reprocess.execute({ eventId })}
        className="rounded border border-slate-300 bg-white px-2 py-0.5 text-xs font-medium text-slate-800 hover:bg-slate-50 disabled:opacity-50"
      >
        {reprocess.isPending ? "Reprocessing…" : "Reprocess"}
      </button>
      {error ? (
        <span role="alert" className="inline-block max-w-56 truncate align-bottom text-xs text-red-800" title={error}>
          {error}
        </span>
      ) : reprocess.hasSucceeded ? (
        <span role="status" className="text-xs text-emerald-800">
          Queued
        </span>
      ) : null}
    </span>
  );
}
