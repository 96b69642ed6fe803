// The sandbox's own records. Link and transaction records hold the wire fields verbatim (so serving is a pick, not a
// mapping; wire.ts) plus a few internal fields the wire never shows.
import type { Category, LinkErrorCode, LinkState, Product, Subcategory } from "./wire-vocabulary";
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

/** Newest first: by date, then time, then id so the order is total and stable across runs. */
export function compareTransactionsNewestFirst(a: TransactionRecord, b: TransactionRecord): number {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  const at = a.datetime ?? "";
  const bt = b.datetime ?? "";
  if (at !== bt) return at < bt ? 1 : -1;
  if (a.transaction_id === b.transaction_id) return 0;
  return a.transaction_id < b.transaction_id ? 1 : -1;
}
