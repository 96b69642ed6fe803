"use client";

import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useHydrated } from "@/components/ui/use-hydrated";
import { startReconnectCampaign } from "@/lib/actions/reconnect";
import { startCampaignSchema } from "@/lib/schemas/reconnect";

// Starts the campaign the page previews: the server plans it again from the view and refuses, in words, a view that
// grew past what the person confirmed. The job's page follows it.

export function StartCampaign({
  view,
  askedWithinDays,
  links,
}: {
  view: string;
  askedWithinDays: number;
  links: number;
}) {
  const router = useRouter();
  const hydrated = useHydrated();
  const start = useAction(startReconnectCampaign, {
    onSuccess: ({ data }) => router.push(`/jobs/${data.jobId}`),
  });
  const input = { view, askedWithinDays, expectedLinks: links };
  // The same schema the server checks: a preview of no links offers nothing to press.
  const checked = startCampaignSchema.safeParse(input);
  return (
    <div className="space-y-2">
      <button
        type="button"
        disabled={!hydrated || start.isPending || !checked.success || start.hasSucceeded}
        onClick={() => start.execute(input)}
        className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
      >
        {start.isPending
          ? "Starting…"
          : `Send ${links.toLocaleString("en-US")} reconnect request${links === 1 ? "" : "s"}`}
      </button>
      {start.result.serverError ? (
        <p role="alert" className="text-sm text-red-700">
          {start.result.serverError}
        </p>
      ) : null}
      {start.result.validationErrors ? (
        <p role="alert" className="text-sm text-red-700">
          {Object.values(start.result.validationErrors.fieldErrors ?? {})
            .flat()
            .join(" ") || "The campaign could not be started: reload the preview."}
        </p>
      ) : null}
    </div>
  );
}
