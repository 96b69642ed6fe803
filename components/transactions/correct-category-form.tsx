"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useForm, useWatch } from "react-hook-form";
import { correctCategory, correctCategoryBulk, undoCorrection } from "@/lib/actions/transactions";
import { type CorrectCategoryInput, correctCategorySchema } from "@/lib/schemas/transactions";
import { BulkProgress } from "./bulk-progress";
import { CATEGORIES, type Category, type Subcategory, categoryLabel, subcategoriesOf, subcategoryLabel } from "@/lib/upstream/taxonomy";

/** The constrained dropdown: a category, then only that category's subcategories. */
export function CorrectCategoryForm({
  linkId,
  transactionId,
  current,
}: {
  linkId: string;
  transactionId: string;
  current: { category: Category; subcategory?: Subcategory };
}) {
  const router = useRouter();
  const form = useForm<CorrectCategoryInput>({
    resolver: zodResolver(correctCategorySchema),
    defaultValues: { linkId, transactionId, category: current.category, subcategory: current.subcategory, previous: current },
  });
  const correct = useAction(correctCategory, { onSuccess: () => router.refresh() });
  const undo = useAction(undoCorrection, { onSuccess: () => router.refresh() });
  const bulk = useAction(correctCategoryBulk);
  const category = useWatch({ control: form.control, name: "category" });
  const errors = form.formState.errors;
  const serverFieldError = correct.result.validationErrors?.fieldErrors;

  return (
    <form
      onSubmit={form.handleSubmit((values) => correct.execute(values))}
      noValidate
      className="grid grid-cols-[minmax(7rem,1fr)_minmax(7rem,1fr)_auto] items-start gap-2"
      aria-label={`Correct category of transaction ${transactionId}`}
    >
      <label className="sr-only" htmlFor={`category-${transactionId}`}>
        Category
      </label>
      <select
        id={`category-${transactionId}`}
        className="w-full min-w-0 rounded border border-slate-300 px-2 py-1 text-sm"
        {...form.register("category", {
          onChange: () => form.setValue("subcategory", undefined),
        })}
      >
        {CATEGORIES.map((c) => (
          <option key={c} value={c}>
            {categoryLabel(c)}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor={`subcategory-${transactionId}`}>
        Subcategory
      </label>
      <select
        id={`subcategory-${transactionId}`}
        className="w-full min-w-0 rounded border border-slate-300 px-2 py-1 text-sm"
        {...form.register("subcategory", { setValueAs: (v: string) => (v === "" ? undefined : v) })}
      >
        <option value="">(keep or default)</option>
        {subcategoriesOf(category).map((s) => (
          <option key={s} value={s}>
            {subcategoryLabel(s)}
          </option>
        ))}
      </select>
      <button
        type="submit"
        disabled={correct.isPending}
        className="rounded bg-indigo-600 px-2 py-1 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
      >
        {correct.isPending ? "Saving…" : "Save"}
      </button>
      {errors.subcategory?.message || serverFieldError?.subcategory ? (
        <p className="col-span-3 text-sm text-red-700">{errors.subcategory?.message ?? serverFieldError?.subcategory?.[0]}</p>
      ) : null}
      {correct.result.serverError ? (
        <p role="alert" className="col-span-3 text-sm text-red-700">
          {correct.result.serverError}
        </p>
      ) : null}
      {correct.result.data ? (
        <p role="status" className="col-span-3 text-sm text-emerald-800">
          Corrected to {categoryLabel(correct.result.data.updated?.enrichment?.category.value ?? category)}.{" "}
          {correct.result.data.similarCount > 0 ? `${correct.result.data.similarCount} similar past transactions found.` : null}{" "}
          <button
            type="button"
            className="underline"
            disabled={undo.isPending}
            onClick={() => undo.execute({ correlationId: correct.result.data!.correlationId })}
          >
            Undo
          </button>
        </p>
      ) : null}
      {correct.result.data && correct.result.data.similarCount > 0 && !bulk.result.data ? (
        <div className="col-span-3 rounded border border-indigo-200 bg-indigo-50 px-2 py-1.5 text-sm">
          <button
            type="button"
            disabled={bulk.isPending}
            className="rounded bg-indigo-600 px-2 py-0.5 font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
            onClick={() => {
              const data = correct.result.data!;
              const values = form.getValues();
              bulk.execute({
                linkId,
                category: values.category,
                subcategory: values.subcategory,
                items: data.similar.map((t) => ({
                  transactionId: t.transactionId,
                  previous: t.category ? { category: t.category, subcategory: t.subcategory } : undefined,
                })),
              });
            }}
          >
            Apply to the {correct.result.data.similarCount} similar
          </button>{" "}
          <span className="text-slate-700" data-testid="bulk-cost">
            {correct.result.data.bulkCost}
          </span>
          {bulk.result.serverError ? (
            <p role="alert" className="text-red-700">
              {bulk.result.serverError}
            </p>
          ) : null}
        </div>
      ) : null}
      {bulk.result.data ? (
        <div className="col-span-3">
          <BulkProgress jobId={bulk.result.data.jobId} />
        </div>
      ) : null}
      {undo.result.serverError ? (
        <p role="alert" className="col-span-3 text-sm text-red-700">
          {undo.result.serverError}
        </p>
      ) : null}
      {undo.result.data ? (
        <p role="status" className="col-span-3 text-sm text-slate-700">
          Restored {categoryLabel(undo.result.data.restored.category)}.
        </p>
      ) : null}
    </form>
  );
}
