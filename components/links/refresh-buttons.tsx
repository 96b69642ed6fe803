"use client";

import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { refreshAllLinks, refreshLink } from "@/lib/actions/sync";
import { describeDuration } from "@/lib/budget/headroom";
import { useHydrated } from "@/components/ui/use-hydrated";

const buttonClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-800 hover:bg-slate-50 disabled:opacity-60";

/**
 * "Refresh now" for one link: reads it from the upstream at once (one call of the person's part of the rate budget)
 * and re-renders the page from the updated read model. A refusal says why, e.g. the budget's "next slot in 12 s".
 */
export function RefreshLinkButton({ linkId }: { linkId: string }) {
  const router = useRouter();
  const refresh = useAction(refreshLink, { onSuccess: () => router.refresh() });
  const hydrated = useHydrated();
  const problem = refresh.result.serverError ?? refresh.result.validationErrors?.fieldErrors?.linkId?.[0];
  const link = refresh.result.data?.link;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        type="button"
        disabled={refresh.isPending || !hydrated}
        onClick={() => refresh.execute({ linkId })}
        className={buttonClass}
      >
        {refresh.isPending ? "Refreshing…" : "Refresh now"}
      </button>
      {problem ? (
        <p role="alert" className="text-sm text-red-700">
          {problem}
        </p>
      ) : link && !refresh.isPending ? (
        <p role="status" className="text-sm text-slate-600">
          Refreshed: {link.state}
          {link.errorCode ? ` (${link.errorCode})` : ""}
        </p>
      ) : null}
    </div>
  );
}

/**
 * "Refresh all": asks for a sync of every link now. The run takes the sync's share of the rate budget, so it lasts
 * minutes for thousands of links; the page's sync status shows its progress.
 */
export function RefreshAllButton() {
  const router = useRouter();
  const refresh = useAction(refreshAllLinks, { onSuccess: () => router.refresh() });
  const hydrated = useHydrated();
  const data = refresh.result.data;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        type="button"
        disabled={refresh.isPending || !hydrated}
        onClick={() => refresh.execute()}
        className={buttonClass}
      >
        {refresh.isPending ? "Asking…" : "Refresh all"}
      </button>
      {refresh.result.serverError ? (
        <p role="alert" className="text-sm text-red-700">
          {refresh.result.serverError}
        </p>
      ) : data && !refresh.isPending ? (
        <p role="status" className="text-sm text-slate-600">
          {data.requested
            ? "Refresh of all links requested: the sync starts within seconds."
            : `A sync is already running (${data.done} / ${data.total} links${data.etaSeconds ? `, ${describeDuration(data.etaSeconds)} left` : ""}).`}
        </p>
      ) : null}
    </div>
  );
}
