import "server-only";
import type { CallOptions, UpstreamApi } from "../upstream";
import { type Recent, RecentReads } from "../upstream/recent-reads";
import type { WireTransaction } from "../upstream/schemas";
import { type TransactionHistory, readTransactionHistory } from "./read";

// A link's whole transaction history, kept briefly in this process. The upstream filters only by date and account, so
// the correction desk reads a link's history once and filters, searches and pages it itself; without this cache every
// filter change or page would spend GET /links/{id}/transactions calls from the per-link budget (60 a minute upstream,
// Linkdesk's share 50 %). A correction's answer carries the corrected transaction as the upstream now has it: it is
// written into the cached copy at once, so the next view shows it without a read.

/** How long a read serves filters and pages before the next view reads the upstream again. */
export const HISTORY_MAX_AGE_MS = 30_000;
/** Links kept at once (the least recently read go first); a history of 1,000 transactions is about 1 MB. */
const MAX_LINKS = 64;

export type CachedHistory = Recent<TransactionHistory>;

export class TransactionHistoryCache extends RecentReads<TransactionHistory> {
  constructor(
    read: (linkId: string, opts: CallOptions) => Promise<TransactionHistory>,
    options: { maxAgeMs?: number; maxLinks?: number; now?: () => number } = {},
  ) {
    super(read, {
      maxAgeMs: options.maxAgeMs ?? HISTORY_MAX_AGE_MS,
      maxKeys: options.maxLinks ?? MAX_LINKS,
      now: options.now,
    });
  }

  /**
   * Writes transactions as the upstream just answered them (a correction's answer) into the cached copy. A read still
   * under way may predate the change, so it is forgotten instead.
   */
  update(linkId: string, transactions: readonly WireTransaction[]): void {
    const byId = new Map(transactions.map((t) => [t.transaction_id, t]));
    this.revise(linkId, (settled) => ({
      ...settled,
      transactions: settled.transactions.map((t) => byId.get(t.transaction_id) ?? t),
    }));
  }
}

interface Shared {
  cache?: TransactionHistoryCache;
}
// On globalThis: Next.js may evaluate this module more than once in one process (route handlers, pages, actions).
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.transaction-history")] ??= {});

/** This process's cache, reading through `api`. */
export function transactionHistory(api: UpstreamApi): TransactionHistoryCache {
  shared.cache ??= new TransactionHistoryCache((linkId, opts) => readTransactionHistory(api, linkId, {}, opts));
  return shared.cache;
}

/** A correction's answer: the cached copy of the link takes the transactions as the upstream now has them. */
export function noteCorrectedTransactions(linkId: string, transactions: readonly WireTransaction[]): void {
  shared.cache?.update(linkId, transactions);
}

export function forgetTransactionHistory(linkId: string): void {
  shared.cache?.forget(linkId);
}
