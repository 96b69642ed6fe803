"use client";

import {
  type CellContext,
  type CellData,
  type Column,
  type ColumnDef,
  type Table,
  type RowData,
  type SortingState,
  type ColumnVisibilityState,
  useTable,
} from "@tanstack/react-table";
import Link from "next/link";
import { useMemo } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";
import { type DataTableFeatures, dataTableFeatures } from "./features";
import { hrefWith } from "./url";

export type SortDir = "asc" | "desc";

/** Row height: compact about 32 px, comfortable about 40 px; one line a row either way. */
export type DataTableDensity = "compact" | "comfortable";

/** The page's address now, without the leading "?": headers link to it with another sort. */
export interface DataTableView {
  pathname: string;
  query: string;
}

export interface DataTableProps<TData extends RowData> {
  /** From the entity's columns file (module scope, so stable); a column's id is its sort key in the URL. */
  columns: ColumnDef<DataTableFeatures, TData, CellData>[];
  /** One page, already filtered, sorted and paged by the server. */
  data: TData[];
  getRowId: (row: TData) => string;
  /** The order the server applied. */
  sort: { id: string; dir: SortDir } | null;
  view: DataTableView;
  /** The server's clock at render (ms), for relative times in cells. */
  renderedAt: number;
  /** What the table lists, for screen readers. */
  label: string;
  /** URL parameter names; a new sort goes back to the first page. */
  params?: { sort: string; dir: string; page: string };
  /** Columns the person hid (id: false); the others show. */
  columnVisibility?: ColumnVisibilityState;
  density?: DataTableDensity;
}

const DEFAULT_PARAMS = { sort: "sort", dir: "dir", page: "page" };

/**
 * A server-driven table: it renders the rows it is given and links. Sorting is a link per header to the same view in
 * the other order (first page), so every view can be shared and reloaded; nothing is sorted or paged in the browser.
 */
export function DataTable<TData extends RowData>({
  columns,
  data,
  getRowId,
  sort,
  view,
  renderedAt,
  label,
  params = DEFAULT_PARAMS,
  columnVisibility = NO_HIDDEN_COLUMNS,
  density = "comfortable",
}: DataTableProps<TData>) {
  const sorting = useMemo<SortingState>(() => (sort ? [{ id: sort.id, desc: sort.dir === "desc" }] : []), [sort]);
  const meta = useMemo(() => ({ renderedAt }), [renderedAt]);
  const table = useTable(
    {
      features: dataTableFeatures,
      columns,
      data,
      getRowId,
      state: { sorting, columnVisibility },
      manualSorting: true,
      // A sorted column's next click flips it; there is always an order (the server's default when none is named).
      enableSortingRemoval: false,
      enableMultiSort: false,
      meta,
    },
    (state) => ({ sorting: state.sorting, columnVisibility: state.columnVisibility }),
  );

  const visible = table.getVisibleLeafColumns();

  return (
    <ScrollTable>
      {/* Rows' and cells' styles (padding by density, the sticky column) are .data-table's in globals.css: one class
          on the table rather than the same long list on each of a page's hundreds of cells. */}
      <table className="data-table min-w-full text-left text-sm" aria-label={label} data-density={density}>
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const column = header.column;
                const sorted = column.getIsSorted();
                const next = column.getNextSortingOrder() || column.getFirstSortDir();
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                    className={classes(
                      "whitespace-nowrap px-2 py-2",
                      column.columnDef.meta?.sticky ? STICKY_HEADER : undefined,
                      column.columnDef.meta?.headerClassName,
                    )}
                  >
                    {header.isPlaceholder ? null : column.getCanSort() ? (
                      <Link
                        href={hrefWith(view.pathname, view.query, {
                          [params.sort]: column.id,
                          [params.dir]: next,
                          [params.page]: undefined,
                        })}
                        className="group inline-flex items-center gap-1 hover:text-slate-900"
                        title={`Sort ${next === "asc" ? "ascending" : "descending"}`}
                      >
                        <table.FlexRender header={header} />
                        <SortMark sorted={sorted} />
                      </Link>
                    ) : (
                      <table.FlexRender header={header} />
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {data.map((item, index) => {
            const id = getRowId(item);
            return (
              <tr key={id}>
                {visible.map((column) => (
                  <td
                    key={column.id}
                    className={
                      classes(
                        column.columnDef.meta?.sticky ? "sticky-cell" : undefined,
                        column.columnDef.meta?.cellClassName,
                      ) || undefined
                    }
                  >
                    {cellContent(column, { original: item, index, id }, table)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollTable>
  );
}

const NO_HIDDEN_COLUMNS: ColumnVisibilityState = {};

// A sticky column keeps its own background (else the cells scrolling under it show through) and a hairline edge; its
// cells' part is .data-table .sticky-cell in globals.css.
const STICKY_HEADER = "sticky left-0 z-[1] bg-slate-50 shadow-[inset_-1px_0_0_var(--color-slate-200)]";

const classes = (...names: (string | undefined)[]) => names.filter(Boolean).join(" ");

function SortMark({ sorted }: { sorted: false | SortDir }) {
  if (!sorted)
    return (
      <span aria-hidden className="text-slate-300 group-hover:text-slate-500">
        ↕
      </span>
    );
  return (
    <span aria-hidden className="text-slate-700">
      {sorted === "asc" ? "▲" : "▼"}
    </span>
  );
}

/**
 * A body cell from its column's `cell` (TanStack's default one, for an accessor without its own, shows the value): the
 * row's data, the table, the column and the cell's value, without TanStack's row and cell objects.
 */
function cellContent<TData extends RowData>(
  column: Column<DataTableFeatures, TData, CellData>,
  row: { original: TData; index: number; id: string },
  table: Table<DataTableFeatures, TData>,
): React.ReactNode {
  const render = column.columnDef.cell;
  if (typeof render !== "function") return (render as React.ReactNode) ?? null;
  const getValue = () => column.accessorFn?.(row.original, row.index) as CellData;
  const renderValue = () => getValue() ?? (table.options.renderFallbackValue as CellData | undefined) ?? null;
  return render({ row, table, column, getValue, renderValue } as unknown as CellContext<
    DataTableFeatures,
    TData,
    CellData
  >) as React.ReactNode;
}
