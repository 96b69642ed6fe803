import "server-only";
import { type LinkListItem, type LinkProductStatus, linkViewBatches } from "./list-query";
import { csvRecord } from "../http/csv";
import type { Db } from "../db/client";
import type { LinkListParams } from "../schemas/links";

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
];

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
