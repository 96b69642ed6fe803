import type { RateLimitScope } from "../upstream/rate-limits";

// The rate budget's contract. Every upstream call reserves one slot on each key its endpoint is limited by (the spec's
// table: per client, app, user or link), before it is sent. A key allows at most `limit` calls in any rolling window.

/** One counter: e.g. "POST /links/{id}/transactions/{txn_id}/enrichment" per link "mk_…". */
export interface BudgetKey {
  endpoint: string;
  scope: RateLimitScope;
  scopeId: string;
}

/** A key with the share of the upstream's limit that is Linkdesk's. */
export interface BudgetedKey extends BudgetKey {
  /** Calls Linkdesk may make in any window (the upstream limit times Linkdesk's share, floored, at least 1). */
  limit: number;
  /** The upstream's own limit, for display. */
  upstreamLimit: number;
  windowMs: number;
}

export type ReserveResult =
  { ok: true } | { ok: false; nextSlotAt: Date; blockedBy: BudgetKey; reason: "full" | "closed" };

/** Where reservations are counted: process memory (embedded default) or PostgreSQL (shared by all instances). */
export interface BudgetStore {
  readonly kind: "memory" | "postgres";
  /**
   * Atomically: if every key has room (fewer than `limit` reservations in the last `windowMs`, and no closure), record
   * one reservation on each and answer ok; otherwise record nothing and say when the first slot frees on the key that
   * blocks (the latest such time over all blocking keys).
   */
  tryReserve(keys: BudgetedKey[]): Promise<ReserveResult>;
  /** The upstream answered 429: no reservation on these keys until `until`, for every instance. */
  close(keys: BudgetKey[], until: Date, event: RateLimitEvent): Promise<void>;
  /** Gives back the newest reservation of each key: the call it was made for did nothing upstream (see CallGate.declined). */
  release(keys: BudgetKey[]): Promise<void>;
  /** Calls reserved in the last window per key, closures in force, and 429 events of the last hour. */
  usage(windowMs: number): Promise<BudgetUsage>;
}

export interface RateLimitEvent {
  endpoint: string;
  /** The Retry-After the upstream sent, as given (seconds or HTTP-date). */
  retryAfter: string | null;
  at: Date;
  scopeIds: Record<string, string>;
}

export interface BudgetUsage {
  /** Reservations in the last window, by key. */
  used: { key: BudgetKey; count: number; oldestAt: Date | null }[];
  closures: { key: BudgetKey; until: Date }[];
  events: RateLimitEvent[];
}
