"use client";

/** Previous and next page of the view; nothing when it fits on one. */
export function DeskPageLinks({
  page,
  pageCount,
  onPage,
}: {
  page: number;
  pageCount: number;
  /** The page to show; null for the first (the URL then carries no page). */
  onPage: (page: string | null) => void;
}) {
  if (pageCount <= 1) return null;
  return (
    <nav aria-label="Transaction pages" className="flex items-center gap-2 text-sm">
      <button
        type="button"
        disabled={page <= 1}
        onClick={() => onPage(page - 1 > 1 ? String(page - 1) : null)}
        className="rounded-md border border-slate-300 px-2.5 py-1 disabled:opacity-40 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        Previous
      </button>
      <span className="tabular-nums text-slate-600">
        Page {page} of {pageCount}
      </span>
      <button
        type="button"
        disabled={page >= pageCount}
        onClick={() => onPage(String(page + 1))}
        className="rounded-md border border-slate-300 px-2.5 py-1 disabled:opacity-40 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        Next
      </button>
    </nav>
  );
}
