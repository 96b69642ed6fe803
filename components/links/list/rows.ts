import type { LinkListItem, LinkProductStatus } from "@/lib/links/list-query";
import { PRODUCTS } from "@/lib/upstream/schemas";

// What the links table needs of a page of rows, and nothing more: the rows cross to the browser in the page's RSC
// payload (inline in the HTML as well), so fields the table does not show (read times, deprecated fields, the product
// error codes the filters use) and a product's empty fields stay on the server. Four things keep the rest short:
// times are milliseconds before the page's newest time (8 digits or so, not 24 characters of ISO text with its quotes
// escaped in the HTML), a product the spec names is its place in PRODUCTS, an institution's name and picture address
// sit in one table by id that the rows point into, and a row and a product are arrays of their fields in a set order
// rather than objects repeating every field's name. The browser puts the rows back together (linkTableRows) before the
// columns read them.

/** A time as epoch milliseconds; a value the upstream sent that is not a time stays the text it was. */
export type TableTime = number | string;

/** A product's status with its empty fields left out. */
export interface LinkTableProduct {
  product: string;
  refreshedAt?: TableTime;
  errorCode?: string;
  errorMessage?: string;
  unavailable?: string;
}

/** A row as the columns read it. */
export type LinkTableRow = Pick<
  LinkListItem,
  | "linkId"
  | "institutionId"
  | "institutionName"
  | "institutionAvatar"
  | "state"
  | "errorCode"
  | "provider"
  | "linkTags"
  | "learnedFrom"
> & {
  createdAt: TableTime | null;
  lastRefreshedAt: TableTime | null;
  learnedAt: TableTime | null;
  products: LinkTableProduct[];
};

export interface LinkTableInstitution {
  name: string | null;
  avatar: string | null;
}

/** A product's status as it crosses to the browser: its place in PRODUCTS (or its name, for one the spec does not
 * name), then its fields in LinkTableProduct's order, the trailing empty ones left out (null stands for an empty one
 * before a filled one). Times here and in a row are milliseconds before the page's `at`, or text. */
export type LinkTablePageProduct = [
  product: number | string,
  refreshedAt?: TableTime | null,
  errorCode?: string | null,
  errorMessage?: string | null,
  unavailable?: string | null,
];

/** A row as it crosses to the browser: its fields by position, not by name (50 rows would repeat every name 50 times),
 * then its institution's name and picture only when the page's table lacks them. */
export type LinkTablePageRow = [
  linkId: string,
  createdAt: TableTime | null,
  institutionId: string | null,
  state: string | null,
  errorCode: string | null,
  provider: string | null,
  linkTags: string[],
  lastRefreshedAt: TableTime | null,
  learnedFrom: LinkTableRow["learnedFrom"],
  learnedAt: TableTime | null,
  products: LinkTablePageProduct[],
  ownInstitution?: Partial<LinkTableInstitution>,
];

/** One page of the table, as it crosses to the browser. */
export interface LinkTablePage {
  /** The newest time on the page (epoch ms): the rows' times count back from it. */
  at: number;
  rows: LinkTablePageRow[];
  /** By institution id (a Map: ids are upstream text, "__proto__" included): the name and picture of the first row naming it. */
  institutions: Map<string, LinkTableInstitution>;
}

const KNOWN_PRODUCTS: readonly string[] = PRODUCTS;

const tablePages = new WeakMap<readonly LinkListItem[], LinkTablePage>();

/**
 * linkTablePage once per array of rows: a kept read of a links view (cachedLinkPage) is shared by every view in its
 * time, and so is its table page (about 0.17 ms of a /links view otherwise). The rows must not change afterwards.
 */
export function sharedLinkTablePage(items: readonly LinkListItem[]): LinkTablePage {
  let page = tablePages.get(items);
  if (!page) tablePages.set(items, (page = linkTablePage(items)));
  return page;
}

