import { NOT_KNOWN, productErrorLabel } from "@/lib/links/error-codes";
import { type LinkDetails, PRODUCTS, type ProductStatus } from "@/lib/links/types";
import { ScrollTable } from "@/components/ui/scroll-table";
import { Time } from "./format";

const COLUMNS = [
  "Product",
  "Refreshed",
  "Last attempt",
  "Error code",
  "Error message",
  "Unavailable",
  "Last enriched",
] as const;

/** Each granted product's refresh status, as the upstream reported it (its messages are text only). */
export function ProductStatusTable({ products }: { products: LinkDetails["products"] }) {
  // The spec's products in its order, then any the upstream added since, as sent.
  const known: readonly string[] = PRODUCTS;
  const rows = [...PRODUCTS, ...Object.keys(products).filter((p) => !known.includes(p))].flatMap((product) => {
    const status: ProductStatus | undefined = products[product];
    return status ? [{ product, status, isKnown: known.includes(product) }] : [];
  });
  if (rows.length === 0) return <p className="text-sm text-slate-500">No product granted.</p>;
  return (
    <ScrollTable>
      <table className="min-w-full text-left text-sm">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            {COLUMNS.map((name) => (
              <th key={name} scope="col" className="whitespace-nowrap px-3 py-2">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map(({ product, status, isKnown }) => (
            <tr key={product} className="align-top" data-testid={`product-${product}`}>
              <th scope="row" className="whitespace-nowrap px-3 py-2 font-mono text-xs font-medium text-slate-800">
                {product}
                {isKnown ? null : <span className="block font-sans font-normal text-slate-500">{NOT_KNOWN}</span>}
              </th>
              <td className="whitespace-nowrap px-3 py-2 text-xs">
                <Time value={status.refreshed_at} none="never" />
              </td>
              <td className="whitespace-nowrap px-3 py-2 text-xs">
                <Time value={status.last_attempted_at} none="never" />
              </td>
              <td className="px-3 py-2">
                {status.error_code ? (
                  <span
                    className="rounded bg-red-50 px-1.5 py-0.5 text-xs text-red-800 ring-1 ring-inset ring-red-200"
                    title={status.error_code}
                  >
                    {productErrorLabel(status.error_code)}
                  </span>
                ) : (
                  <span className="text-slate-500">—</span>
                )}
              </td>
              <td className="max-w-xs px-3 py-2 text-xs text-slate-700">
                {status.error_message ?? <span className="text-slate-500">—</span>}
              </td>
              <td className="max-w-xs px-3 py-2 text-xs text-slate-700">
                {status.unavailable ?? <span className="text-slate-500">—</span>}
              </td>
              <td className="whitespace-nowrap px-3 py-2 text-xs">
                {product === "transactions" || status.last_enriched ? (
                  <Time value={status.last_enriched} none="never" />
                ) : (
                  <span className="text-slate-500">n/a</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
