import Link from "next/link";
import type { Category, Subcategory } from "@/lib/upstream/taxonomy";
import { categoryLabel, subcategoryLabel } from "@/lib/upstream/taxonomy";
import type { WireTransaction } from "@/lib/upstream/schemas";
import { CorrectCategoryForm } from "./correct-category-form";

/** Confidence below this is flagged for support staff to check. */
export const LOW_CONFIDENCE = 60;

function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

export function TransactionsTable({
  linkId,
  transactions,
  canCorrect,
  page,
  total,
  size,
}: {
  linkId: string;
  transactions: WireTransaction[];
  canCorrect: boolean;
  page: number;
  total: number;
  size: number;
}) {
  const pages = Math.max(1, Math.ceil(total / size));
  return (
    <div className="space-y-3">
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table className="min-w-full divide-y divide-slate-200 text-sm">
          <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
            <tr>
              <th className="px-3 py-2">Date</th>
              <th className="px-3 py-2">Description</th>
              <th className="px-3 py-2 text-right">Amount</th>
              <th className="px-3 py-2">Category</th>
              {canCorrect ? <th className="px-3 py-2">Correct</th> : null}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {transactions.map((t) => {
              const category = t.enrichment?.category;
              const subcategory = t.enrichment?.subcategory;
              const confidence = Math.min(category?.confidence ?? 100, subcategory?.confidence ?? 100);
              return (
                <tr key={t.transaction_id} data-testid="transaction-row" className="align-top">
                  <td className="whitespace-nowrap px-3 py-2 text-slate-600">{t.date}</td>
                  <td className="px-3 py-2">
                    <div className="font-medium text-slate-900">{t.description ?? t.raw_description ?? "—"}</div>
                    {t.enrichment?.merchant?.name ? <div className="text-xs text-slate-500">{t.enrichment.merchant.name}</div> : null}
                    {t.pending ? <span className="text-xs text-amber-700">Pending</span> : null}
                  </td>
                  <td className={`whitespace-nowrap px-3 py-2 text-right tabular-nums ${t.type === "credit" ? "text-emerald-700" : "text-slate-900"}`}>
                    {t.type === "credit" ? "+" : "−"}
                    {money(t.amount, t.currency)}
                  </td>
                  <td className="px-3 py-2">
                    {category ? (
                      <>
                        <div>{categoryLabel(category.value)}</div>
                        <div className="text-xs text-slate-500">{subcategory ? subcategoryLabel(subcategory.value) : "No subcategory"}</div>
                        {confidence < LOW_CONFIDENCE ? (
                          <span className="mt-0.5 inline-block rounded bg-amber-100 px-1.5 text-xs text-amber-900">Low confidence ({confidence}%)</span>
                        ) : null}
                      </>
                    ) : (
                      <span className="text-slate-500">Not enriched</span>
                    )}
                  </td>
                  {canCorrect ? (
                    <td className="px-3 py-2">
                      {category ? (
                        <CorrectCategoryForm
                          linkId={linkId}
                          transactionId={t.transaction_id}
                          current={{ category: category.value as Category, subcategory: subcategory?.value as Subcategory | undefined }}
                        />
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <nav aria-label="Transaction pages" className="flex items-center gap-3 text-sm">
        {page > 1 ? (
          <Link className="text-indigo-700 underline" href={`/links/${encodeURIComponent(linkId)}?page=${page - 1}`}>
            Previous
          </Link>
        ) : null}
        <span className="text-slate-600">
          Page {page} of {pages} ({total} transactions)
        </span>
        {page < pages ? (
          <Link className="text-indigo-700 underline" href={`/links/${encodeURIComponent(linkId)}?page=${page + 1}`}>
            Next
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
