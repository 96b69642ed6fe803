"use client";

import type { DeskPage } from "./use-desk-data";

/** How many transactions the view holds and match, and how old the reading is. */
export function DeskSummary({
  data,
  failed,
  isFetching,
  now,
}: {
  data: DeskPage | undefined;
  /** The page could not be read (the desk says why). */
  failed: boolean;
  isFetching: boolean;
  now: number;
}) {
  return (
    <p className="text-slate-700" data-testid="transactions-summary">
      {data ? (
        <>
          <span className="font-medium tabular-nums">{data.matching.toLocaleString("en")}</span> of{" "}
          {data.total.toLocaleString("en")} transactions
          {data.matching !== data.total ? " match" : ""}
          <span className="text-slate-500">
            {" "}
            · read from the upstream {Math.max(0, Math.round((now - data.readAt) / 1000))} s ago
          </span>
          {isFetching ? <span className="text-slate-500"> · updating…</span> : null}
        </>
      ) : failed ? null : (
        "Loading…"
      )}
    </p>
  );
}
