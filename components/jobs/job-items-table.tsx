import Link from "next/link";
import type { JobItemView } from "@/lib/jobs/view";
import { ScrollTable } from "@/components/ui/scroll-table";

const stateStyles: Record<JobItemView["state"], string> = {
  pending: "text-slate-600",
  sent: "text-amber-800",
  done: "text-emerald-800",
  failed: "text-red-800",
  skipped: "text-slate-600",
  cancelled: "text-slate-500",
};

/** A job's planned calls in order: each one named as people know it, its state, attempts, what the upstream answered and why it failed or was skipped. */
export function JobItemsTable({ items, kindLabel }: { items: JobItemView[]; kindLabel: string }) {
  if (items.length === 0)
    return (
      <p className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-6 text-center text-sm text-slate-600">
        No items in this view.
      </p>
    );
  return (
    <ScrollTable>
      <table className="min-w-full text-left text-sm" aria-label={`Items of this ${kindLabel.toLowerCase()} job`}>
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="px-3 py-2">
              #
            </th>
            <th scope="col" className="px-3 py-2">
              Item
            </th>
            <th scope="col" className="px-3 py-2">
              Target
            </th>
            <th scope="col" className="px-3 py-2">
              State
            </th>
            <th scope="col" className="px-3 py-2">
              Calls
            </th>
            <th scope="col" className="px-3 py-2">
              Upstream
            </th>
            <th scope="col" className="px-3 py-2">
              Result or reason
            </th>
            <th scope="col" className="px-3 py-2">
              Audit
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id} className="border-b border-slate-100 last:border-b-0">
              <td className="px-3 py-1.5 tabular-nums text-slate-500">{item.seq + 1}</td>
              <td className="px-3 py-1.5">
                <span className="text-slate-900">{item.label}</span>
                {item.linkId ? (
                  <Link
                    href={`/links/${encodeURIComponent(item.linkId)}`}
                    className="ml-2 whitespace-nowrap text-xs text-indigo-700 hover:underline"
                    aria-label={`Link ${item.linkId} of ${item.label}`}
                  >
                    link
                  </Link>
                ) : null}
              </td>
              <td className="px-3 py-1.5 font-mono text-xs text-slate-500">{item.targetId ?? "—"}</td>
              <td className={`px-3 py-1.5 font-medium ${stateStyles[item.state]}`}>
                {item.state === "sent" ? "being checked" : item.state}
              </td>
              <td className="px-3 py-1.5 tabular-nums">{item.attempts}</td>
              <td className="px-3 py-1.5 whitespace-nowrap text-xs">
                {item.upstreamStatus ? `HTTP ${item.upstreamStatus}` : ""}
                {item.upstreamErrorCode ? <span className="ml-1 font-mono">{item.upstreamErrorCode}</span> : null}
              </td>
              <td className="px-3 py-1.5 text-slate-700">{item.reason ?? item.result ?? ""}</td>
              <td className="px-3 py-1.5">
                {item.correlationId ? (
                  <Link href={`/audit?correlation=${item.correlationId}`} className="text-indigo-700 hover:underline">
                    row
                  </Link>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
