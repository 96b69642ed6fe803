import { z } from "zod";
import { type DroppedParam, type RawParams, parseFieldByField, searchParamsToRecord } from "../http/url-params";
import type { Open } from "../upstream/schemas";
import {
  type CATEGORIES,
  LEGACY_SUBCATEGORIES,
  type SUBCATEGORIES,
  categoryLabel,
  categoryOf,
  isCategory,
} from "../upstream/taxonomy";
import { type TransactionRow, confidenceOf } from "./rows";

// The correction desk's filters, kept in the URL (a view can be shared and reloaded), read field by field like every
// list's: a bad value is dropped and reported, never an error page. The upstream filters only by date and account, so
// Linkdesk filters a link's transactions itself (filterTransactions), in the server and the browser alike.

/** Rows the view holds at once; the table is virtualised, so a thousand scroll smoothly. */
export const TRANSACTIONS_VIEW_PAGE_SIZE = 1000;

const amount = z.coerce
  .number({ error: "not an amount" })
  .refine((n) => Number.isFinite(n) && n >= 0, "must be an amount of 0 or more")
  .refine((n) => n <= 1e12, "too large");

/** The category a subcategory belongs to, today's or before the revision of 2025-01-13; undefined for one not known. */
const parentOf = (subcategory: string) =>
  categoryOf(subcategory) ??
  (Object.hasOwn(LEGACY_SUBCATEGORIES, subcategory) ? LEGACY_SUBCATEGORIES[subcategory]!.category : undefined);

/** A category value in the URL: the characters the upstream's values are made of. */
const categoryValue = (error: string) =>
  z
    .string()
    .trim()
    .regex(/^[a-z0-9_]{1,100}$/, { error });

export const transactionFilterFields = {
  /** Words in the description (cleaned or raw) or the merchant's name, or a transaction id. */
  q: z.string().trim().min(1).max(200, "too long"),
  account: z.string().trim().min(1).max(200, "too long"),
  start_date: z.iso.date({ error: "not a date (YYYY-MM-DD)" }),
  end_date: z.iso.date({ error: "not a date (YYYY-MM-DD)" }),
  // Any category or subcategory a transaction may carry: today's, one from before the taxonomy's revision of 2025-01-13
  // (old transactions keep it), or one the upstream added since. Support finds them to correct them.
  category: categoryValue("not a category"),
  subcategory: categoryValue("not a subcategory"),
  /** Transactions whose lower confidence is under this many percent. */
  confidence_below: z.coerce
    .number({ error: "not a number" })
    .int("must be a whole number")
    .min(1, "must be 1 to 100")
    .max(100, "must be 1 to 100"),
  pending: z.enum(["yes", "no"], { error: "must be yes or no" }),
  /** On the amount as shown (money in or out alike). */
  amount_min: amount,
  amount_max: amount,
  page: z.coerce
    .number({ error: "not a page number" })
    .int("not a page number")
    .min(1, "not a page number")
    .max(100_000, "not a page number"),
};

export type TransactionFilterParam = keyof typeof transactionFilterFields;
export const TRANSACTION_FILTER_PARAMS = Object.keys(transactionFilterFields) as TransactionFilterParam[];

export const TRANSACTION_PARAM_LABELS: Record<TransactionFilterParam, string> = {
  q: "Search",
  account: "Account",
  start_date: "From",
  end_date: "To",
  category: "Category",
  subcategory: "Subcategory",
  confidence_below: "Confidence below",
  pending: "Pending",
  amount_min: "Amount from",
  amount_max: "Amount to",
  page: "Page",
};

export interface TransactionFilters {
  q?: string;
  account?: string;
  startDate?: string;
  endDate?: string;
  category?: Open<(typeof CATEGORIES)[number]>;
  subcategory?: Open<(typeof SUBCATEGORIES)[number]>;
  confidenceBelow?: number;
  pending?: boolean;
  amountMin?: number;
  amountMax?: number;
}

export interface TransactionView {
  filters: TransactionFilters;
  page: number;
}

export type DroppedTransactionParam = DroppedParam<TransactionFilterParam>;

