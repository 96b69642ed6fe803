import Link from "next/link";

/**
 * Keyset pages have no numbers or total (counting the table on every view is what they avoid): the next page carries
 * the last row's position in the URL, and the first page is the view without one.
 */
export function WebhooksPagination({ firstHref, nextHref, shown }: { firstHref: string | null; nextHref: string | null; shown: number }) {
  const link = "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-50";
  return (
    <nav aria-label="Webhook event pages" className="mt-4 flex items-center justify-between gap-4 text-sm text-slate-600">
      <span>
        {shown.toLocaleString("en")} {shown === 1 ? "request" : "requests"} on this page{nextHref ? ", more after" : ""}
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
