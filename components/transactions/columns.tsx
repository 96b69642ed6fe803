"use client";

import { createColumnHelper, metaHelper, rowSelectionFeature, tableFeatures } from "@tanstack/react-table";
import Link from "next/link";
import { formatAgo, exactUtc } from "@/components/data-table/relative-time";
import { EntityAvatar } from "@/components/ui/entity-avatar";
import type { CategoryPair } from "@/lib/transactions/categories";
import { LOW_CONFIDENCE, type TransactionRow, confidenceOf, formatAmount } from "@/lib/transactions/rows";
import type { CorrectionMark } from "@/lib/transactions/view";
import { categoryLabel, isCategory, subcategoryLabel } from "@/lib/upstream/taxonomy";
import { useHydrated } from "@/components/ui/use-hydrated";
import { CategoryCombobox } from "./category-combobox";

// The correction desk's columns. What changes with the person's actions (the row being edited, errors, marks) comes
// through the table's meta, so the column definitions stay at module scope (stable, as TanStack Table wants).

export interface DeskTableMeta {
  canCorrect: boolean;
  editingId: string | null;
  activeId: string | null;
  marks: Record<string, CorrectionMark>;
  errors: Record<string, string>;
  /** The server's or browser's clock for "3 min ago". */
  now: number;
  onEdit: (id: string) => void;
  onCancelEdit: () => void;
  onChoose: (row: TransactionRow, pair: CategoryPair) => void;
  onUndo: (row: TransactionRow, mark: CorrectionMark) => void;
  busyIds: ReadonlySet<string>;
}

export interface DeskColumnMeta {
  /** The column's track in the rows' CSS grid. */
  width: string;
  /**
   * The track when the table's box is under 64rem (e.g. a 1024 px window beside the sidebar; the `@min-[64rem]:`
   * classes here and in transactions-table.tsx); "hidden" leaves the column out, its value then shown in another cell
   * (pending under the date, recurrence under the description, the account under the amount).
   */
  narrowWidth?: string;
  className?: string;
}

export const deskFeatures = tableFeatures({
  rowSelectionFeature,
  columnMeta: metaHelper<DeskColumnMeta>(),
  tableMeta: metaHelper<DeskTableMeta>(),
});

const helper = createColumnHelper<typeof deskFeatures, TransactionRow>();

export const selectColumn = helper.display({
  id: "select",
  header: ({ table }) => (
    <input
      type="checkbox"
      aria-label="Select every row shown"
      className="size-4 accent-indigo-600"
      checked={table.getIsAllRowsSelected()}
      ref={(el) => {
        if (el) el.indeterminate = table.getIsSomeRowsSelected() && !table.getIsAllRowsSelected();
      }}
      onChange={table.getToggleAllRowsSelectedHandler()}
    />
  ),
  cell: ({ row }) => (
    <input
      type="checkbox"
      aria-label={`Select ${row.original.description || row.original.id}`}
      className="size-4 accent-indigo-600"
      checked={row.getIsSelected()}
      onChange={() => undefined}
      onClick={row.getToggleSelectedHandler()}
    />
  ),
  meta: { width: "2.25rem" },
});

