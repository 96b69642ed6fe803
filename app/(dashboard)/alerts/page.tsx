import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AcknowledgeButton } from "@/components/alerts/acknowledge-button";
import { RelativeTime, exactUtc } from "@/components/data-table/relative-time";
import { NotPermitted } from "@/components/ui/not-permitted";
import { PageHeader } from "@/components/ui/page-header";
import { KEPT_DAYS } from "@/lib/alerts/evaluate";
import { ALERT_RULES, ruleById } from "@/lib/alerts/rules";
import { readAlerts } from "@/lib/alerts/view";
import { currentStaff } from "@/lib/auth";
import { PERMISSION_LABELS, can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import type { Alert, AlertSeverity } from "@/lib/db/schema";

export const metadata: Metadata = { title: "Alerts" };

// What holds now and what held in the last 90 days (every role reads it; support and up acknowledge). Alerts are
// evaluated after each sync run (docs/alerts.md); each opens once, keeps its peak and resolves when it clears.

const SEVERITY: Record<AlertSeverity, { label: string; chip: string }> = {
  critical: { label: "Critical", chip: "bg-red-100 text-red-800 ring-red-200" },
  warning: { label: "Warning", chip: "bg-amber-100 text-amber-900 ring-amber-200" },
  info: { label: "Info", chip: "bg-sky-100 text-sky-900 ring-sky-200" },
};

const figure = (n: number) => n.toLocaleString("en-US");

function lasted(from: Date, to: Date): string {
  const minutes = Math.max(1, Math.round((to.getTime() - from.getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 6) / 10;
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}

export default async function AlertsPage() {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/alerts");
  if (!can(staff.role, "read"))
    return (
      <>
        <PageHeader title="Alerts" />
        <NotPermitted what={PERMISSION_LABELS.read} />
      </>
    );
  const { db } = await getDb();
  const { open, history, readAt } = await readAlerts(db);
  const now = readAt.getTime();
  const mayAcknowledge = can(staff.role, "acknowledgeAlerts");
  return (
    <>
      <PageHeader
        title="Alerts"
        description="What needs attention across the fleet now, and what did in the last 90 days. Each alert opens the links it concerns."
      />
      <div className="space-y-6">
        <section aria-labelledby="open-alerts" className="space-y-2">
          <h2 id="open-alerts" className="text-base font-semibold text-slate-900">
            Open ({figure(open.length)})
          </h2>
          {open.length === 0 ? (
            <p className="text-sm text-slate-600" data-testid="no-open-alerts">
              Nothing holds now. Alerts are evaluated after each sync of the links.
            </p>
          ) : (
            <AlertTable alerts={open} now={now} mayAcknowledge={mayAcknowledge} open />
          )}
        </section>
        <section aria-labelledby="alert-history" className="space-y-2">
          <h2 id="alert-history" className="text-base font-semibold text-slate-900">
            Resolved in the last {KEPT_DAYS} days ({figure(history.length)})
          </h2>
          {history.length === 0 ? (
            <p className="text-sm text-slate-600">None.</p>
          ) : (
            <AlertTable alerts={history} now={now} mayAcknowledge={false} open={false} />
          )}
        </section>
        <section aria-labelledby="alert-rules" className="space-y-2">
          <h2 id="alert-rules" className="text-base font-semibold text-slate-900">
            The rules
          </h2>
          <ul className="space-y-1 text-sm text-slate-700">
            {ALERT_RULES.map((rule) => (
              <li key={rule.id}>
                <span className="font-medium text-slate-900">{rule.label}</span> ({SEVERITY[rule.severity].label}):{" "}
                {rule.condition}.
              </li>
            ))}
          </ul>
        </section>
      </div>
    </>
  );
}

function AlertTable({
  alerts,
  now,
  mayAcknowledge,
  open,
}: {
  alerts: Alert[];
  now: number;
  mayAcknowledge: boolean;
  open: boolean;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table
        className="min-w-full divide-y divide-slate-200 text-sm"
        aria-label={open ? "Open alerts" : "Resolved alerts"}
      >
        <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-600">
          <tr>
            <th className="px-3 py-2">Severity</th>
            <th className="px-3 py-2">What</th>
            <th className="px-3 py-2">{open ? "Since" : "When"}</th>
            <th className="px-3 py-2 text-right">{open ? "Now" : "Lasted"}</th>
            <th className="px-3 py-2 text-right">Peak</th>
            <th className="px-3 py-2">Acknowledged</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {alerts.map((alert) => {
            const severity = SEVERITY[alert.severity];
            return (
              <tr key={alert.id} data-testid={open ? "open-alert" : "resolved-alert"}>
                <td className="px-3 py-2 align-top">
                  <span className={`rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${severity.chip}`}>
                    {severity.label}
                  </span>
                </td>
                <td className="px-3 py-2 align-top">
                  <span className="block text-slate-900">{alert.summary}</span>
                  <span className="block text-xs text-slate-600">
                    {ruleById(alert.rule)?.label ?? alert.rule} ·{" "}
                    <Link href={`/links?${alert.linksQuery}`} className="text-indigo-700 underline">
                      its links
                    </Link>
                  </span>
                </td>
                <td className="whitespace-nowrap px-3 py-2 align-top">
                  <RelativeTime value={alert.openedAt.toISOString()} now={now} />
                  {!open && alert.resolvedAt ? (
                    <span className="block text-xs text-slate-600" title={exactUtc(alert.resolvedAt.getTime())}>
                      resolved <RelativeTime value={alert.resolvedAt.toISOString()} now={now} />
                    </span>
                  ) : null}
                </td>
                <td className="px-3 py-2 text-right align-top tabular-nums">
                  {open ? figure(alert.value) : alert.resolvedAt ? lasted(alert.openedAt, alert.resolvedAt) : ""}
                </td>
                <td className="px-3 py-2 text-right align-top tabular-nums">{figure(alert.peak)}</td>
                <td className="px-3 py-2 align-top">
                  {alert.acknowledgedAt ? (
                    <span className="text-slate-700">
                      {alert.acknowledgedByEmail}, <RelativeTime value={alert.acknowledgedAt.toISOString()} now={now} />
                    </span>
                  ) : open && mayAcknowledge ? (
                    <AcknowledgeButton alertId={alert.id} what={alert.summary} />
                  ) : (
                    <span className="text-slate-500">No</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
