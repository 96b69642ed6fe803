// The sandbox's own records. Link and transaction records hold the wire fields verbatim (so serving is a pick, not a
// mapping) plus a few internal fields the wire never shows.
import type { Category, Subcategory } from "../lib/upstream/taxonomy";
import type { LinkErrorCode, LinkState, Product } from "../lib/upstream/schemas";
import type { Brand } from "./catalog";

export interface ProductStatus {
  refreshed_at: string | null;
  last_attempted_at: string | null;
  error_code?: string;
  error_message?: string;
  unavailable?: string;
  last_enriched?: string;
}

export type LinkOrigin = "seed" | "session" | "import";

export interface LinkRecord {
  link_id: string;
  institution_id: string;
  institution_name: string;
  institution_avatar: string;
  state: LinkState;
  error_code: LinkErrorCode | null;
  last_synced_at: string | null;
  auth_expired_at: string | null;
  provider: string;
  link_tags: string[];
  tags?: string[];
  webhook: string | null;
  products: Partial<Record<Product, ProductStatus>>;
  available_products: Product[];
  // internal
  createdAtMs: number;
  deletedAtMs: number | null;
  origin: LinkOrigin;
  /** Seed of the lazily generated accounts and transactions; null for imported links (their data is the import). */
  dataSeed: number | null;
  customerUserId: string | null;
}

export interface AccountRecord {
  account_id: string;
  account_type: string;
  name: string;
  nickname: string | null;
  account_mask: string | null;
  balances: {
    currency: string;
    available: number | null;
    current: number | null;
    limit: number | null;
    balance_date: string | null;
  };
  original_id: string | null;
  closed: boolean;
}

export interface EnrichmentRecord {
  category: { value: Category; confidence: number };
  subcategory: { value: Subcategory; confidence: number } | null;
  merchant: Brand | null;
  processor: Brand | null;
  recurrence: { frequency: string; next_predicted_date: string } | null;
}

export interface TransactionRecord {
  transaction_id: string;
  account_id: string;
  amount: number;
  type: "credit" | "debit";
  currency: string;
  date: string;
  datetime: string | null;
  description: string;
  raw_description: string;
  pending: boolean;
  enrichment: EnrichmentRecord;
  original_id: string | null;
}

export interface LinkData {
  accounts: AccountRecord[];
  /** Newest first, as every listing returns them. */
  transactions: TransactionRecord[];
}

const LINK_WIRE_FIELDS = [
  "link_id",
  "institution_id",
  "institution_name",
  "institution_avatar",
  "state",
  "error_code",
  "last_synced_at",
  "auth_expired_at",
  "provider",
  "link_tags",
  "tags",
  "webhook",
  "products",
  "available_products",
] as const;

export type WireLinkOut = Pick<LinkRecord, (typeof LINK_WIRE_FIELDS)[number]>;

export function toWireLink(link: LinkRecord): WireLinkOut {
  const out: Record<string, unknown> = {};
  for (const field of LINK_WIRE_FIELDS) {
    if (link[field] !== undefined) out[field] = link[field];
  }
  return out as WireLinkOut;
}

/** Newest first: by date, then time, then id so the order is total and stable across runs. */
export function compareTransactionsNewestFirst(a: TransactionRecord, b: TransactionRecord): number {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  const at = a.datetime ?? "";
  const bt = b.datetime ?? "";
  if (at !== bt) return at < bt ? 1 : -1;
  if (a.transaction_id === b.transaction_id) return 0;
  return a.transaction_id < b.transaction_id ? 1 : -1;
}

/** An amount as a decimal string, the way the public SDKs carry it: at least two decimals, never rounded. */
export function decimalString(amount: number): string {
  const text = String(amount);
  const dot = text.indexOf(".");
  if (dot < 0) return `${text}.00`;
  return text.length - dot - 1 < 2 ? `${text}0` : text;
}

/** A transaction as the wire carries it: the amount as a number (the spec) or as a decimal string (the public SDKs). */
export function toWireTransaction(
  transaction: TransactionRecord,
  amountsAsStrings: boolean,
): TransactionRecord | (Omit<TransactionRecord, "amount"> & { amount: string }) {
  return amountsAsStrings ? { ...transaction, amount: decimalString(transaction.amount) } : transaction;
}