export const dataColumns = helper.columns([
  helper.accessor("date", {
    header: "Date",
    cell: ({ row }) => (
      <>
        <span className="whitespace-nowrap tabular-nums text-slate-700">{row.original.date}</span>
        {/* The Pending column's value when that column is left out (narrow table). */}
        {row.original.pending ? (
          <span className="mt-0.5 block w-fit rounded bg-amber-100 px-1.5 text-xs text-amber-900 @min-[64rem]:hidden">
            Pending
          </span>
        ) : null}
      </>
    ),
    meta: { width: "6.25rem", narrowWidth: "5.75rem" },
  }),
  helper.accessor("description", {
    header: "Description",
    cell: ({ row, table }) => {
      const t = row.original;
      const expanded = table.options.meta?.activeId === t.id;
      const raw = t.rawDescription && t.rawDescription !== t.description ? t.rawDescription : null;
      return (
        <div className="min-w-0">
          {/* Truncated to the column: the whole text, and the bank's own, on hover. */}
          <div
            className="truncate font-medium text-slate-900"
            title={raw ? `${t.description}\nAs the bank sent it: ${raw}` : t.description || undefined}
            data-testid="transaction-description"
          >
            {t.description || "—"}
          </div>
          {raw && expanded ? <div className="break-all font-mono text-xs text-slate-600">{raw}</div> : null}
          {/* The Recurrence column's value when that column is left out (narrow table). */}
          {t.recurrence?.frequency ? (
            <div className="text-xs capitalize text-slate-600 @min-[64rem]:hidden">{t.recurrence.frequency}</div>
          ) : null}
        </div>
      );
    },
    meta: { width: "minmax(9rem, 2fr)", narrowWidth: "minmax(7rem, 2fr)" },
  }),
  helper.accessor((t) => t.merchant?.name ?? "", {
    id: "merchant",
    header: "Merchant",
    cell: ({ row }) => {
      const m = row.original.merchant;
      if (!m) return <span className="text-slate-500">—</span>;
      return (
        <span className="flex min-w-0 items-center gap-1.5" title={m.name}>
          <EntityAvatar src={m.logo} name={m.name} size={24} />
          <span className="truncate text-slate-800">{m.name}</span>
        </span>
      );
    },
    meta: { width: "minmax(6.5rem, 1fr)", narrowWidth: "minmax(5.5rem, 1fr)" },
  }),
  helper.accessor("amount", {
    header: "Amount",
    cell: ({ row }) => {
      const account = row.original.accountName ?? row.original.accountId;
      return (
        <>
          <span
            className={`block whitespace-nowrap text-right tabular-nums ${row.original.direction === "credit" ? "text-emerald-700" : "text-slate-900"}`}
          >
            <span className="sr-only">{row.original.direction === "credit" ? "Money in: " : "Money out: "}</span>
            {formatAmount(row.original)}
          </span>
          {/* The Account column's value when that column is left out (narrow table). */}
          <span className="block truncate text-right text-xs text-slate-600 @min-[64rem]:hidden" title={account}>
            <span className="sr-only">Account: </span>
            {account}
          </span>
        </>
      );
    },
    meta: { width: "7.5rem", narrowWidth: "6.75rem", className: "justify-end" },
  }),
  helper.accessor((t) => t.accountName ?? t.accountId, {
    id: "account",
    header: "Account",
    cell: ({ row }) => {
      const account = row.original.accountName ?? row.original.accountId;
      return (
        <span className="block truncate text-slate-700" title={account}>
          {account}
        </span>
      );
    },
    meta: { width: "minmax(5.5rem, 1fr)", narrowWidth: "hidden" },
  }),
  helper.accessor("pending", {
    header: "Pending",
    cell: ({ row }) =>
      row.original.pending ? (
        <span className="rounded bg-amber-100 px-1.5 text-xs text-amber-900">Pending</span>
      ) : (
        <span className="text-xs text-slate-600">Posted</span>
      ),
    meta: { width: "4.5rem", narrowWidth: "hidden" },
  }),
  helper.accessor("category", {
    header: "Category",
    cell: ({ row, table }) => <CategoryCell row={row.original} meta={table.options.meta!} />,
    meta: { width: "minmax(14rem, 1.7fr)", narrowWidth: "minmax(13rem, 1.5fr)" },
  }),
  helper.accessor((t) => t.recurrence?.frequency ?? "", {
    id: "recurrence",
    header: "Recurrence",
    cell: ({ row }) => {
      const r = row.original.recurrence;
      if (!r?.frequency) return <span className="text-slate-500">—</span>;
      return (
        <span className="text-xs text-slate-700">
          <span className="capitalize">{r.frequency}</span>
          {r.next ? <span className="block text-slate-600">next {r.next}</span> : null}
        </span>
      );
    },
    meta: { width: "6.5rem", narrowWidth: "hidden" },
  }),
]);

