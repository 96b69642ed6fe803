"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";
import { correctCategoryBulk } from "@/lib/actions/transactions";
import type { CategoryPair } from "@/lib/transactions/categories";
import { BULK_MAX_ITEMS } from "@/lib/schemas/transactions";
import { type TransactionRow, confidenceOf, formatAmount, isInCategory } from "@/lib/transactions/rows";
import { categoryLabel, subcategoryLabel } from "@/lib/upstream/taxonomy";
import { CategoryCombobox } from "./category-combobox";
import { useCorrectionCost } from "./use-desk-data";

// The review before a bulk correction: each transaction with its category now and its confidence, and the proposed
// change, ticked where it differs. Staff untick what should stay, see the cost under the rate budget, and apply: the
// ticked ones become a durable job on the server.

export interface Review {
  /** "12 similar to STARBUCKS 1234", "3 selected rows", "every row matching the filter". */
  title: string;
  target: CategoryPair;
  rows: TransactionRow[];
}

const describe = (pair: { category: string | null; subcategory?: string | null } | null) =>
  pair?.category
    ? `${categoryLabel(pair.category)}${pair.subcategory ? ` › ${subcategoryLabel(pair.subcategory)}` : ""}`
    : "Not enriched";

export function ReviewList({
  linkId,
  review,
  onStarted,
  onClose,
}: {
  linkId: string;
  review: Review;
  onStarted: (jobId: string) => void;
  onClose: () => void;
}) {
  const [target, setTarget] = useState<CategoryPair>(review.target);
  const [changingTarget, setChangingTarget] = useState(false);
  const [ticked, setTicked] = useState<Set<string>>(
    () => new Set(review.rows.filter((r) => !isInCategory(r, review.target)).map((r) => r.id)),
  );
  const applyRef = useRef<HTMLButtonElement>(null);
  const cost = useCorrectionCost(linkId, ticked.size);
  const start = useMutation({
    mutationFn: async () => {
      const result = await correctCategoryBulk({
        linkId,
        category: target.category,
        subcategory: target.subcategory!,
        items: review.rows.filter((r) => ticked.has(r.id)).map((r) => ({ transactionId: r.id })),
      });
      if (result?.serverError) throw new Error(result.serverError);
      if (result?.validationErrors)
        throw new Error(
          Object.values((result.validationErrors as { fieldErrors?: Record<string, string[]> }).fieldErrors ?? {})
            .flat()
            .join(" ") || "The input was refused.",
        );
      if (!result?.data) throw new Error("No answer from Linkdesk. Check the connection and try again.");
      return result.data;
    },
    onSuccess: (data) => onStarted(data.jobId),
  });

  // Enter applies: the apply button has focus when the review opens.
  useEffect(() => applyRef.current?.focus(), []);

  const differing = useMemo(() => review.rows.filter((r) => !isInCategory(r, target)).length, [review.rows, target]);
  const tooMany = ticked.size > BULK_MAX_ITEMS;
  const toggle = (id: string) =>
    setTicked((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <section
      aria-labelledby="review-heading"
      className="space-y-3 rounded-lg border border-indigo-200 bg-indigo-50/60 p-3"
      data-testid="review-list"
      onKeyDown={(event) => {
        if (event.key === "Escape" && !changingTarget) {
          event.stopPropagation();
          onClose();
        }
      }}
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id="review-heading" className="text-sm font-semibold text-slate-900">
          Review: {review.title}
        </h3>
        <button
          type="button"
          onClick={onClose}
          className="rounded text-sm text-slate-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          Close
        </button>
      </div>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span>
          Set to <strong data-testid="review-target">{describe(target)}</strong>
        </span>
        {!changingTarget ? (
          <button
            type="button"
            onClick={() => setChangingTarget(true)}
            className="rounded border border-slate-300 bg-white px-1.5 py-0.5 text-xs focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            Change target
          </button>
        ) : null}
        <span className="text-slate-600">
          {review.rows.length} listed, {differing} in another category now.
        </span>
      </div>
      {changingTarget ? (
        <div className="max-w-md">
          <CategoryCombobox
            label="Target category of the bulk correction"
            current={target}
            autoFocus
            onChoose={(pair) => {
              setTarget(pair);
              setTicked(new Set(review.rows.filter((r) => !isInCategory(r, pair)).map((r) => r.id)));
              setChangingTarget(false);
              requestAnimationFrame(() => applyRef.current?.focus());
            }}
            onCancel={() => setChangingTarget(false)}
          />
        </div>
      ) : null}
      <ScrollTable className="max-h-80 overflow-y-auto rounded border border-slate-200 bg-white">
        <table className="min-w-full text-left text-sm" aria-label="Transactions to correct">
          <thead className="sticky top-0 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="w-8 px-2 py-1.5">
                <input
                  type="checkbox"
                  aria-label="Tick every listed transaction"
                  className="size-4 accent-indigo-600"
                  checked={ticked.size === review.rows.length && review.rows.length > 0}
                  onChange={(event) =>
                    setTicked(event.target.checked ? new Set(review.rows.map((r) => r.id)) : new Set())
                  }
                />
              </th>
              <th scope="col" className="px-2 py-1.5">
                Date
              </th>
              <th scope="col" className="px-2 py-1.5">
                Description
              </th>
              <th scope="col" className="px-2 py-1.5 text-right">
                Amount
              </th>
              <th scope="col" className="px-2 py-1.5">
                Now (confidence)
              </th>
              <th scope="col" className="px-2 py-1.5">
                Proposed
              </th>
            </tr>
          </thead>
          <tbody>
            {review.rows.map((row) => {
              const same = isInCategory(row, target);
              const confidence = confidenceOf(row);
              return (
                <tr key={row.id} className="border-t border-slate-100" data-testid="review-row" data-row-id={row.id}>
                  <td className="px-2 py-1">
                    <input
                      type="checkbox"
                      className="size-4 accent-indigo-600"
                      aria-label={`Correct ${row.description || row.id} of ${row.date}`}
                      checked={ticked.has(row.id)}
                      onChange={() => toggle(row.id)}
                    />
                  </td>
                  <td className="whitespace-nowrap px-2 py-1 tabular-nums text-slate-700">{row.date}</td>
                  <td className="max-w-72 truncate px-2 py-1">{row.description || row.id}</td>
                  <td className="whitespace-nowrap px-2 py-1 text-right tabular-nums">{formatAmount(row)}</td>
                  <td className="px-2 py-1 text-slate-700">
                    {describe(row)}
                    {confidence !== null ? <span className="ml-1 text-xs text-slate-500">({confidence}%)</span> : null}
                  </td>
                  <td className="px-2 py-1">
                    {same ? (
                      <span className="text-slate-500">Already there</span>
                    ) : (
                      <span className="text-indigo-800">→ {describe(target)}</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollTable>
      <div className="flex flex-wrap items-center gap-3">
        <button
          ref={applyRef}
          type="button"
          disabled={ticked.size === 0 || tooMany || start.isPending}
          onClick={() => start.mutate()}
          className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-50"
        >
          {start.isPending ? "Starting…" : `Apply to ${ticked.size} ticked`}
        </button>
        <span className="text-sm text-slate-700" data-testid="bulk-cost">
          {tooMany
            ? `At most ${BULK_MAX_ITEMS.toLocaleString("en")} at a time: untick some or narrow the filter.`
            : cost.data
              ? `Before it starts: ${cost.data.text}.`
              : cost.error
                ? "The cost could not be estimated."
                : "Estimating the cost…"}
        </span>
      </div>
      {start.error ? (
        <p role="alert" className="text-sm text-red-700">
          Not started: {start.error.message}
        </p>
      ) : null}
    </section>
  );
}
