import {
  columnVisibilityFeature,
  createColumnHelper,
  metaHelper,
  type RowData,
  rowSortingFeature,
  tableFeatures,
} from "@tanstack/react-table";

// The feature set every Linkdesk table shares. Sorting is registered for its state and header APIs only: rows arrive
// sorted and paged from the server (manualSorting), and a header's click is a link to the URL of the other order.
// Column visibility is each person's own (the table's view menu), remembered per staff member.

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
 * `column`, `getValue()` and `renderValue()`, not TanStack's row and cell APIs: DataTable renders body cells without
 * building TanStack's row and cell objects, which cost as much server CPU as React's own rendering of a page of rows
 * (scripts/bench/table-render.tsx).
 */
export function createDataTableColumnHelper<TData extends RowData>() {
  return createColumnHelper<DataTableFeatures, TData>();
}
