import Link from "next/link";

/**
 * Keyset paging has no page numbers or total (counting a million rows on every view is what it avoids): the next page
 * carries the last row's position in the URL, and the first page is the view without one.
 */
export function AuditPagination({ firstHref, nextHref, shown }: { firstHref: string | null; nextHref: string | null; shown: number }) {
  const link = "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-50";
  return (
    <nav aria-label="Audit pages" className="mt-4 flex items-center justify-between gap-4 text-sm text-slate-600">
      <span>
        {shown} {shown === 1 ? "entry" : "entries"} on this page{nextHref ? ", more after" : ""}
      </span>
      <div className="flex gap-2">
        {firstHref ? (
          <Link href={firstHref} className={link}>
            First page
          </Link>
        ) : null}
        {nextHref ? (
          <Link href={nextHref} className={link} rel="next">
            Next page
          </Link>
        ) : null}
      </div>
    </nav>
  );
}
