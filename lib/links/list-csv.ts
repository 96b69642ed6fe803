import "server-only";
import { type LinkListItem, type LinkProductStatus, linkViewBatches } from "./list-query";
import { csvRecord } from "../http/csv";
import type { Db } from "../db/client";
import type { LinkListParams } from "../schemas/links";
import { KNOWN_PROVIDERS, PRODUCT_ERROR_CODES, PRODUCTS } from "../upstream/schemas";
import { isKnownLinkErrorCode, isKnownLinkState } from "./error-codes";

// The CSV export of a links list view: the view's rows (list-query.ts), as text a spreadsheet will not run.

/** A product's status in one word or two: its error code, why it is unavailable, when it refreshed, or pending. */
export function productStatusText(p: LinkProductStatus): string {
  if (p.errorCode) return `error ${p.errorCode}`;
  if (p.unavailable) return `unavailable ${p.unavailable}`;
  if (p.refreshedAt) return p.refreshedAt;
  return "pending";
}

// Lists inside one CSV field are joined with ";": strip it (and line breaks) from the items so the list splits back.
const listItem = (text: string) => text.replace(/[;\r\n]+/g, " ");

const CSV_COLUMNS: readonly [string, (row: LinkListItem) => string | null][] = [
  ["link_id", (r) => r.linkId],
  ["institution", (r) => r.institutionName],
  ["institution_id", (r) => r.institutionId],
  ["state", (r) => r.state],
  ["error_code", (r) => r.errorCode],
  ["provider", (r) => r.provider],
  ["products", (r) => r.products.map((p) => `${listItem(p.product)}:${listItem(productStatusText(p))}`).join(";")],
  ["product_error_codes", (r) => r.productErrorCodes.map(listItem).join(";")],
  ["link_tags", (r) => r.linkTags.map(listItem).join(";")],
  ["last_refreshed_at", (r) => r.lastRefreshedAt],
  ["created_at", (r) => r.createdAt],
  ["seen_at", (r) => r.seenAt],
  ["learned_from", (r) => r.learnedFrom],
  ["learned_at", (r) => r.learnedAt],
  // Last, so the columns before it keep their places: which of the row's values this version of Linkdesk does not
  // know (the upstream added them since), as `field=value` pairs, e.g. `error_code=consent_revoked`.
  ["not_known_to_linkdesk", (r) => notKnownIn(r).map(listItem).join(";")],
];

/** The row's values outside the lists this version of Linkdesk knows. */
function notKnownIn(row: LinkListItem): string[] {
  const out: string[] = [];
  if (row.state && !isKnownLinkState(row.state)) out.push(`state=${row.state}`);
  if (row.errorCode && !isKnownLinkErrorCode(row.errorCode)) out.push(`error_code=${row.errorCode}`);
  if (row.provider && !(KNOWN_PROVIDERS as readonly string[]).includes(row.provider))
    out.push(`provider=${row.provider}`);
  for (const p of row.products)
    if (!(PRODUCTS as readonly string[]).includes(p.product)) out.push(`product=${p.product}`);
  for (const code of row.productErrorCodes)
    if (!(PRODUCT_ERROR_CODES as readonly string[]).includes(code)) out.push(`product_error=${code}`);
  return out;
}

export const LINKS_CSV_HEADER = CSV_COLUMNS.map(([name]) => name);

/**
 * Every row of the view as CSV text chunks (header first, then one chunk per batch), in the view's order; `page` is
 * ignored: an export is of the view, not of one page. The rows come in keyset batches (linkViewBatches), so memory
 * stays flat however many rows match.
 */
export async function* streamLinksCsv(
  db: Db,
  params: LinkListParams,
  { batchSize = 1000, now = new Date() }: { batchSize?: number; now?: Date } = {},
): AsyncGenerator<string, void, undefined> {
  yield csvRecord(LINKS_CSV_HEADER);
  for await (const items of linkViewBatches(db, params, { batchSize, now }))
    yield items.map((item) => csvRecord(CSV_COLUMNS.map(([, cell]) => cell(item)))).join("");
}
