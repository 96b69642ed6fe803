import Link from "next/link";
import type { CampaignSummary } from "@/lib/reconnect/campaign";

// What became of a campaign's requests, on its job's page: asked, delivered to the product (or by email), delivery
// failed, reconnected since (the link back to connected, learned from webhooks or the sync), still broken. The still
// broken are a links-list view of their own (`campaign=`), and asking them again is a campaign over that view: the
// same preview, the same skips (a link back since, or no longer the user's to fix, is not asked), one new job.

const figure = (n: number) => n.toLocaleString("en-US");
const share = (n: number, of: number) => (of === 0 ? "" : ` (${Math.round((100 * n) / of)} %)`);

export function CampaignOutcome({
  jobId,
  summary,
  canAskAgain,
}: {
  jobId: string;
  summary: CampaignSummary;
  /** The person may start campaigns, and this one has finished. */
  canAskAgain: boolean;
}) {
  const rows: [string, number, string][] = [
    ["Asked", summary.sent, "a relink session made and its message queued"],
    ["Delivered", summary.delivered, "the product's back end (or the mail server) took the message"],
    ["Delivery failed", summary.deliveryFailed, "every attempt failed: see the link's page for why"],
    ["Not asked", summary.failed, "no session was made: the item says why"],
    ["Reconnected", summary.reconnected, "the link is connected again since"],
    ["Still broken", summary.stillBroken, "asked, not back yet"],
    [
      "Waiting for an outage",
      summary.waiting,
      "not asked yet: the link, its institution or its provider is in an outage",
    ],
  ];
  return (
    <section
      aria-labelledby="campaign-outcome"
      className="mb-4 rounded-lg border border-slate-200 bg-white p-4"
      data-testid="campaign-outcome"
    >
      <h2 id="campaign-outcome" className="mb-2 text-base font-semibold text-slate-900">
        What became of the requests
      </h2>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-3 lg:grid-cols-7">
        {rows.map(([label, n, hint]) => (
          <div key={label} title={hint}>
            <dt className="text-slate-500">{label}</dt>
            <dd
              className="tabular-nums text-slate-900"
              data-testid={`campaign-${label.toLowerCase().replace(/ /g, "-")}`}
            >
              {figure(n)}
              {label === "Reconnected" || label === "Still broken" ? share(n, summary.sent) : ""}
            </dd>
          </div>
        ))}
      </dl>
      {summary.stillBroken > 0 ? (
        <p className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <Link href={`/links?campaign=${jobId}`} className="text-sky-700 underline">
            See the {figure(summary.stillBroken)} still broken in the links list
          </Link>
          {canAskAgain ? (
            <Link href={`/reconnect?campaign=${jobId}&asked=0`} className="text-sky-700 underline">
              Ask the still broken again…
            </Link>
          ) : null}
        </p>
      ) : null}
    </section>
  );
}
