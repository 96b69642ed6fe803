"use client";

import { type RowSelectionState, type Updater, useTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef } from "react";
import type { TransactionRow } from "@/lib/transactions/rows";
import { type DeskTableMeta, dataColumns, deskFeatures, selectColumn } from "./columns";
import { isTypingTarget } from "./shortcuts";

// The desk's table: TanStack Table (v9) for the columns and the selection, TanStack Virtual for the rows, so a
// thousand rows scroll smoothly (only those in view, plus a few, are in the DOM). It keeps table semantics through
// ARIA roles (the rows are positioned in a CSS grid) and the row count, so screen readers still read a table.

const withSelect = [selectColumn, ...dataColumns];
const getRowId = (row: TransactionRow) => row.id;
const ROW_ESTIMATE = 58;
/** The rows' columns: the narrow template, the wide one from a 64rem box on (the variables are set on the scroll box). */
const GRID_COLUMNS = "grid-cols-(--desk-columns-narrow) @min-[64rem]:grid-cols-(--desk-columns-wide)";

export function TransactionsTable({
  rows,
  meta,
  rowSelection,
  onRowSelectionChange,
  activeIndex,
  focusRequest,
  onActivate,
  label,
}: {
  rows: TransactionRow[];
  meta: DeskTableMeta;
  rowSelection: RowSelectionState;
  onRowSelectionChange: (updater: Updater<RowSelectionState>) => void;
  activeIndex: number;
  /** Changes when the keyboard moved: the active row is scrolled to and focused. */
  focusRequest: number;
  onActivate: (index: number) => void;
  label: string;
}) {
  const columns = meta.canCorrect ? withSelect : dataColumns;
  const table = useTable(
    {
      features: deskFeatures,
      columns,
      data: rows,
      getRowId,
      state: { rowSelection },
      onRowSelectionChange,
      enableRowSelection: meta.canCorrect,
      meta,
    },
    (state) => ({ rowSelection: state.rowSelection }),
  );
  // Two grid templates: all columns from a 64rem wide box on, the narrow tracks below (container query, so the server's
  // HTML is already right and nothing shifts on hydration). See DeskColumnMeta.narrowWidth.
  const templates = useMemo(
    () =>
      ({
        "--desk-columns-wide": columns.map((c) => c.meta?.width ?? "1fr").join(" "),
        "--desk-columns-narrow": columns
          .flatMap((c) => (c.meta?.narrowWidth === "hidden" ? [] : [c.meta?.narrowWidth ?? c.meta?.width ?? "1fr"]))
          .join(" "),
      }) as React.CSSProperties,
    [columns],
  );
  const wideOnly = (column: { columnDef: { meta?: { narrowWidth?: string } } }) =>
    column.columnDef.meta?.narrowWidth === "hidden";
  const scrollRef = useRef<HTMLDivElement>(null);
  const tableRows = table.getRowModel().rows;
  // The virtualizer's functions are not memoisable by the React Compiler; this component is simply not compiled.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: tableRows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_ESTIMATE,
    getItemKey: (index) => tableRows[index]?.id ?? index,
    overscan: 8,
    // Before the browser measures anything (the server's render), assume a common window: the first rows are in the
    // HTML instead of appearing only after hydration.
    initialRect: { width: 1280, height: 800 },
  });

  useEffect(() => {
    if (focusRequest === 0 || activeIndex < 0) return;
    virtualizer.scrollToIndex(activeIndex, { align: "auto" });
    // The row exists once the virtualizer has rendered it: focus it on the next frame.
    const id = tableRows[activeIndex]?.id;
    const frame = requestAnimationFrame(() => {
      // A field opened since the request (c right after j, before this frame) keeps its focus: the person is typing.
      if (isTypingTarget(document.activeElement)) return;
      const el = id ? scrollRef.current?.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(id)}"]`) : null;
      el?.focus({ preventScroll: true });
    });
    return () => cancelAnimationFrame(frame);
    // Only a new request moves focus; rows re-rendering must not steal it from a field.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [focusRequest]);

  const items = virtualizer.getVirtualItems();
  return (
    <div
      ref={scrollRef}
      className="@container relative max-h-[70vh] min-h-48 overflow-auto rounded-lg border border-slate-200 bg-white"
      data-testid="transactions-scroll"
      style={templates}
    >
      <div role="table" aria-label={label} aria-rowcount={tableRows.length + 1} className="min-w-[41rem] text-sm">
        <div
          role="rowgroup"
          className="sticky top-0 z-10 border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500"
        >
          {table.getHeaderGroups().map((group) => (
            <div role="row" aria-rowindex={1} key={group.id} className={`grid items-center ${GRID_COLUMNS}`}>
              {group.headers.map((header) => (
                <div
                  role="columnheader"
                  key={header.id}
                  className={`px-2 py-2 ${wideOnly(header.column) ? "hidden @min-[64rem]:block" : ""}`}
                >
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </div>
              ))}
            </div>
          ))}
        </div>
        <div role="rowgroup" className="relative" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = tableRows[item.index]!;
            const active = item.index === activeIndex;
            const selected = row.getIsSelected();
            return (
              <div
                role="row"
                key={row.id}
                data-index={item.index}
                data-row-id={row.id}
                data-testid="transaction-row"
                data-active={active ? "true" : undefined}
                aria-rowindex={item.index + 2}
                aria-selected={meta.canCorrect ? selected : undefined}
                tabIndex={active ? 0 : -1}
                ref={virtualizer.measureElement}
                onFocus={(event) => {
                  if (event.target === event.currentTarget || !active) onActivate(item.index);
                }}
                onClick={() => onActivate(item.index)}
                className={`absolute left-0 grid w-full items-start ${GRID_COLUMNS} border-b border-slate-100 outline-none focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600 ${
                  active ? "bg-indigo-50/70" : selected ? "bg-sky-50" : "bg-white hover:bg-slate-50"
                }`}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {row.getAllCells().map((cell) => (
                  <div
                    role="cell"
                    key={cell.id}
                    className={`${wideOnly(cell.column) ? "hidden @min-[64rem]:flex" : "flex"} min-w-0 items-start px-2 py-2 ${cell.column.columnDef.meta?.className ?? ""}`}
                  >
                    <div className="min-w-0 flex-1">
                      <table.FlexRender cell={cell} />
                    </div>
                  </div>
                ))}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
