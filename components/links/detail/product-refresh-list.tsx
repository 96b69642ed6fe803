"use client";

import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useHydrated } from "@/components/ui/use-hydrated";
import { refreshProducts } from "@/lib/actions/link-operations";
import type { RefreshOffer } from "@/lib/links/operations";
import { PRODUCT_LABELS } from "@/lib/schemas/link-operations";
import { operationProblem } from "./operation-problem";

/**
 * Each granted product with when it may be refreshed (from its last refresh and Linkdesk's budget, worked out on the
 * server), and a button for those that may be refreshed now. One not yet refreshable is shown with its time instead
 * of being tried: the upstream would answer 429.
 */
export function ProductRefreshList({ linkId, offers }: { linkId: string; offers: RefreshOffer[] }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const refreshing = useAction(refreshProducts, { onSuccess: () => router.refresh() });
  // The answer's schedule until the page's own comes back with the refreshed link (they agree).
  const shown = refreshing.hasSucceeded && refreshing.result.data ? refreshing.result.data.slots : offers;
  const problem = operationProblem(refreshing.result, refreshing.hasErrored);
  const started = refreshing.hasSucceeded ? refreshing.result.data : undefined;
  const asked = refreshing.input?.products ?? [];

  return (
    <div
      aria-labelledby="product-refresh-heading"
      role="group"
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-4"
    >
      <div>
        <h3 id="product-refresh-heading" className="text-base font-semibold text-slate-900">
          Refresh products
        </h3>
        <p className="text-xs text-slate-500">
          The upstream fetches a product from the institution again, in the background: accounts at most once an hour,
          every other product once a day, and some institutions only at certain hours.
        </p>
      </div>
      {shown.length === 0 ? (
        <p className="text-sm text-slate-500">No product granted.</p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {shown.map((offer) => {
            const held = Boolean(offer.blocked || offer.nextAt);
            const pending = refreshing.isPending && asked.includes(offer.product);
            return (
              <li
                key={offer.product}
                className="flex flex-wrap items-center justify-between gap-2 py-2"
                data-testid={`refresh-offer-${offer.product}`}
              >
                <p id={`refresh-offer-${offer.product}-when`} className="min-w-0 flex-1 text-sm text-slate-700">
                  {offer.sentence}
                </p>
                <button
                  type="button"
                  disabled={held || refreshing.isPending || !hydrated}
                  aria-describedby={`refresh-offer-${offer.product}-when`}
                  onClick={() => refreshing.execute({ linkId, products: [offer.product] })}
                  className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-800 hover:bg-slate-50 disabled:opacity-60"
                >
                  {pending ? "Asking…" : `Refresh ${PRODUCT_LABELS[offer.product]}`}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {problem && !refreshing.isPending ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {problem}
        </p>
      ) : null}
      {started && !refreshing.isPending ? (
        <p
          role="status"
          className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900"
        >
          The upstream started refreshing {started.products.map((product) => PRODUCT_LABELS[product]).join(", ")}. It
          works in the background; the Products table shows the new refresh time once it is done (reload the page to see
          it).
        </p>
      ) : null}
    </div>
  );
}
