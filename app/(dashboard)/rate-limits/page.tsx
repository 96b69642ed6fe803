import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AutoRefresh } from "@/components/limits/auto-refresh";
import { UsageMeter } from "@/components/limits/usage-meter";
import { Callout } from "@/components/ui/callout";
import { NotPermitted } from "@/components/ui/not-permitted";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { PERMISSION_LABELS, can } from "@/lib/auth/roles";
import { getBudget } from "@/lib/budget";
import { ruleRows } from "@/lib/budget/headroom";
import { getEnv } from "@/lib/env";

export const metadata: Metadata = { title: "Rate limits" };

const REFRESH_MS = 5_000;

function inSeconds(at: Date | null): string {
  if (!at) return "now";
  const s = Math.max(0, Math.ceil((at.getTime() - Date.now()) / 1000));
  return s === 0 ? "now" : `in ${s} s`;
}

const scopeLabel = { app: "per app", client: "per client", link: "per link", user: "per user" } as const;

export default async function RateLimitsPage() {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/rate-limits");
  if (!can(staff.role, "read")) return <NotPermitted what={PERMISSION_LABELS.read} />;
  const env = getEnv();
  let data: Awaited<ReturnType<typeof ruleRows>>;
  try {
    data = await ruleRows(await getBudget());
  } catch (error) {
    return (
      <>
        <PageHeader title="Rate limits" />
        <Callout tone="error" title="The rate budget cannot be read">
          {error instanceof Error ? error.message : "Unknown error"}
        </Callout>
      </>
    );
  }
  const hourEvents = data.usage.events;
  return (
    <>
      <AutoRefresh intervalMs={REFRESH_MS} />
      <PageHeader
        title="Rate limits"
        description={`Linkdesk's share of each upstream limit (per app ${Math.round(env.BUDGET_APP_SHARE * 100)} %, per link ${Math.round(
          env.BUDGET_LINK_SHARE * 100,
        )} %, per user ${Math.round(env.BUDGET_USER_SHARE * 100)} %, per client ${Math.round(env.BUDGET_CLIENT_SHARE * 100)} %), used in the last minute. Updates every ${REFRESH_MS / 1000} s.`}
      />
      {hourEvents.length > 0 ? (
        <div className="mb-4 max-w-4xl">
          <Callout tone="warning" title={`${hourEvents.length} rate-limit answer${hourEvents.length === 1 ? "" : "s"} (429) from the upstream in the last hour`}>
            The production back end shares these limits, so it may be the one using the room. Each closed its keys until the
            upstream&rsquo;s Retry-After.
          </Callout>
        </div>
      ) : null}
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Rate limits by endpoint">
          <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
            <tr>
              <th className="px-3 py-2">Endpoint</th>
              <th className="px-3 py-2">Scope</th>
              <th className="px-3 py-2 text-right">Upstream limit / min</th>
              <th className="px-3 py-2 text-right">Linkdesk&rsquo;s share</th>
              <th className="px-3 py-2">Used in the last 60 s</th>
              <th className="px-3 py-2 text-right">Remaining now</th>
              <th className="px-3 py-2">Next slot</th>
              <th className="px-3 py-2">429s last hour</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {data.rows.map((row) => {
              const h = row.busiest;
              const used = h?.used ?? 0;
              const remaining = h?.remaining ?? row.limit;
              return (
                <tr key={`${row.endpoint}|${row.scope}`} data-testid="rate-limit-row" data-endpoint={row.endpoint} data-scope={row.scope}>
                  <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">{row.endpoint}</td>
                  <td className="px-3 py-2">
                    {scopeLabel[row.scope]}
                    {(row.scope === "link" || row.scope === "user") && h ? (
                      <div className="text-xs text-slate-500">
                        busiest: <span className="font-mono">{h.key.scopeId}</span> ({row.activeKeys} active)
                      </div>
                    ) : null}
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums">{row.upstreamLimit.toLocaleString("en")}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{row.limit.toLocaleString("en")}</td>
                  <td className="px-3 py-2">
                    <UsageMeter used={used} limit={row.limit} label={`${row.endpoint} ${scopeLabel[row.scope]} used`} />
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums" data-testid="remaining">
                    {h?.closedUntil ? <span className="text-red-700">closed</span> : remaining}
                  </td>
                  <td className="px-3 py-2 text-xs">{remaining > 0 && !h?.closedUntil ? "now" : inSeconds(h?.nextSlotAt ?? null)}</td>
                  <td className="px-3 py-2 text-xs">
                    {row.events.length === 0
                      ? "none"
                      : row.events.slice(0, 3).map((e) => (
                          <div key={`${e.at.toISOString()}-${e.retryAfter}`}>
                            {e.at.toISOString().slice(11, 19)} UTC, Retry-After {e.retryAfter ?? "absent"}
                          </div>
                        ))}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h2 className="mb-2 mt-6 text-lg font-semibold">Busiest links right now</h2>
      {data.busiestLinks.length === 0 ? (
        <p className="text-sm text-slate-600">No link-scoped calls in the last minute.</p>
      ) : (
        <ul className="max-w-3xl space-y-2">
          {data.busiestLinks.map((h) => (
            <li key={`${h.key.endpoint}|${h.key.scopeId}`} className="flex items-center justify-between gap-4 rounded border border-slate-200 bg-white px-3 py-2 text-sm">
              <span>
                <span className="font-mono text-xs">{h.key.scopeId}</span> <span className="text-slate-500">{h.key.endpoint}</span>
              </span>
              <UsageMeter used={h.used} limit={h.key.limit} label={`${h.key.scopeId} ${h.key.endpoint} used`} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