function Confidence({ row }: { row: TransactionRow }) {
  const confidence = confidenceOf(row);
  if (confidence === null) return null;
  const low = confidence < LOW_CONFIDENCE;
  return (
    <span
      className={`ml-1 rounded px-1 text-[11px] tabular-nums ${low ? "bg-amber-100 font-medium text-amber-900" : "text-slate-600"}`}
      title="The upstream's confidence in this category (the lower of category and subcategory)"
    >
      {low ? `Low confidence ${confidence}%` : `${confidence}%`}
    </span>
  );
}

function CategoryCell({ row, meta }: { row: TransactionRow; meta: DeskTableMeta }) {
  const mark = meta.marks[row.id];
  const error = meta.errors[row.id];
  const editing = meta.editingId === row.id;
  const busy = meta.busyIds.has(row.id);
  const hydrated = useHydrated();
  const current = row.category
    ? ({ category: row.category, subcategory: row.subcategory ?? undefined } as CategoryPair)
    : null;
  return (
    <div className="min-w-0 space-y-1">
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0" data-testid="transaction-category">
          {row.category ? (
            <>
              {isCategory(row.category) ? (
                <span className="text-slate-900">{categoryLabel(row.category)}</span>
              ) : (
                // A category the upstream added since: as sent, marked, the words whole on hover.
                <span className="text-slate-900" title={categoryLabel(row.category)}>
                  <span className="font-mono text-xs">{row.category}</span>{" "}
                  <span className="text-xs text-slate-600">not known</span>
                </span>
              )}
              <Confidence row={row} />
              <span
                className="block truncate text-xs text-slate-600"
                title={row.subcategory ? subcategoryLabel(row.subcategory) : undefined}
              >
                {row.subcategory ? subcategoryLabel(row.subcategory) : "No subcategory"}
              </span>
            </>
          ) : (
            <span className="text-slate-600">Not enriched</span>
          )}
          {busy ? <span className="block text-xs text-indigo-700">Saving…</span> : null}
        </div>
        {meta.canCorrect && !editing ? (
          <button
            type="button"
            data-testid="change-category"
            className="shrink-0 rounded border border-slate-300 bg-white px-1.5 py-0.5 text-xs text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600 disabled:opacity-50"
            aria-label={`Change category of ${row.description || row.id}`}
            disabled={!hydrated}
            onClick={() => meta.onEdit(row.id)}
          >
            Change
          </button>
        ) : null}
      </div>
      {mark ? <MarkLine row={row} mark={mark} meta={meta} /> : null}
      {error ? (
        <p role="alert" className="text-xs text-red-700">
          Not saved: {error}
        </p>
      ) : null}
      {editing ? (
        <CategoryCombobox
          label={`New category for ${row.description || row.id}`}
          current={current}
          autoFocus
          busy={busy}
          onChoose={(pair) => meta.onChoose(row, pair)}
          onCancel={meta.onCancelEdit}
        />
      ) : null}
    </div>
  );
}

function MarkLine({ row, mark, meta }: { row: TransactionRow; mark: CorrectionMark; meta: DeskTableMeta }) {
  const hydrated = useHydrated();
  const at = Date.parse(mark.at);
  return (
    <p className="text-[11px] leading-snug text-slate-600" data-testid="correction-mark">
      {mark.kind === "corrected" ? "Corrected" : "Undone"} by {mark.by}{" "}
      <time dateTime={mark.at} title={exactUtc(at)}>
        {formatAgo(at, meta.now)}
      </time>
      {mark.jobId ? " in bulk" : ""} ·{" "}
      <Link
        href={`/audit?correlation=${mark.correlationId}`}
        className="text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        audit row
      </Link>
      {meta.canCorrect && mark.undoable ? (
        <>
          {" · "}
          <button
            type="button"
            className="text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
            aria-label={`Undo the correction of ${row.description || row.id}`}
            disabled={!hydrated}
            onClick={() => meta.onUndo(row, mark)}
          >
            Undo
          </button>
        </>
      ) : null}
    </p>
  );
}
