import Link from "next/link";
import type { DataTableView } from "./data-table";
import { hrefWith } from "./url";

const link = "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-50";
const disabled = "rounded-md border border-slate-200 px-3 py-1.5 text-sm text-slate-300";

/**
 * Numbered pages as links: the page is in the URL, so any page can be shared. "Showing 51–100 of 1,234 links". Renders
 * on the server or in the browser alike (no state).
 */
export function DataTablePagination({
  view,
  page,
  pageCount,
  total,
  pageSize,
  noun,
  pageParam = "page",
}: {
  view: DataTableView;
  page: number;
  pageCount: number;
  total: number;
  pageSize: number;
  noun: { one: string; other: string };
  pageParam?: string;
}) {
  const first = Math.min(total, (page - 1) * pageSize + 1);
  const last = Math.min(total, page * pageSize);
  const to = (target: number) =>
    hrefWith(view.pathname, view.query, { [pageParam]: target === 1 ? undefined : target });
  const step = (label: string, target: number, enabled: boolean, rel?: "prev" | "next") =>
    enabled ? (
      <Link href={to(target)} className={link} rel={rel}>
        {label}
      </Link>
    ) : (
      <span className={disabled} aria-disabled="true">
        {label}
      </span>
    );
  return (
    <nav aria-label="Pages" className="mt-4 flex flex-wrap items-center justify-between gap-4 text-sm text-slate-600">
      <span data-testid="page-summary">
        {total === 0 || first > total
          ? `${total.toLocaleString("en")} ${total === 1 ? noun.one : noun.other}`
          : `Showing ${first.toLocaleString("en")}–${last.toLocaleString("en")} of ${total.toLocaleString("en")} ${total === 1 ? noun.one : noun.other}`}
      </span>
      <div className="flex items-center gap-2">
        {step("First", 1, page > 1)}
        {step("Previous", Math.min(page - 1, pageCount), page > 1, "prev")}
        <span className="px-2 tabular-nums">
          Page {page.toLocaleString("en")} of {pageCount.toLocaleString("en")}
        </span>
        {step("Next", page + 1, page < pageCount, "next")}
        {step("Last", pageCount, page < pageCount)}
      </div>
    </nav>
  );
}
