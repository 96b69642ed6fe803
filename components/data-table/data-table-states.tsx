"use client";

// A client module so that a page's Suspense fallbacks and loading skeletons cross to the browser as a component
// reference and a few props, not as the whole tree of grey bars (16 rows of 8 were 10 kB of every /links payload).
// What a table shows instead of rows: nothing to list (empty), or not loaded yet (skeletons shaped like the table).

export function DataTableEmpty({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div
      role="status"
      className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-8 text-sm text-slate-600"
    >
      <p className="font-medium text-slate-800">{title}</p>
      {children ? <div className="mt-1 space-y-2">{children}</div> : null}
    </div>
  );
}

/** Rows of grey bars, one per column, widths as given (Tailwind width classes). */
export function DataTableSkeleton({ columns, rows = 10 }: { columns: readonly string[]; rows?: number }) {
  return (
    <div aria-hidden className="animate-pulse overflow-hidden rounded-lg border border-slate-200 bg-white">
      <div className="flex gap-4 border-b border-slate-200 bg-slate-50 px-3 py-2.5">
        {columns.map((width, i) => (
          <div key={i} className={`h-3 rounded bg-slate-200 ${width}`} />
        ))}
      </div>
      {Array.from({ length: rows }, (_, row) => (
        <div key={row} className="flex gap-4 border-b border-slate-100 px-3 py-3 last:border-b-0">
          {columns.map((width, i) => (
            <div key={i} className={`h-4 rounded bg-slate-200 ${width}`} />
          ))}
        </div>
      ))}
    </div>
  );
}

/** The filter bar while its options load. */
export function DataTableToolbarSkeleton({ fields }: { fields: number }) {
  return (
    <div aria-hidden className="mb-4 animate-pulse rounded-lg border border-slate-200 bg-white px-3 py-2.5">
      <div className="grid grid-cols-1 gap-x-3 gap-y-2 sm:grid-cols-2 lg:grid-cols-5 xl:grid-cols-6">
        {Array.from({ length: fields }, (_, i) => (
          <div key={i}>
            <div className="h-3 w-16 rounded bg-slate-200" />
            <div className="mt-1 h-7 rounded-md bg-slate-200" />
          </div>
        ))}
        <div className="flex items-end gap-2">
          <div className="h-7 w-16 rounded-md bg-slate-200" />
          <div className="h-7 w-16 rounded-md bg-slate-200" />
        </div>
      </div>
    </div>
  );
}
