"use client";

import { useQuery } from "@tanstack/react-query";
import { ScrollTable } from "@/components/ui/scroll-table";
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
      {error ? (
        <p className="mb-2 text-sm text-amber-800">
          Not refreshed: {error.message}. Showing the figures of {data.readAt.slice(11, 19)} UTC.
        </p>
      ) : null}
      {data.eventsLastHour > 0 ? (
        <div
          className="mb-4 max-w-4xl rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
          role="status"
        >
          <p className="font-medium">
            {data.eventsLastHour} rate-limit answer{data.eventsLastHour === 1 ? "" : "s"} (429) from the upstream in the
            last hour
          </p>
          <p>
            The production back end shares these limits, so it may be the one using the room. Each closed its keys until
            the upstream&rsquo;s Retry-After.
          </p>
        </div>
      ) : null}
      {/* The headroom (used, remaining, next slot, 429s) right after the endpoint and its scope, all on one line a row;
          the limits and the busiest key after them, off to the right on a small screen where the count says so. The
          endpoint stays in view while the table scrolls; below 1280 px a long one is cut (a third of them at 1024 px), whole
          on hover. */}
      <ScrollTable>
        <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Rate limits by endpoint">
          <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
            <tr className="whitespace-nowrap">
              <th scope="col" className="sticky-start px-2 py-2">
                Endpoint
              </th>
              <th scope="col" className="px-2 py-2">
                Used / 60 s
              </th>
              <th scope="col" className="px-2 py-2 text-right">
                Remaining
              </th>
              <th scope="col" className="px-2 py-2">
                Next slot
              </th>
              <th scope="col" className="px-2 py-2">
                429s / hour
              </th>
              <th scope="col" className="px-2 py-2 text-right">
                Share / min
              </th>
              <th scope="col" className="px-2 py-2">
                Busiest
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {data.rows.map((row) => (
              <tr
                key={`${row.endpoint}|${row.scope}`}
                className="whitespace-nowrap"
                data-testid="rate-limit-row"
                data-endpoint={row.endpoint}
                data-scope={row.scope}
              >
                <td className="sticky-start px-2 py-2">
                  <span className="flex items-center gap-1.5">
                    <span className="min-w-0 max-w-52 truncate font-mono text-xs xl:max-w-none" title={row.endpoint}>
                      {row.endpoint}
                    </span>
                    <span className="chip tone-plain shrink-0">{scopeLabel[row.scope]}</span>
                  </span>
                </td>
                <td className="px-2 py-2">
                  <UsageMeter
                    compact
                    used={row.used}
                    limit={row.limit}
                    label={`${row.endpoint} ${scopeLabel[row.scope]} used`}
                  />
                </td>
                <td className="px-2 py-2 text-right tabular-nums" data-testid="remaining">
                  {row.closed ? <span className="text-red-700">closed</span> : row.remaining}
                </td>
                <td className="px-2 py-2 text-xs">
                  {row.remaining > 0 && !row.closed ? "now" : inSeconds(row.nextSlotAt, now)}
                </td>
                <td className="px-2 py-2 text-xs">
                  {row.events.length === 0 ? (
                    <span className="text-slate-500">none</span>
                  ) : (
                    // How many, and the latest one's time (UTC); each one, with its Retry-After, on hover.
                    <span
                      title={row.events
                        .map((e) => `${e.at.slice(11, 19)} UTC, Retry-After ${e.retryAfter ?? "absent"}`)
                        .join("\n")}
                    >
                      {row.events.length}{" "}
                      <span className="text-slate-500">· last {row.events[0]!.at.slice(11, 19)}</span>
                    </span>
                  )}
                </td>
                <td
                  className="px-2 py-2 text-right tabular-nums"
                  title={`Linkdesk's share: ${row.limit.toLocaleString("en")} a minute of the upstream's ${row.upstreamLimit.toLocaleString("en")}`}
                >
                  {row.limit.toLocaleString("en")}{" "}
                  <span className="text-xs text-slate-500">of {row.upstreamLimit.toLocaleString("en")}</span>
                </td>
                <td className="px-2 py-2 text-xs">
                  {row.busiestId ? (
                    <span className="inline-flex items-center gap-1 text-slate-500">
                      <ShortId id={row.busiestId} what="busiest id" className="text-slate-700" /> ({row.activeKeys}{" "}
                      active)
                    </span>
                  ) : (
                    <span className="text-slate-500">—</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      <h2 className="mb-2 mt-6 text-lg font-semibold">Busiest links right now</h2>
      {data.busiestLinks.length === 0 ? (
        <p className="text-sm text-slate-600">No link-scoped calls in the last minute.</p>
      ) : (
        <ul className="max-w-3xl space-y-2">
          {data.busiestLinks.map((h) => (
            <li
              key={`${h.endpoint}|${h.linkId}`}
              className="flex items-center justify-between gap-4 rounded border border-slate-200 bg-white px-3 py-2 text-sm"
            >
              <span>
                <span className="font-mono text-xs">{h.linkId}</span>{" "}
                <span className="text-slate-500">{h.endpoint}</span>
              </span>
              <UsageMeter used={h.used} limit={h.limit} label={`${h.linkId} ${h.endpoint} used`} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
