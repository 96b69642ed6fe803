"use client";

import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useHydrated } from "@/components/ui/use-hydrated";
import { acknowledgeAlert } from "@/lib/actions/alerts";
import { acknowledgeAlertSchema } from "@/lib/schemas/alerts";

/** Says of an open alert that someone is on it: the bell stops counting it; it stays open until its condition clears. */
export function AcknowledgeButton({ alertId, what }: { alertId: string; what: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const ack = useAction(acknowledgeAlert, { onSuccess: () => router.refresh() });
  const input = { alertId };
  const valid = acknowledgeAlertSchema.safeParse(input).success;
  return (
    <span className="inline-flex flex-col items-start gap-1">
      <button
        type="button"
        aria-label={`Acknowledge: ${what}`}
        disabled={!hydrated || !valid || ack.isPending || ack.hasSucceeded}
        onClick={() => ack.execute(input)}
        className="rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm text-slate-700 hover:bg-slate-50 disabled:opacity-60"
      >
        {ack.isPending ? "Acknowledging…" : "Acknowledge"}
      </button>
      {ack.result.serverError ? (
        <span role="alert" className="text-xs text-red-700">
          {ack.result.serverError}
        </span>
      ) : null}
    </span>
  );
}
