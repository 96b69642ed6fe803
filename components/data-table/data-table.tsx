"use client";

import type {
  CellContext,
  CellData,
  ColumnDef,
  ColumnVisibilityState,
  HeaderContext,
  RowData,
} from "@tanstack/react-table";
import Link from "next/link";
import { ScrollTable } from "@/components/ui/scroll-table";
import type { DataTableFeatures } from "./features";
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
  const planned = planOf(columns);
  const visible = planned.filter((column) => columnVisibility[column.id] !== false);
  const table = { options: { meta: { renderedAt } } } as const;
  return (
    <ScrollTable>
      {/* Rows' and cells' styles (padding by density, the sticky column) are .data-table's in globals.css: one class
          on the table rather than the same long list on each of a page's hundreds of cells. */}
      <table className="data-table min-w-full text-left text-sm" aria-label={label} data-density={density}>
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            {visible.map((column) => {
              const sorted = sort?.id === column.id ? sort.dir : false;
              const header = headerContent(column, table);
              return (
                <th
                  key={column.id}
                  scope="col"
                  aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                  className={classes(
                    "whitespace-nowrap px-2 py-2",
                    column.def.meta?.sticky ? STICKY_HEADER : undefined,
                    column.def.meta?.headerClassName,
                  )}
                >
                  {column.canSort ? (
                    <SortLink column={column} sorted={sorted} data={data} view={view} params={params}>
                      {header}
                    </SortLink>
                  ) : (
                    header
                  )}
                </th>
              );
            })}
          </tr>
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
                      classes(column.def.meta?.sticky ? "sticky-cell" : undefined, column.def.meta?.cellClassName) ||
                      undefined
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

/** What DataTable needs of a column, resolved once per columns array (TanStack's rules for ids and accessors). */
interface PlannedColumn<TData extends RowData> {
  id: string;
  def: ColumnDef<DataTableFeatures, TData, CellData>;
  accessorFn?: (row: TData, index: number) => unknown;
  /** An accessor column whose definition does not turn sorting off. */
  canSort: boolean;
}

type TableLike = { options: { meta: { renderedAt: number } } };

// Column definitions live at module scope (each entity's columns file), so each array is planned once per process.
const plans = new WeakMap<object, unknown>();

/**
 * The columns as TanStack Table would resolve them: the id is the definition's id, else its accessor key (dots as
 * underscores), else its header text; an accessor key becomes a getter (a dotted key reads a nested value).
 */
function planOf<TData extends RowData>(
  columns: ColumnDef<DataTableFeatures, TData, CellData>[],
): PlannedColumn<TData>[] {
  const known = plans.get(columns) as PlannedColumn<TData>[] | undefined;
  if (known) return known;
  const planned = columns.map((def): PlannedColumn<TData> => {
    const { accessorKey, accessorFn } = def as {
      accessorKey?: string | number;
      accessorFn?: PlannedColumn<TData>["accessorFn"];
    };
    const key = accessorKey === undefined ? undefined : String(accessorKey);
    const id = def.id ?? key?.replaceAll(".", "_") ?? (typeof def.header === "string" ? def.header : undefined);
    if (!id) throw new Error("A DataTable column needs an id, an accessor key or a text header");
    const path = key?.split(".");
    const getter =
      accessorFn ??
      (path
        ? (row: TData) => path.reduce<unknown>((value, part) => (value as Record<string, unknown>)?.[part], row)
        : undefined);
    return { id, def, accessorFn: getter, canSort: def.enableSorting !== false && getter !== undefined };
  });
  plans.set(columns, planned);
  return planned;
}

/**
 * The header link to the other order: a sorted column flips; an unsorted one starts with its `sortDescFirst`, else (as
 * TanStack does) newest or largest first unless the first rows' values are text. Always the first page of the new order.
 */
function SortLink<TData extends RowData>({
  column,
  sorted,
  data,
  view,
  params,
  children,
}: {
  column: PlannedColumn<TData>;
  sorted: false | SortDir;
  data: TData[];
  view: DataTableView;
  params: { sort: string; dir: string; page: string };
  children: React.ReactNode;
}) {
  const next: SortDir = sorted ? (sorted === "desc" ? "asc" : "desc") : firstSortDir(column, data);
  return (
    <Link
      href={hrefWith(view.pathname, view.query, {
        [params.sort]: column.id,
        [params.dir]: next,
        [params.page]: undefined,
      })}
      className="group inline-flex items-center gap-1 hover:text-slate-900"
      title={`Sort ${next === "asc" ? "ascending" : "descending"}`}
    >
      {children}
      <SortMark sorted={sorted} />
    </Link>
  );
}

function firstSortDir<TData extends RowData>(column: PlannedColumn<TData>, data: TData[]): SortDir {
  const descFirst = (column.def as { sortDescFirst?: boolean }).sortDescFirst;
  if (descFirst !== undefined) return descFirst ? "desc" : "asc";
  for (const [index, row] of data.slice(0, 10).entries()) {
    const value = column.accessorFn?.(row, index);
    if (value != null) return typeof value === "string" ? "asc" : "desc";
  }
  return "desc";
}

/** A header: its text, or what its function draws from the column and the table (its meta). */
function headerContent<TData extends RowData>(column: PlannedColumn<TData>, table: TableLike): React.ReactNode {
  const header = column.def.header;
  if (typeof header !== "function") return (header as React.ReactNode) ?? null;
  return header({ column: { id: column.id, columnDef: column.def }, table } as unknown as HeaderContext<
    DataTableFeatures,
    TData,
    CellData
  >) as React.ReactNode;
}

/**
 * A body cell from its column's `cell`; a column without one shows its value as text (TanStack's default cell). The cell
 * reads the row's data, the table's meta, the column and the cell's value, not TanStack's row and cell objects.
 */
function cellContent<TData extends RowData>(
  column: PlannedColumn<TData>,
  row: { original: TData; index: number; id: string },
  table: TableLike,
): React.ReactNode {
  const getValue = () => column.accessorFn?.(row.original, row.index) as CellData;
  const renderValue = () => getValue() ?? null;
  const render = column.def.cell;
  if (render === undefined) return (renderValue() as { toString?: () => string } | null)?.toString?.() ?? null;
  if (typeof render !== "function") return (render as React.ReactNode) ?? null;
  return render({
    row,
    table,
    column: { id: column.id, columnDef: column.def },
    getValue,
    renderValue,
  } as unknown as CellContext<DataTableFeatures, TData, CellData>) as React.ReactNode;
}
