import Link from "next/link";

/**
 * Pages of a keyset-paged list (the audit trail, webhook events). Keyset paging has no page numbers or total (counting
 * a million rows on every view is what it avoids): the next page carries the last row's position in the URL, and the
 * first page is the view without one.
 */
export function KeysetPagination({
  label,
  noun,
  firstHref,
  nextHref,
  shown,
}: {
  /** The nav landmark's name, e.g. "Audit pages". */
  label: string;
  /** What a row is, singular and plural. */
  noun: { one: string; other: string };
  firstHref: string | null;
  nextHref: string | null;
  shown: number;
}) {
  const link = "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-50";
  return (
    <nav aria-label={label} className="mt-4 flex items-center justify-between gap-4 text-sm text-slate-600">
      <span>
        {shown.toLocaleString("en")} {shown === 1 ? noun.one : noun.other} on this page{nextHref ? ", more after" : ""}
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
