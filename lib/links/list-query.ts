import "server-only";
import {
  and,
  arrayContains,
  asc,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { errorCodesActedOnBy } from "./error-codes";
import { type LinkSort, linkListSearchParams, resolveLinkSort, type SortDir } from "./list-params";
import { readModelVersion } from "./read-model-version";
import { cachedReadBy } from "../db/cached-read";
import type { Db } from "../db/client";
import { type LinkSource, links, reconnectRequests } from "../db/schema";
import type { LinkListParams } from "../schemas/links";
import { PRODUCTS } from "../upstream/schemas";

// Reading the links read model for the Links page: one page of the filtered and sorted view with the count of the
// whole view, and every row of the view in batches (for the CSV export, lib/links/list-csv.ts).
//
// Every sort reads an index in order (each ends in link_id, the tie-break) instead of sorting the table: links with a
// value come first, in the index's order forwards or backwards, then links without one (nulls last either way), each
// part a plain index scan. That keeps the first page of 100,000 links a few index pages away, filtered or not.

// ---------------------------------------------------------------------------------------------------------------------
// Sorting

interface SortSpec {
  column: AnyPgColumn;
  /** The column's direction in its index (which ends in link_id ascending); institution_name has no index. */
  indexDir: SortDir;
  nullable: boolean;
}

const SORTS: Record<LinkSort, SortSpec> = {
  created_at: { column: links.createdAt, indexDir: "desc", nullable: true },
  last_refreshed_at: { column: links.lastRefreshedAt, indexDir: "asc", nullable: true },
  institution_name: { column: links.institutionName, indexDir: "asc", nullable: true },
  state: { column: links.state, indexDir: "asc", nullable: true },
  error_code: { column: links.errorCode, indexDir: "asc", nullable: true },
  provider: { column: links.provider, indexDir: "asc", nullable: true },
  link_id: { column: links.linkId, indexDir: "asc", nullable: false },
};

/**
 * The order within a part: the sort column in the requested direction, then link_id ascending when that is the
 * index's own direction and descending when the index is read backwards, so either direction is one index scan.
 * The null part is ordered by link_id alone, the same way round.
 */
function orderOf(sort: LinkSort, dir: SortDir): { columnDir: SortDir; tieDir: SortDir } {
  return { columnDir: dir, tieDir: dir === SORTS[sort].indexDir ? "asc" : "desc" };
}

const by = (column: AnyPgColumn | SQL, dir: SortDir) => (dir === "asc" ? asc(column) : desc(column));
const after = (column: AnyPgColumn, dir: SortDir, value: unknown) =>
  dir === "asc" ? gt(column, value) : lt(column, value);
const notBefore = (column: AnyPgColumn, dir: SortDir, value: unknown) =>
  dir === "asc" ? gte(column, value) : lte(column, value);

// ---------------------------------------------------------------------------------------------------------------------
// Filters

const DAY_MS = 24 * 60 * 60 * 1000;

/** `%`, `_` and `\` are LIKE wildcards; a link id prefix is matched literally. */
const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The WHERE clause of a view. `institution` is an institution id, else a name (any case): the id is looked up first
 * through links_institution_idx, since a name has no index and the filter dropdowns send ids.
 */
async function whereOf(db: Db, params: LinkListParams, now: Date): Promise<SQL | undefined> {
  const conditions: (SQL | undefined)[] = [];
  if (params.state) conditions.push(eq(links.state, params.state));
  if (params.error_code) conditions.push(eq(links.errorCode, params.error_code));
  if (params.who_acts) conditions.push(inArray(links.errorCode, errorCodesActedOnBy(params.who_acts)));
  if (params.institution) conditions.push(await institutionCondition(db, params.institution));
  if (params.provider) conditions.push(eq(links.provider, params.provider));
  if (params.tag) conditions.push(arrayContains(links.linkTags, [params.tag]));
  if (params.product_error) conditions.push(arrayContains(links.productErrorCodes, [params.product_error]));
  if (params.stale !== undefined) {
    // Never refreshed counts as not refreshed in N days.
    const cutoff = new Date(now.getTime() - params.stale * DAY_MS);
    conditions.push(or(isNull(links.lastRefreshedAt), lt(links.lastRefreshedAt, cutoff)));
  }
  if (params.q)
    conditions.push(or(sql`${links.linkId} like ${likePrefix(params.q)}`, arrayContains(links.linkTags, [params.q])));
  if (params.campaign)
    conditions.push(sql`exists (select 1 from ${reconnectRequests} r where r.link_id = ${links.linkId}
      and r.job_id = ${params.campaign} and r.state = 'sent' and r.reconnected_at is null)`);
  return and(...conditions);
}

async function institutionCondition(db: Db, institution: string): Promise<SQL> {
  const [known] = await db
    .select({ one: sql`1` })
    .from(links)
    .where(eq(links.institutionId, institution))
    .limit(1);
  return known ? eq(links.institutionId, institution) : sql`lower(${links.institutionName}) = lower(${institution})`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Rows

/** One product's refresh status, as the upstream last reported it (times are the upstream's strings). */
export interface LinkProductStatus {
  product: string;
  refreshedAt: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  unavailable: string | null;
}

/**
 * One row of the list, for the table and the CSV. Times Linkdesk stored are ISO strings (they cross to the browser);
 * every string besides them came from the upstream and is rendered as text only.
 */
export interface LinkListItem {
  linkId: string;
  createdAt: string | null;
  institutionId: string | null;
  institutionName: string | null;
  institutionAvatar: string | null;
  /** Null: listed by GET /links, details not read yet. */
  state: string | null;
  errorCode: string | null;
  provider: string | null;
  linkTags: string[];
  productErrorCodes: string[];
  /** The link's granted products in PRODUCTS order, then any other the upstream named. */
  products: LinkProductStatus[];
  lastRefreshedAt: string | null;
  seenAt: string | null;
  deletedSeenAt: string | null;
  /** Where Linkdesk first learned of the link (lib/links/discovery.ts), and when; null for rows from before it was kept. */
  learnedFrom: LinkSource | null;
  learnedAt: string | null;
  /** Deprecated upstream fields: shown as such, never filtered or sorted on. */
  deprecated: { tags: string[] | null; lastSyncedAt: string | null };
}

// Only the parts of `raw` the list shows, not the whole Link.
const listColumns = {
  linkId: links.linkId,
  createdAt: links.createdAt,
  institutionId: links.institutionId,
  institutionName: links.institutionName,
  institutionAvatar: links.institutionAvatar,
  state: links.state,
  errorCode: links.errorCode,
  provider: links.provider,
  linkTags: links.linkTags,
  productErrorCodes: links.productErrorCodes,
  lastRefreshedAt: links.lastRefreshedAt,
  seenAt: links.seenAt,
  deletedSeenAt: links.deletedSeenAt,
  learnedFrom: links.learnedFrom,
  learnedAt: links.learnedAt,
  products: sql<unknown>`${links.raw} -> 'products'`,
  deprecatedTags: sql<unknown>`${links.raw} -> 'tags'`,
  deprecatedLastSyncedAt: sql<unknown>`${links.raw} ->> 'last_synced_at'`,
};

type LinkRow = typeof links.$inferSelect;
type SelectedRow = Pick<
  LinkRow,
  Exclude<keyof typeof listColumns, "products" | "deprecatedTags" | "deprecatedLastSyncedAt">
> & {
  products: unknown;
  deprecatedTags: unknown;
  deprecatedLastSyncedAt: unknown;
};

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const textOrNull = (value: unknown) => (typeof value === "string" ? value : null);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function productsOf(value: unknown): LinkProductStatus[] {
  if (!isRecord(value)) return [];
  const known = PRODUCTS.filter((p) => p in value);
  const others = Object.keys(value)
    .filter((p) => !(PRODUCTS as readonly string[]).includes(p))
    .sort();
  return [...known, ...others].map((product) => {
    const status = isRecord(value[product]) ? value[product] : {};
    return {
      product,
      refreshedAt: textOrNull(status.refreshed_at),
      errorCode: textOrNull(status.error_code),
      errorMessage: textOrNull(status.error_message),
      unavailable: textOrNull(status.unavailable),
    };
  });
}

function itemOf(row: SelectedRow): LinkListItem {
  return {
    linkId: row.linkId,
    createdAt: iso(row.createdAt),
    institutionId: row.institutionId,
    institutionName: row.institutionName,
    institutionAvatar: row.institutionAvatar,
    state: row.state,
    errorCode: row.errorCode,
    provider: row.provider,
    linkTags: row.linkTags,
    productErrorCodes: row.productErrorCodes,
    products: productsOf(row.products),
    lastRefreshedAt: iso(row.lastRefreshedAt),
    seenAt: iso(row.seenAt),
    deletedSeenAt: iso(row.deletedSeenAt),
    learnedFrom: row.learnedFrom,
    learnedAt: iso(row.learnedAt),
    deprecated: {
      tags: Array.isArray(row.deprecatedTags)
        ? row.deprecatedTags.map((t) => (typeof t === "string" ? t : JSON.stringify(t)))
        : null,
      lastSyncedAt: textOrNull(row.deprecatedLastSyncedAt),
    },
  };
}

/** Where a page or a CSV batch ends: the last row's sort value and link id, and which part it was in. */
interface Position {
  part: "values" | "nulls";
  value: unknown;
  linkId: string;
}

/**
 * Rows of one part of the view in order: those with a sort value, or (nullable sorts) those without. From `position`
 * on by keyset (the export), or skipping `offset` rows (the page).
 */
async function selectPart(
  db: Db,
  where: SQL | undefined,
  sort: LinkSort,
  dir: SortDir,
  part: Position["part"],
  { limit, offset = 0, position }: { limit: number; offset?: number; position?: Position },
): Promise<SelectedRow[]> {
  const { column } = SORTS[sort];
  const { columnDir, tieDir } = orderOf(sort, dir);
  const conditions: (SQL | undefined)[] = [where];
  let order: SQL[];
  if (part === "values") {
    if (SORTS[sort].nullable) conditions.push(isNotNull(column));
    if (position && sort !== "link_id") {
      // The redundant bound lets the index scan start at the position rather than filter its way there.
      conditions.push(
        notBefore(column, columnDir, position.value),
        or(after(column, columnDir, position.value), after(links.linkId, tieDir, position.linkId)),
      );
    } else if (position) {
      conditions.push(after(links.linkId, columnDir, position.linkId));
    }
    order = sort === "link_id" ? [by(links.linkId, columnDir)] : [by(column, columnDir), by(links.linkId, tieDir)];
  } else {
    conditions.push(isNull(column));
    if (position) conditions.push(after(links.linkId, tieDir, position.linkId));
    order = [by(links.linkId, tieDir)];
  }
  const query = db
    .select(listColumns)
    .from(links)
    .where(and(...conditions))
    .orderBy(...order)
    .limit(limit);
  return offset > 0 ? query.offset(offset) : query;
}

export interface LinkListPage {
  rows: LinkListItem[];
  /** Links in the whole view. */
  total: number;
  page: number;
  /** At least 1, so "page 1 of 1" reads right for an empty view. */
  pageCount: number;
  pageSize: number;
  /** The order applied (the URL's or the default). */
  sort: LinkSort;
  dir: SortDir;
  /** The clock the view was read at (staleness counts back from it), for "3 h ago" beside it. */
  readAt: Date;
}

export const LINK_PAGE_SIZE = 50;

/**
 * One page of the view, counted with the same filter. Offset paging, so any page can be linked to by number; the
 * first pages cost an index scan of a page or two, a far page the rows before it.
 */
export async function listLinks(
  db: Db,
  params: LinkListParams,
  { pageSize = LINK_PAGE_SIZE, now = new Date() }: { pageSize?: number; now?: Date } = {},
): Promise<LinkListPage> {
  const { sort, dir } = resolveLinkSort(params);
  const page = params.page ?? 1;
  const offset = (page - 1) * pageSize;
  const where = await whereOf(db, params, now);
  const { column, nullable } = SORTS[sort];

  const [[counts], values] = await Promise.all([
    db
      .select({
        total: sql<number>`count(*)`.mapWith(Number),
        withValue: (nullable ? sql<number>`count(${column})` : sql<number>`count(*)`).mapWith(Number),
      })
      .from(links)
      .where(where),
    selectPart(db, where, sort, dir, "values", { limit: pageSize, offset }),
  ]);
  const total = counts?.total ?? 0;
  const withValue = counts?.withValue ?? 0;
  let rows = values;
  if (nullable && rows.length < pageSize && total > withValue) {
    const nulls = await selectPart(db, where, sort, dir, "nulls", {
      limit: pageSize - rows.length,
      offset: Math.max(0, offset - withValue),
    });
    rows = [...rows, ...nulls];
  }
  return {
    rows: rows.map(itemOf),
    total,
    page,
    pageCount: Math.max(1, Math.ceil(total / pageSize)),
    pageSize,
    sort,
    dir,
    readAt: now,
  };
}

const keptPages = cachedReadBy((db, params: LinkListParams) => listLinks(db, params), {
  ttlMs: 5_000,
  max: 200,
});

/**
 * listLinks kept 5 s per view (its filters, sort and page) and shared by everyone who opens that view meanwhile, as the
 * page's counts are: the rows and their count read the whole view, twice a view at 100,000 links. A change to the read
 * model made by this instance shows on the next view at once (readModelVersion); another instance's, within the 5 s.
 * The page's `readAt` is when the rows were read, so its relative times and "as of" stay true to them.
 */
export function cachedLinkPage(db: Db, params: LinkListParams): Promise<LinkListPage> {
  return keptPages(db, `${readModelVersion()}?${linkListSearchParams(params)}`, params);
}

/**
 * Every row of the view in batches, in the view's order, for the CSV export; `page` is ignored: an export is of the
 * view, not of one page. Batches page by keyset on (sort value, link_id), so memory stays
 * flat and each batch starts where the last ended, however many rows match.
 */
export async function* linkViewBatches(
  db: Db,
  params: LinkListParams,
  { batchSize = 1000, now = new Date() }: { batchSize?: number; now?: Date } = {},
): AsyncGenerator<LinkListItem[], void, undefined> {
  const { sort, dir } = resolveLinkSort(params);
  const where = await whereOf(db, params, now);
  const parts: Position["part"][] = SORTS[sort].nullable ? ["values", "nulls"] : ["values"];
  for (const part of parts) {
    let position: Position | undefined;
    for (;;) {
      const rows = await selectPart(db, where, sort, dir, part, { limit: batchSize, position });
      if (rows.length > 0) yield rows.map(itemOf);
      if (rows.length < batchSize) break;
      const last = rows[rows.length - 1]!;
      position = { part, value: sortValue(last, sort), linkId: last.linkId };
    }
  }
}

function sortValue(row: SelectedRow, sort: LinkSort): unknown {
  switch (sort) {
    case "created_at":
      return row.createdAt;
    case "last_refreshed_at":
      return row.lastRefreshedAt;
    case "institution_name":
      return row.institutionName;
    case "state":
      return row.state;
    case "error_code":
      return row.errorCode;
    case "provider":
      return row.provider;
    case "link_id":
      return row.linkId;
  }
}
