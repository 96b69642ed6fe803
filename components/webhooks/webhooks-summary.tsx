import Link from "next/link";
import { RelativeTime } from "@/components/data-table/relative-time";
import type { WebhookSummary } from "@/lib/webhooks/query";

// The strip above the Webhooks table: what came in over the last 24 hours, refusals by their reason, what waits or
// failed (however old), and how long ago the last request came. Each count opens the view it counts.

const count = (n: number) => n.toLocaleString("en");

function Stat({
  label,
  value,
  href,
  tone = "text-slate-900",
  testId,
}: {
  label: string;
  value: React.ReactNode;
  href?: string;
  tone?: string;
  testId: string;
}) {
  return (
    <div className="min-w-28 rounded-lg border border-slate-200 bg-white px-3 py-2" data-testid={testId}>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className={`mt-0.5 text-lg font-semibold tabular-nums ${tone}`}>
        {href ? (
          <Link href={href} className="hover:underline">
            {value}
          </Link>
        ) : (
          value
        )}
      </dd>
    </div>
  );
}

export function WebhooksSummary({ summary, renderedAt }: { summary: WebhookSummary; renderedAt: number }) {
  return (
    <section aria-label="Webhooks in the last 24 hours" className="mb-4 space-y-2">
      <dl className="flex flex-wrap gap-2">
        <Stat
          testId="summary-received"
          label="Received, last 24 h"
          value={count(summary.received)}
          href="/webhooks?since=24h"
        />
        <Stat
          testId="summary-verified"
          label="Verified, last 24 h"
          value={count(summary.verified)}
          href="/webhooks?verification=verified&since=24h"
          tone="text-emerald-800"
        />
        {summary.late > 0 ? (
          // Shown only when there are some: deliveries the upstream retried after minutes, or replays.
          <Stat
            testId="summary-late"
            label="Signed late, last 24 h"
            value={count(summary.late)}
            href="/webhooks?verification=late&since=24h"
            tone="text-amber-800"
          />
        ) : null}
        <Stat
          testId="summary-refused"
          label="Refused, last 24 h"
          value={count(summary.refused)}
          href="/webhooks?verification=refused&since=24h"
          tone={summary.refused > 0 ? "text-red-800" : "text-slate-900"}
        />
        <Stat
          testId="summary-pending"
          label="Waiting"
          value={count(summary.pending)}
          href="/webhooks?outcome=pending"
          tone="text-sky-900"
        />
        <Stat
          testId="summary-failed"
          label="Failed"
          value={count(summary.failed)}
          href="/webhooks?outcome=failed"
          tone={summary.failed > 0 ? "text-red-800" : "text-slate-900"}
        />
        <Stat
          testId="summary-newest"
          label="Newest verified event"
          value={
            summary.newestVerifiedAt ? (
              <RelativeTime value={summary.newestVerifiedAt.getTime()} now={renderedAt} />
            ) : (
              "None yet"
            )
          }
        />
        {summary.newestReceivedAt && summary.newestReceivedAt.getTime() !== summary.newestVerifiedAt?.getTime() ? (
          <Stat
            testId="summary-newest-any"
            label="Newest request"
            value={<RelativeTime value={summary.newestReceivedAt.getTime()} now={renderedAt} />}
          />
        ) : null}
      </dl>
      {summary.refusalsByReason.length > 0 ? (
        <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm">
          <p className="text-xs font-medium uppercase tracking-wide text-slate-500">
            Refused in the last 24 h, by reason
          </p>
          <ul className="mt-1 space-y-0.5" data-testid="refusals-by-reason">
            {summary.refusalsByReason.map((r) => (
              <li key={r.reason} className="flex gap-2">
                <span className="w-12 shrink-0 text-right font-semibold tabular-nums text-red-800">
                  {count(r.count)}
                </span>
                <span className="min-w-0 truncate text-slate-800" title={r.reason}>
                  {r.reason}
                </span>
              </li>
            ))}
            {summary.otherRefusals > 0 ? (
              <li className="flex gap-2">
                <span className="w-12 shrink-0 text-right font-semibold tabular-nums text-red-800">
                  {count(summary.otherRefusals)}
                </span>
                <span className="text-slate-600">other reasons</span>
              </li>
            ) : null}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
