"use client";

import { useQuery } from "@tanstack/react-query";
import { ShortId } from "@/components/ui/short-id";
import type { RateLimitsView } from "@/lib/budget/view";
import { RATE_LIMITS_REFRESH_MS } from "./refresh";
import { UsageMeter } from "./usage-meter";

const scopeLabel = { app: "per app", client: "per client", link: "per link", user: "per user" } as const;

function inSeconds(at: string | null, now: number): string {
  if (!at) return "now";
  const s = Math.max(0, Math.ceil((Date.parse(at) - now) / 1000));
  return s === 0 ? "now" : `in ${s} s`;
}

/** Every rule of the spec's table with Linkdesk's share and what is used; refreshed while the page is visible. */
export function RateLimitsLive({ initial }: { initial: RateLimitsView }) {
  const { data = initial, error } = useQuery({
    queryKey: ["rate-limits"],
    queryFn: async () => {
      const response = await fetch("/api/rate-limits", { cache: "no-store" });
      const body = (await response.json()) as RateLimitsView & { error?: string };
      if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
      return body;
    },
    initialData: initial,
    refetchInterval: RATE_LIMITS_REFRESH_MS,
  });
  const now = Date.parse(data.readAt);
  return (
    <>
      {error ? <p className="mb-2 text-sm text-amber-800">Not refreshed: {error.message}. Showing the figures of {data.readAt.slice(11, 19)} UTC.</p> : null}
      {data.eventsLastHour > 0 ? (
        <div className="mb-4 max-w-4xl rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900" role="status">
          <p className="font-medium">
            {data.eventsLastHour} rate-limit answer{data.eventsLastHour === 1 ? "" : "s"} (429) from the upstream in the last hour
          </p>
          <p>The production back end shares these limits, so it may be the one using the room. Each closed its keys until the upstream&rsquo;s Retry-After.</p>
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
            {data.rows.map((row) => (
              <tr key={`${row.endpoint}|${row.scope}`} data-testid="rate-limit-row" data-endpoint={row.endpoint} data-scope={row.scope}>
                <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">{row.endpoint}</td>
                <td className="whitespace-nowrap px-3 py-2">
                  {scopeLabel[row.scope]}
                  {row.busiestId ? (
                    <span className="ml-2 text-xs text-slate-500">
                      busiest <ShortId id={row.busiestId} what="busiest id" className="text-slate-600" /> ({row.activeKeys} active)
                    </span>
                  ) : null}
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{row.upstreamLimit.toLocaleString("en")}</td>
                <td className="px-3 py-2 text-right tabular-nums">{row.limit.toLocaleString("en")}</td>
                <td className="px-3 py-2">
                  <UsageMeter used={row.used} limit={row.limit} label={`${row.endpoint} ${scopeLabel[row.scope]} used`} />
                </td>
                <td className="px-3 py-2 text-right tabular-nums" data-testid="remaining">
                  {row.closed ? <span className="text-red-700">closed</span> : row.remaining}
                </td>
                <td className="px-3 py-2 text-xs">{row.remaining > 0 && !row.closed ? "now" : inSeconds(row.nextSlotAt, now)}</td>
                <td className="whitespace-nowrap px-3 py-2 text-xs">
                  {row.events.length === 0 ? (
                    "none"
                  ) : (
                    // One line: how many, and the latest; every one on hover.
                    <span title={row.events.map((e) => `${e.at.slice(11, 19)} UTC, Retry-After ${e.retryAfter ?? "absent"}`).join("\n")}>
                      {row.events.length} (last {row.events[0]!.at.slice(11, 19)} UTC, Retry-After {row.events[0]!.retryAfter ?? "absent"})
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2 className="mb-2 mt-6 text-lg font-semibold">Busiest links right now</h2>
      {data.busiestLinks.length === 0 ? (
        <p className="text-sm text-slate-600">No link-scoped calls in the last minute.</p>
      ) : (
        <ul className="max-w-3xl space-y-2">
          {data.busiestLinks.map((h) => (
            <li key={`${h.endpoint}|${h.linkId}`} className="flex items-center justify-between gap-4 rounded border border-slate-200 bg-white px-3 py-2 text-sm">
              <span>
                <span className="font-mono text-xs">{h.linkId}</span> <span className="text-slate-500">{h.endpoint}</span>
              </span>
              <UsageMeter used={h.used} limit={h.limit} label={`${h.linkId} ${h.endpoint} used`} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