/** The URL's parameters to filters and a page; what cannot be used is dropped and said why. */
export function parseTransactionFilters(
  input: RawParams | URLSearchParams,
): TransactionView & { dropped: DroppedTransactionParam[] } {
  const raw = input instanceof URLSearchParams ? searchParamsToRecord(input) : input;
  const { values: v, dropped } = parseFieldByField(transactionFilterFields, TRANSACTION_FILTER_PARAMS, raw);
  const filters: TransactionFilters = {
    q: v.q,
    account: v.account,
    startDate: v.start_date,
    endDate: v.end_date,
    category: v.category,
    subcategory: v.subcategory,
    confidenceBelow: v.confidence_below,
    pending: v.pending === undefined ? undefined : v.pending === "yes",
    amountMin: v.amount_min,
    amountMax: v.amount_max,
  };
  if (filters.startDate && filters.endDate && filters.startDate > filters.endDate) {
    dropped.push({ param: "start_date", value: filters.startDate, reason: "after the end of the range" });
    dropped.push({ param: "end_date", value: filters.endDate, reason: "before the start of the range" });
    delete filters.startDate;
    delete filters.endDate;
  }
  if (filters.amountMin !== undefined && filters.amountMax !== undefined && filters.amountMin > filters.amountMax) {
    dropped.push({ param: "amount_min", value: String(raw.amount_min), reason: "above the upper bound" });
    dropped.push({ param: "amount_max", value: String(raw.amount_max), reason: "below the lower bound" });
    delete filters.amountMin;
    delete filters.amountMax;
  }
  // Only a pair the taxonomy knows both sides of can be said not to belong together.
  const parent = filters.subcategory ? parentOf(filters.subcategory) : undefined;
  if (
    filters.subcategory &&
    filters.category &&
    parent &&
    isCategory(filters.category) &&
    parent !== filters.category
  ) {
    dropped.push({
      param: "subcategory",
      value: filters.subcategory,
      reason: `not a subcategory of ${categoryLabel(filters.category)}`,
    });
    delete filters.subcategory;
  }
  for (const key of Object.keys(filters) as (keyof TransactionFilters)[])
    if (filters[key] === undefined) delete filters[key];
  return { filters, page: v.page ?? 1, dropped };
}

/** Filters (and a page) back to URL parameters, in a fixed order; the first page and unset filters are left out. */
export function transactionFiltersToSearchParams(filters: TransactionFilters, page = 1): URLSearchParams {
  const params = new URLSearchParams();
  const set = (name: TransactionFilterParam, value: string | number | undefined) => {
    if (value !== undefined && value !== "") params.set(name, String(value));
  };
  set("q", filters.q);
  set("account", filters.account);
  set("start_date", filters.startDate);
  set("end_date", filters.endDate);
  set("category", filters.category);
  set("subcategory", filters.subcategory);
  set("confidence_below", filters.confidenceBelow);
  set("pending", filters.pending === undefined ? undefined : filters.pending ? "yes" : "no");
  set("amount_min", filters.amountMin);
  set("amount_max", filters.amountMax);
  if (page > 1) set("page", page);
  return params;
}

export function hasFilters(filters: TransactionFilters): boolean {
  return Object.values(filters).some((v) => v !== undefined);
}

const fold = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();

/** Whether one row passes every filter. */
export function matchesFilters(row: TransactionRow, filters: TransactionFilters): boolean {
  if (filters.account !== undefined && row.accountId !== filters.account) return false;
  if (filters.startDate !== undefined && row.date < filters.startDate) return false;
  if (filters.endDate !== undefined && row.date > filters.endDate) return false;
  if (filters.category !== undefined && row.category !== filters.category) return false;
  if (filters.subcategory !== undefined && row.subcategory !== filters.subcategory) return false;
  if (filters.confidenceBelow !== undefined) {
    // A transaction the upstream gave no confidence for is not known to be unsure: it is left out.
    const confidence = confidenceOf(row);
    if (confidence === null || confidence >= filters.confidenceBelow) return false;
  }
  if (filters.pending !== undefined && row.pending !== filters.pending) return false;
  if (filters.amountMin !== undefined && row.amount < filters.amountMin) return false;
  if (filters.amountMax !== undefined && row.amount > filters.amountMax) return false;
  if (filters.q !== undefined) {
    const words = fold(filters.q).split(/\s+/).filter(Boolean);
    if (row.id === filters.q) return true;
    const haystack = fold([row.description, row.rawDescription ?? "", row.merchant?.name ?? ""].join(" \u0000 "));
    // Every word somewhere: "starbucks taxi" style searches narrow, as people expect.
    if (!words.every((word) => haystack.includes(word))) return false;
  }
  return true;
}

/** The rows passing the filters, in the order given (newest first, as the upstream sends them). */
export function filterTransactions(rows: readonly TransactionRow[], filters: TransactionFilters): TransactionRow[] {
  return hasFilters(filters) ? rows.filter((row) => matchesFilters(row, filters)) : [...rows];
}

/** One page of the filtered rows, and how many pages there are (at least one). */
export function pageOf<T>(
  rows: readonly T[],
  page: number,
  size = TRANSACTIONS_VIEW_PAGE_SIZE,
): { rows: T[]; page: number; pageCount: number } {
  const pageCount = Math.max(1, Math.ceil(rows.length / size));
  const clamped = Math.min(Math.max(1, page), pageCount);
  return { rows: rows.slice((clamped - 1) * size, clamped * size), page: clamped, pageCount };
}

/** The view's part of a URL (filters and page), normalised: the server and the browser key the same view alike. */
export function transactionViewQuery(search: RawParams | URLSearchParams): string {
  const { filters, page } = parseTransactionFilters(search);
  return transactionFiltersToSearchParams(filters, page).toString();
}
