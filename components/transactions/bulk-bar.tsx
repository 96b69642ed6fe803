"use client";

import type { CategoryPair } from "@/lib/transactions/categories";
import { CategoryCombobox } from "./category-combobox";

/** What is selected for a bulk correction, and the way to every matching row and to the category they are to get. */
export function BulkBar({
  selectedCount,
  allMatching,
  matching,
  loadingAll,
  onSelectAllMatching,
  onClear,
  choosingTarget,
  onChoosingTarget,
  onChoose,
}: {
  selectedCount: number;
  /** Every row matching the filter is selected, over all pages. */
  allMatching: boolean;
  /** Rows matching the filter; undefined before the first page is read. */
  matching: number | undefined;
  loadingAll: boolean;
  onSelectAllMatching: () => void;
  onClear: () => void;
  choosingTarget: boolean;
  onChoosingTarget: (open: boolean) => void;
  onChoose: (pair: CategoryPair) => void;
}) {
  return (
    <div
      className="flex flex-wrap items-start gap-3 rounded-lg border border-sky-200 bg-sky-50 p-3 text-sm"
      data-testid="bulk-bar"
    >
      <span className="font-medium">
        {allMatching
          ? `All ${selectedCount.toLocaleString("en")} matching the filter selected`
          : `${selectedCount} selected`}
      </span>
      {!allMatching && matching !== undefined && matching > selectedCount ? (
        <button
          type="button"
          disabled={loadingAll}
          onClick={onSelectAllMatching}
          className="text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          {loadingAll ? "Counting…" : `Select all ${matching.toLocaleString("en")} matching the filter`}
        </button>
      ) : null}
      <button
        type="button"
        onClick={onClear}
        className="text-slate-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        Clear selection
      </button>
      {choosingTarget ? (
        <div className="w-full max-w-md">
          <CategoryCombobox
            label="Category for the selected transactions"
            autoFocus
            onChoose={onChoose}
            onCancel={() => onChoosingTarget(false)}
          />
        </div>
      ) : (
        <button
          type="button"
          onClick={() => onChoosingTarget(true)}
          className="rounded-md bg-indigo-600 px-2.5 py-1 font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          Set category…
        </button>
      )}
    </div>
  );
}
