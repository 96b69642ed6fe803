import {
  columnVisibilityFeature,
  createColumnHelper,
  metaHelper,
  type RowData,
  rowSortingFeature,
  tableFeatures,
} from "@tanstack/react-table";

// The feature set every Linkdesk table's columns are typed with (sortDescFirst, enableSorting, enableHiding, meta).
// DataTable reads those definitions itself (TanStack's rules for ids, accessors and the first sort order): rows arrive
// sorted and paged from the server, and a header's click is a link to the URL of the other order. Column visibility is
// each person's own (the table's view menu), remembered per staff member. The transactions desk, which selects rows,
// is a TanStack Table instance.

/** Per column: classes for its header and cells (widths, alignment), and its name in the view menu. */
export interface DataTableColumnMeta {
  headerClassName?: string;
  cellClassName?: string;
  /** The column's name where the header is not plain text. */
  label?: string;
  /** Stays in view while the table scrolls sideways (the column that names the row). */
  sticky?: boolean;
}

/** Per table: the server's clock when the page rendered, so relative times read the same in the HTML and the browser. */
export interface DataTableMeta {
  renderedAt: number;
}

export const dataTableFeatures = tableFeatures({
  rowSortingFeature,
  columnVisibilityFeature,
  columnMeta: metaHelper<DataTableColumnMeta>(),
  tableMeta: metaHelper<DataTableMeta>(),
});

export type DataTableFeatures = typeof dataTableFeatures;

/**
 * The column helper for one entity's columns file. A column's `cell` may read `row.original`, `table` (its meta),
 * `column` (its id and definition), `getValue()` and `renderValue()`; a `header` is text or a function of `column` and
 * `table`. Not TanStack's table, row and cell APIs: DataTable builds no TanStack table, whose setup and row and cell
 * objects cost as much server CPU as React's own rendering of a page of rows (scripts/bench/table-render.tsx,
 * docs/decisions/page-cost.md). Columns are leaves: no column groups.
 */
export function createDataTableColumnHelper<TData extends RowData>() {
  return createColumnHelper<DataTableFeatures, TData>();
}
