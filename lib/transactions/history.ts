import "server-only";
import type { CallOptions, UpstreamApi } from "../upstream";
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

export interface CachedHistory extends TransactionHistory {
  /** When the upstream was read (ms since the epoch). */
  readAt: number;
}

interface Entry {
  readAt: number;
  settled: CachedHistory | null;
  pending: Promise<CachedHistory>;
}

export class TransactionHistoryCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly read: (linkId: string, opts: CallOptions) => Promise<TransactionHistory>,
    private readonly options: { maxAgeMs?: number; maxLinks?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The link's history, read from the upstream unless a read younger than the max age exists (or is under way). */
  get(linkId: string, opts: CallOptions = {}): Promise<CachedHistory> {
    const maxAge = this.options.maxAgeMs ?? HISTORY_MAX_AGE_MS;
    const entry = this.entries.get(linkId);
    if (entry && this.now() - entry.readAt < maxAge) {
      // Most recently used last, so the oldest is the first to go.
      this.entries.delete(linkId);
      this.entries.set(linkId, entry);
      return entry.pending;
    }
    const readAt = this.now();
    const pending = this.read(linkId, opts).then((history) => {
      const cached = { ...history, readAt };
      if (this.entries.get(linkId) === fresh) fresh.settled = cached;
      return cached;
    });
    const fresh: Entry = { readAt, settled: null, pending };
    // A failed read is not kept: the next view tries again.
    pending.catch(() => {
      if (this.entries.get(linkId) === fresh) this.entries.delete(linkId);
    });
    this.entries.set(linkId, fresh);
    while (this.entries.size > (this.options.maxLinks ?? MAX_LINKS)) this.entries.delete(this.entries.keys().next().value!);
    return pending;
  }

  /**
   * Writes transactions as the upstream just answered them (a correction's answer) into the cached copy. A read still
   * under way may predate the change, so it is forgotten instead.
   */
  update(linkId: string, transactions: readonly WireTransaction[]): void {
    const entry = this.entries.get(linkId);
    if (!entry) return;
    if (!entry.settled) {
      this.entries.delete(linkId);
      return;
    }
    const byId = new Map(transactions.map((t) => [t.transaction_id, t]));
    const next = entry.settled.transactions.map((t) => byId.get(t.transaction_id) ?? t);
    const settled = { ...entry.settled, transactions: next };
    this.entries.set(linkId, { readAt: entry.readAt, settled, pending: Promise.resolve(settled) });
  }

  /** The next view of the link reads the upstream (a change whose result Linkdesk did not see). */
  forget(linkId: string): void {
    this.entries.delete(linkId);
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