export function linkTablePage(items: readonly LinkListItem[]): LinkTablePage {
  const institutions = new Map<string, LinkTableInstitution>();
  let at = 0;
  for (const item of items)
    for (const value of [
      item.createdAt,
      item.lastRefreshedAt,
      item.learnedAt,
      ...item.products.map((p) => p.refreshedAt),
    ]) {
      const time = value === null ? Number.NaN : Date.parse(value);
      if (time > at) at = time;
    }
  const tableTime = (value: string): TableTime => {
    const time = Date.parse(value);
    return Number.isNaN(time) ? value : at - time;
  };
  const tableProduct = (p: LinkProductStatus): LinkTablePageProduct => {
    const fields = [
      p.refreshedAt ? tableTime(p.refreshedAt) : null,
      p.errorCode || null,
      p.errorMessage || null,
      p.unavailable || null,
    ];
    while (fields.length > 0 && fields.at(-1) === null) fields.pop();
    const known = KNOWN_PRODUCTS.indexOf(p.product);
    return [known >= 0 ? known : p.product, ...fields] as LinkTablePageProduct;
  };
  const rows = items.map((item): LinkTablePageRow => {
    const {
      linkId,
      createdAt,
      institutionId,
      institutionName,
      institutionAvatar,
      state,
      errorCode,
      provider,
      linkTags,
      lastRefreshedAt,
      learnedFrom,
      learnedAt,
    } = item;
    const row: LinkTablePageRow = [
      linkId,
      createdAt === null ? null : tableTime(createdAt),
      institutionId,
      state,
      errorCode,
      provider,
      linkTags,
      lastRefreshedAt === null ? null : tableTime(lastRefreshedAt),
      learnedFrom,
      learnedAt === null ? null : tableTime(learnedAt),
      item.products.map(tableProduct),
    ];
    // A row whose institution reads differently from the table's (read at another time, say) keeps its own words.
    let known: LinkTableInstitution | undefined;
    if (institutionId !== null) {
      known = institutions.get(institutionId);
      if (!known) institutions.set(institutionId, (known = { name: institutionName, avatar: institutionAvatar }));
    }
    const own: Partial<LinkTableInstitution> = {};
    if (known?.name !== institutionName) own.name = institutionName;
    if (known?.avatar !== institutionAvatar) own.avatar = institutionAvatar;
    if ("name" in own || "avatar" in own) row.push(own);
    return row;
  });
  return { at, rows, institutions };
}

/** A time as the table reads it: epoch milliseconds, or the text the upstream sent. */
const timeAt = (at: number, value: TableTime): TableTime => (typeof value === "number" ? at - value : value);

function productOf(
  at: number,
  [product, refreshedAt, errorCode, errorMessage, unavailable]: LinkTablePageProduct,
): LinkTableProduct {
  const status: LinkTableProduct = { product: typeof product === "number" ? KNOWN_PRODUCTS[product]! : product };
  if (refreshedAt !== undefined && refreshedAt !== null) status.refreshedAt = timeAt(at, refreshedAt);
  if (errorCode) status.errorCode = errorCode;
  if (errorMessage) status.errorMessage = errorMessage;
  if (unavailable) status.unavailable = unavailable;
  return status;
}

/** The page's rows by name again, with their institutions filled back in, for the columns. */
export function linkTableRows({ at, rows, institutions }: LinkTablePage): LinkTableRow[] {
  return rows.map(
    ([
      linkId,
      createdAt,
      institutionId,
      state,
      errorCode,
      provider,
      linkTags,
      lastRefreshedAt,
      learnedFrom,
      learnedAt,
      products,
      own,
    ]) => {
      const known = institutionId === null ? undefined : institutions.get(institutionId);
      return {
        linkId,
        createdAt: createdAt === null ? null : timeAt(at, createdAt),
        institutionId,
        institutionName: own && "name" in own ? (own.name ?? null) : (known?.name ?? null),
        institutionAvatar: own && "avatar" in own ? (own.avatar ?? null) : (known?.avatar ?? null),
        state,
        errorCode,
        provider,
        linkTags,
        lastRefreshedAt: lastRefreshedAt === null ? null : timeAt(at, lastRefreshedAt),
        learnedFrom,
        learnedAt: learnedAt === null ? null : timeAt(at, learnedAt),
        products: products.map((product) => productOf(at, product)),
      };
    },
  );
}
