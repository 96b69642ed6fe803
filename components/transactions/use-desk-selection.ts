"use client";

import type { RowSelectionState, Updater } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import type { CategoryPair } from "@/lib/transactions/categories";
import type { TransactionRow } from "@/lib/transactions/rows";
import type { Review } from "./review-list";
import { fetchTransactions } from "./use-desk-data";

// Choosing rows for a bulk correction: ticked rows of the page, or every row matching the filter over all pages, and
// the category they are to get, which opens a review of them.

export function useDeskSelection({
  linkId,
  query,
  rows,
  announce,
}: {
  linkId: string;
  /** The view's part of the URL: "every matching row" is read again for it. */
  query: string;
  /** The rows shown. */
  rows: TransactionRow[];
  announce: (words: string) => void;
}) {
  const [rowSelection, setRowSelection] = useState<RowSelectionState>({});
  const [allMatching, setAllMatching] = useState<TransactionRow[] | null>(null);
  const [loadingAll, setLoadingAll] = useState(false);
  const [choosingTarget, setChoosingTarget] = useState(false);

  const selectedIds = useMemo(() => Object.keys(rowSelection).filter((id) => rowSelection[id]), [rowSelection]);
  const selectedCount = allMatching ? allMatching.length : selectedIds.length;

  const selectAllMatching = async () => {
    setLoadingAll(true);
    try {
      const everything = await fetchTransactions(linkId, query, true);
      setAllMatching(everything.rows);
      setRowSelection(Object.fromEntries(rows.map((r) => [r.id, true] as const)) as RowSelectionState);
      announce(`${everything.rows.length} transactions matching the filter are selected, over all pages.`);
    } catch (err) {
      announce(`Could not select every matching row: ${(err as Error).message}`);
    } finally {
      setLoadingAll(false);
    }
  };

  /** The review of the chosen rows towards `pair`; the category control closes. */
  const reviewOf = (pair: CategoryPair): Review => {
    setChoosingTarget(false);
    const chosen = allMatching ?? rows.filter((r) => rowSelection[r.id]);
    return {
      title: allMatching ? `every transaction matching the filter (${chosen.length})` : `${chosen.length} selected`,
      target: pair,
      rows: chosen,
    };
  };

  const onSelectionChange = (updater: Updater<RowSelectionState>) => {
    setAllMatching(null);
    setRowSelection((prev) => (typeof updater === "function" ? updater(prev) : updater));
  };

  /** A new view starts with nothing selected. */
  const reset = () => {
    setRowSelection({});
    setAllMatching(null);
  };

  return {
    rowSelection,
    allMatching: allMatching !== null,
    selectedCount,
    loadingAll,
    choosingTarget,
    setChoosingTarget,
    selectAllMatching,
    reviewOf,
    onSelectionChange,
    reset,
  };
}
