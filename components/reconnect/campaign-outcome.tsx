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
      {summary.failures.length > 0 ? (
        <div className="mt-3 text-sm" data-testid="campaign-failures">
          <h3 className="font-medium text-slate-800">Why deliveries failed</h3>
          <ul className="mt-1 space-y-0.5 text-slate-700">
            {summary.failures.map((f) => (
              <li key={f.outcome} className="flex justify-between gap-4">
                <span className="min-w-0 break-words">{f.outcome}</span>
                <span className="tabular-nums">{figure(f.count)}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {summary.byDay.length > 0 ? (
        <table className="mt-3 text-sm" aria-label="Reconnected over days" data-testid="campaign-by-day">
          <thead className="text-left text-xs font-medium uppercase tracking-wide text-slate-600">
            <tr>
              <th className="py-1 pr-4">Day</th>
              <th className="py-1 pr-4 text-right">Reconnected by its end</th>
              <th className="py-1 text-right">Of those asked</th>
            </tr>
          </thead>
          <tbody>
            {summary.byDay.map((d) => (
              <tr key={d.day}>
                <td className="py-0.5 pr-4 text-slate-700">{d.day === 0 ? "First day" : `Day ${d.day + 1}`}</td>
                <td className="py-0.5 pr-4 text-right tabular-nums">{figure(d.reconnected)}</td>
                <td className="py-0.5 text-right tabular-nums">
                  {summary.sent === 0 ? "" : `${Math.round((100 * d.reconnected) / summary.sent)} %`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
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
