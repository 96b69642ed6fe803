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

/**
 * Rows of grey bars, one per column, each `columns[i]` rem wide, drawn as the backgrounds of two elements (the header
 * and the rows) rather than one element per bar: a page's loading state is rendered on every view of a page that has
 * one, whether or not it is shown (docs/decisions/page-cost.md).
 */
export function DataTableSkeleton({ columns, rows = 10 }: { columns: readonly number[]; rows?: number }) {
  return (
    <div aria-hidden className="animate-pulse overflow-hidden rounded-lg border border-slate-200 bg-white">
      <div className="border-b border-slate-200 bg-slate-50" style={barsStyle(columns, HEADER_ROW, 1)} />
      <div style={barsStyle(columns, BODY_ROW, rows)} />
    </div>
  );
}

/** A row's height and its bars' top and height, in rem: the header's short bars, the body's taller ones. */
const HEADER_ROW = { height: 2, barTop: 0.625, barHeight: 0.75 };
const BODY_ROW = { height: 2.5, barTop: 0.75, barHeight: 1 };
/** The rows' padding at the start and the gap between bars, in rem. */
const INSET = 0.75;
const GAP = 1;

const drawn = new Map<string, React.CSSProperties>();

/** The style drawing `rows` rows of bars, made once per shape. */
function barsStyle(columns: readonly number[], row: typeof BODY_ROW, rows: number): React.CSSProperties {
  const key = `${columns.join(",")}/${row.height}/${rows}`;
  let style = drawn.get(key);
  if (!style) drawn.set(key, (style = drawBars(columns, row, rows)));
  return style;
}

function drawBars(columns: readonly number[], row: typeof BODY_ROW, rows: number): React.CSSProperties {
  const bar = `linear-gradient(transparent ${row.barTop}rem, var(--color-slate-200) ${row.barTop}rem ${row.barTop + row.barHeight}rem, transparent ${row.barTop + row.barHeight}rem)`;
  // A hairline under each row but the last (the frame's border is there).
  const rule = `linear-gradient(transparent calc(${row.height}rem - 1px), var(--color-slate-100) calc(${row.height}rem - 1px))`;
  const starts = columns.map((_, i) => INSET + columns.slice(0, i).reduce((sum, width) => sum + width + GAP, 0));
  return {
    height: rows > 1 ? `calc(${rows * row.height}rem - 1px)` : `${row.height}rem`,
    backgroundImage: [...columns.map(() => bar), rule].join(", "),
    backgroundSize: [...columns.map((width) => `${width}rem ${row.height}rem`), `100% ${row.height}rem`].join(", "),
    backgroundPosition: [...starts.map((x) => `${x}rem 0`), "0 0"].join(", "),
    backgroundRepeat: rows > 1 ? "repeat-y" : "no-repeat",
  };
}

/** The filter bar while its options load. */
export function DataTableToolbarSkeleton({ fields }: { fields: number }) {
  return (
    <div aria-hidden className="mb-4 animate-pulse rounded-lg border border-slate-200 bg-white px-3 py-2.5">
      <div className="grid grid-cols-1 gap-x-3 gap-y-2 sm:grid-cols-2 lg:grid-cols-5 xl:grid-cols-6">
        {Array.from({ length: fields }, (_, i) => (
          <div key={i} className="skeleton-field" />
        ))}
        <div className="flex items-end gap-2">
          <div className="h-7 w-16 rounded-md bg-slate-200" />
          <div className="h-7 w-16 rounded-md bg-slate-200" />
        </div>
      </div>
    </div>
  );
}
