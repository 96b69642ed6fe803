"use client";

import { type FormEvent, forwardRef } from "react";
import {
  parseTransactionFilters,
  transactionFiltersToSearchParams,
  type TransactionFilters,
} from "@/lib/transactions/filters";
import type { AccountOption } from "@/lib/transactions/rows";
import {
  CATEGORIES,
  LEGACY_SUBCATEGORIES,
  categoryLabel,
  subcategoriesOf,
  subcategoryLabel,
} from "@/lib/upstream/taxonomy";

/** A category's subcategories from before the taxonomy's revision of 2025-01-13, so old transactions can be found. */
const legacySubcategoriesOf = (category: string) =>
  Object.entries(LEGACY_SUBCATEGORIES)
    .filter(([, legacy]) => legacy.category === category)
    .map(([name]) => name);

// The desk's filter bar. Applying writes the filters to the URL (a view can be shared and reloaded) and the table
// refetches from the link's cached history on the server: no upstream call per filter. The search field is where "/"
// lands.

const field =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600";
const labelClass = "block text-xs font-medium uppercase tracking-wide text-slate-500";

export const TransactionFiltersBar = forwardRef<
  HTMLInputElement,
  {
    filters: TransactionFilters;
    accounts: AccountOption[];
    /** Categories and subcategories the link's transactions carry that the taxonomy does not hold (added since). */
    other?: { categories: string[]; subcategories: string[] };
    onApply: (query: string) => void;
  }
>(function TransactionFiltersBar({ filters, accounts, other, onApply }, searchRef) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const raw: Record<string, string> = {};
    for (const [key, value] of data.entries()) if (typeof value === "string" && value.trim() !== "") raw[key] = value;
    // The same parser as the server's: what it would drop is not put in the URL.
    const { filters: parsed } = parseTransactionFilters(raw);
    onApply(transactionFiltersToSearchParams(parsed).toString());
  };
  const id = (name: string) => `txn-filter-${name}`;
  return (
    <form
      onSubmit={submit}
      role="search"
      aria-label="Filter the transactions"
      className="rounded-lg border border-slate-200 bg-white p-3"
    >
      <div className="grid grid-cols-2 gap-x-3 gap-y-2 md:grid-cols-4 xl:grid-cols-8">
        <div className="col-span-2">
          <label htmlFor={id("q")} className={labelClass}>
            Search <kbd className="ml-1 rounded border border-slate-300 px-1 font-mono text-[10px] normal-case">/</kbd>
          </label>
          <input
            ref={searchRef}
            id={id("q")}
            name="q"
            type="search"
            defaultValue={filters.q ?? ""}
            placeholder="Description, merchant or id"
            autoComplete="off"
            spellCheck={false}
            className={field}
          />
        </div>
        <div className="col-span-2 md:col-span-1">
          <label htmlFor={id("account")} className={labelClass}>
            Account
          </label>
          <select id={id("account")} name="account" defaultValue={filters.account ?? ""} className={field}>
            <option value="">Any account</option>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={id("start_date")} className={labelClass}>
            From
          </label>
          <input
            id={id("start_date")}
            name="start_date"
            type="date"
            defaultValue={filters.startDate ?? ""}
            className={field}
          />
        </div>
        <div>
          <label htmlFor={id("end_date")} className={labelClass}>
            To
          </label>
          <input
            id={id("end_date")}
            name="end_date"
            type="date"
            defaultValue={filters.endDate ?? ""}
            className={field}
          />
        </div>
        <div>
          <label htmlFor={id("category")} className={labelClass}>
            Category
          </label>
          <select id={id("category")} name="category" defaultValue={filters.category ?? ""} className={field}>
            <option value="">Any category</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {categoryLabel(c)}
              </option>
            ))}
            {other?.categories.map((c) => (
              <option key={c} value={c}>
                {categoryLabel(c)}
              </option>
            ))}
          </select>
        </div>
        <div className="col-span-2 md:col-span-1">
          <label htmlFor={id("subcategory")} className={labelClass}>
            Subcategory
          </label>
          <select id={id("subcategory")} name="subcategory" defaultValue={filters.subcategory ?? ""} className={field}>
            <option value="">Any subcategory</option>
            {CATEGORIES.filter((c) => !filters.category || c === filters.category).map((c) => (
              <optgroup key={c} label={categoryLabel(c)}>
                {[...subcategoriesOf(c), ...legacySubcategoriesOf(c)].map((s) => (
                  <option key={s} value={s}>
                    {subcategoryLabel(s)}
                  </option>
                ))}
              </optgroup>
            ))}
            {other && other.subcategories.length > 0 ? (
              <optgroup label="Not known to this version of Linkdesk">
                {other.subcategories.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </optgroup>
            ) : null}
          </select>
        </div>
        <div>
          <label htmlFor={id("confidence_below")} className={labelClass}>
            Confidence below
          </label>
          <div className="flex items-center gap-1">
            <input
              id={id("confidence_below")}
              name="confidence_below"
              type="number"
              min={1}
              max={100}
              step={1}
              inputMode="numeric"
              placeholder="60"
              defaultValue={filters.confidenceBelow ?? ""}
              className={field}
            />
            <span className="mt-1 text-sm text-slate-500">%</span>
          </div>
        </div>
        <div>
          <label htmlFor={id("pending")} className={labelClass}>
            Pending
          </label>
          <select
            id={id("pending")}
            name="pending"
            defaultValue={filters.pending === undefined ? "" : filters.pending ? "yes" : "no"}
            className={field}
          >
            <option value="">Either</option>
            <option value="yes">Pending only</option>
            <option value="no">Posted only</option>
          </select>
        </div>
        <div>
          <label htmlFor={id("amount_min")} className={labelClass}>
            Amount from
          </label>
          <input
            id={id("amount_min")}
            name="amount_min"
            type="number"
            min={0}
            step="0.01"
            inputMode="decimal"
            defaultValue={filters.amountMin ?? ""}
            className={field}
          />
        </div>
        <div>
          <label htmlFor={id("amount_max")} className={labelClass}>
            Amount to
          </label>
          <input
            id={id("amount_max")}
            name="amount_max"
            type="number"
            min={0}
            step="0.01"
            inputMode="decimal"
            defaultValue={filters.amountMax ?? ""}
            className={field}
          />
        </div>
        <div className="col-span-2 flex items-end gap-2 md:col-span-2">
          <button
            type="submit"
            className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            Apply
          </button>
          <button
            type="button"
            onClick={() => onApply("")}
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            Clear
          </button>
        </div>
      </div>
      <p className="mt-2 text-xs text-slate-500">
        Amounts match money in and out alike. Dates default to the whole history.
      </p>
    </form>
  );
});
