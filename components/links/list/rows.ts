import type { LinkListItem, LinkProductStatus } from "@/lib/links/query";

// What the links table needs of a page of rows, and nothing more: the rows cross to the browser in the page's RSC
// payload (inline in the HTML as well), so fields the table does not show (read times, deprecated fields, the product
// error codes the filters use) and a product's empty fields stay on the server. Two things are written once instead of
// once a row: times are epoch milliseconds (13 digits, not 24 characters of ISO text with its quotes escaped in the
// HTML), and an institution's name and picture address sit in one table by id that the rows point into. The browser
// puts the rows back together (linkTableRows) before the columns read them.

/** A time as epoch milliseconds; a value the upstream sent that is not a time stays the text it was. */
export type TableTime = number | string;

const tableTime = (value: string): TableTime => {
  const at = Date.parse(value);
  return Number.isNaN(at) ? value : at;
};

/** A product's status with its empty fields left out. */
export interface LinkTableProduct {
  product: string;
  refreshedAt?: TableTime;
  errorCode?: string;
  errorMessage?: string;
  unavailable?: string;
}

/** A row as the columns read it. */
export type LinkTableRow = Pick<LinkListItem, "linkId" | "institutionId" | "institutionName" | "institutionAvatar" | "state" | "errorCode" | "provider" | "linkTags" | "learnedFrom"> & {
  createdAt: TableTime | null;
  lastRefreshedAt: TableTime | null;
  learnedAt: TableTime | null;
  products: LinkTableProduct[];
};

export interface LinkTableInstitution {
  name: string | null;
  avatar: string | null;
}

/** A row as it crosses to the browser: its institution's name and picture only when the page's table lacks them. */
export type LinkTablePageRow = Omit<LinkTableRow, "institutionName" | "institutionAvatar"> & Partial<Pick<LinkTableRow, "institutionName" | "institutionAvatar">>;

/** One page of the table, as it crosses to the browser. */
export interface LinkTablePage {
  rows: LinkTablePageRow[];
  /** By institution id (a Map: ids are upstream text, "__proto__" included): the name and picture of the first row naming it. */
  institutions: Map<string, LinkTableInstitution>;
}

export function linkTablePage(items: LinkListItem[]): LinkTablePage {
  const institutions = new Map<string, LinkTableInstitution>();
  const rows = items.map((item): LinkTablePageRow => {
    const { linkId, createdAt, institutionId, institutionName, institutionAvatar, state, errorCode, provider, linkTags, lastRefreshedAt, learnedFrom, learnedAt } = item;
    const row: LinkTablePageRow = {
      linkId,
      createdAt: createdAt === null ? null : tableTime(createdAt),
      institutionId,
      state,
      errorCode,
      provider,
      linkTags,
      lastRefreshedAt: lastRefreshedAt === null ? null : tableTime(lastRefreshedAt),
      learnedFrom,
      learnedAt: learnedAt === null ? null : tableTime(learnedAt),
      products: item.products.map(tableProduct),
    };
    // A row whose institution reads differently from the table's (read at another time, say) keeps its own words.
    let known: LinkTableInstitution | undefined;
    if (institutionId !== null) {
      known = institutions.get(institutionId);
      if (!known) institutions.set(institutionId, (known = { name: institutionName, avatar: institutionAvatar }));
    }
    if (known?.name !== institutionName) row.institutionName = institutionName;
    if (known?.avatar !== institutionAvatar) row.institutionAvatar = institutionAvatar;
    return row;
  });
  return { rows, institutions };
}

function tableProduct(p: LinkProductStatus): LinkTableProduct {
  const product: LinkTableProduct = { product: p.product };
  if (p.refreshedAt) product.refreshedAt = tableTime(p.refreshedAt);
  if (p.errorCode) product.errorCode = p.errorCode;
  if (p.errorMessage) product.errorMessage = p.errorMessage;
  if (p.unavailable) product.unavailable = p.unavailable;
  return product;
}

/** The page's rows with their institutions filled back in, for the columns. */
export function linkTableRows({ rows, institutions }: LinkTablePage): LinkTableRow[] {
  return rows.map((row) => {
    const known = row.institutionId === null ? undefined : institutions.get(row.institutionId);
    return {
      ...row,
      institutionName: row.institutionName !== undefined ? row.institutionName : (known?.name ?? null),
      institutionAvatar: row.institutionAvatar !== undefined ? row.institutionAvatar : (known?.avatar ?? null),
    };
  });
}
