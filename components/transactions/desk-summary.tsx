"use client";

import type { UnreadableItem } from "@/lib/transactions/view";
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

/**
 * Transactions the upstream sent that Linkdesk could not read: each id and why, so support can tell the upstream's
 * support which ones. They are left out of the table (nothing in them can be shown or corrected reliably).
 */
export function DeskUnreadable({ items }: { items: UnreadableItem[] | undefined }) {
  if (!items || items.length === 0) return null;
  const shown = items.slice(0, 20);
  return (
    <details
      className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
      data-testid="transactions-unreadable"
    >
      <summary className="cursor-pointer">
        {items.length === 1
          ? "1 transaction the upstream sent could not be read"
          : `${items.length.toLocaleString("en")} transactions the upstream sent could not be read`}
        : left out of the table.
      </summary>
      <ul className="mt-2 space-y-1">
        {shown.map((item, i) => (
          <li key={`${item.id ?? "no id"}-${i}`}>
            <span className="font-mono">{item.id ?? "(no id)"}</span>: {item.reason}
          </li>
        ))}
      </ul>
      {items.length > shown.length ? <p className="mt-1">…and {items.length - shown.length} more.</p> : null}
    </details>
  );
}
