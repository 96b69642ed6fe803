import type { RateLimitScope } from "../upstream/rate-limits";
import { brandError, hasErrorBrand } from "../error-brand";
import { BudgetUnavailableError, isBudgetUnavailable } from "./errors";
import type { BudgetWait, CallMode, CallScopes } from "../upstream/client";
import { type BudgetShares, keysFor, refreshProductOf } from "./rules";
import type { BudgetKey, BudgetStore, BudgetedKey } from "./types";

export type { BudgetShares };
/** The ids of one call that pick its keys; the client and app come from the budget's configuration. */
export type CallIds = CallScopes;
/** The shared budget's storage failed: nothing is sent (fail closed). */
export { BudgetUnavailableError as BudgetUnavailable, isBudgetUnavailable };

// The budget in front of every upstream call: reserve a slot on each key the call's endpoint is limited by, or wait
// for one (queued bulk work), wait a little (a click: BUDGET_INTERACTIVE_MAX_WAIT_MS), or refuse at once with the
// time of the next slot (a page's read, which shows what Linkdesk already has instead of holding the page open). Nothing is sent
// that the budget forbids; an upstream 429 closes the call's keys for every instance until its Retry-After.

export type { BudgetWait, CallMode };

/** No room for this call within the wait allowed: says when the next slot frees. */
export class BudgetExceeded extends Error {
  constructor(
    readonly endpoint: string,
    readonly nextSlotAt: Date,
    readonly blockedBy: BudgetKey,
    readonly reason: "full" | "closed",
  ) {
    super(
      `${endpoint}: no room in Linkdesk's rate budget (${describeScope(blockedBy)}); next slot in ${secondsUntil(nextSlotAt)} s`,
    );
    this.name = "BudgetExceeded";
    brandError(this, "BudgetExceeded");
  }
}

/** Whether `error` is a BudgetExceeded, whichever server chunk's copy of the class made it (never use instanceof). */
export function isBudgetExceeded(error: unknown): error is BudgetExceeded {
  return hasErrorBrand(error, "BudgetExceeded");
}

export interface BudgetOptions {
  store: BudgetStore;
  clientId: string;
  /** The upstream's "app": one per client credentials pair. */
  appId: string;
  shares: BudgetShares;
  /** An interactive call waits at most this long for a slot before it is refused. */
  interactiveMaxWaitMs: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /**
   * The window the per-minute limits are counted over, margin included (default BUDGET_WINDOW_MS, 61 s). Shorter only
   * in benchmarks, against a sandbox counting over a window as much shorter (sandbox option rateLimitWindowMs).
   */
  windowMs?: number;
}

export interface ReserveOptions {
  mode?: CallMode;
  signal?: AbortSignal;
  /** Queued work hears when it waits, on which limit (its endpoint and scope, not the key's ids), and until when. */
  onWait?: (wait: BudgetWait) => void;
}

export class Budget {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly options: BudgetOptions) {}

  get store(): BudgetStore {
    return this.options.store;
  }

  keys(endpoint: string, ids: CallIds): BudgetedKey[] {
    return keysFor(
      endpoint,
      { clientId: this.options.clientId, appId: this.options.appId, ...ids },
      this.options.shares,
      this.options.windowMs,
    );
  }

  /** Reserves one call of `endpoint`, waiting as the mode allows. Throws BudgetExceeded or BudgetUnavailable. */
  async reserve(endpoint: string, ids: CallIds, opts: ReserveOptions = {}): Promise<BudgetedKey[]> {
    const keys = this.keys(endpoint, ids);
    if (keys.length === 0) return keys;
    const mode = opts.mode ?? "interactive";
    if (mode !== "queued") {
      await this.reserveInteractive(
        endpoint,
        keys,
        mode === "view" ? 0 : this.options.interactiveMaxWaitMs,
        opts.signal,
      );
      return keys;
    }
    // Queued work takes its turn in order, per set of keys: one waiting call does not let a later one jump ahead.
    const queueKey = keys.map(keyId).join(" ");
    const previous = this.queues.get(queueKey) ?? Promise.resolve();
    const turn = previous.catch(() => undefined).then(() => this.reserveQueued(endpoint, keys, opts));
    this.queues.set(queueKey, turn);
    try {
      await turn;
    } finally {
      if (this.queues.get(queueKey) === turn) this.queues.delete(queueKey);
    }
    return keys;
  }

  /** The upstream answered 429 for a call on these keys: close them until Retry-After (at least a few seconds). */
  async rateLimited(
    endpoint: string,
    ids: CallIds,
    retryAt: Date | undefined,
    retryAfterHeader: string | null,
  ): Promise<void> {
    const keys = this.keys(endpoint, ids);
    const now = this.now();
    // Without a readable Retry-After, close for the rest of a window rather than retrying blindly.
    const until = retryAt && retryAt.getTime() > now ? retryAt : new Date(now + (retryAt ? 1000 : 60_000));
    const scopeIds = Object.fromEntries(keys.map((k) => [k.scope, k.scopeId]));
    await this.guard(() =>
      this.options.store.close(keys, until, { endpoint, retryAfter: retryAfterHeader, at: new Date(now), scopeIds }),
    );
  }

  /**
   * The upstream declined a call on these keys (a 4xx): it did nothing. The slots that stand for something done, a
   * product refresh, are given back; a per-minute slot stays used (the upstream counts the calls it declines too).
   */
  async declined(endpoint: string, ids: CallIds): Promise<void> {
    const done = this.keys(endpoint, ids).filter((key) => refreshProductOf(key) !== null);
    if (done.length > 0) await this.guard(() => this.options.store.release(done));
  }

  private async reserveInteractive(
    endpoint: string,
    keys: BudgetedKey[],
    maxWaitMs: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const deadline = this.now() + maxWaitMs;
    for (;;) {
      const result = await this.guard(() => this.options.store.tryReserve(keys));
      if (result.ok) return;
      if (result.nextSlotAt.getTime() > deadline)
        throw new BudgetExceeded(endpoint, result.nextSlotAt, result.blockedBy, result.reason);
      await this.sleep(Math.max(10, result.nextSlotAt.getTime() - this.now()), signal);
    }
  }

  private async reserveQueued(endpoint: string, keys: BudgetedKey[], opts: ReserveOptions): Promise<void> {
    for (;;) {
      opts.signal?.throwIfAborted();
      const result = await this.guard(() => this.options.store.tryReserve(keys));
      if (result.ok) return;
      opts.onWait?.({
        endpoint: result.blockedBy.endpoint,
        scope: result.blockedBy.scope,
        reason: result.reason,
        nextSlotAt: result.nextSlotAt,
      });
      await this.sleep(Math.max(10, result.nextSlotAt.getTime() - this.now()), opts.signal);
    }
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw isBudgetUnavailable(error) ? error : new BudgetUnavailableError({ cause: error });
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.options.sleep) return this.options.sleep(ms, signal);
    return new Promise((resolve, reject) => {
      // The listener goes when the sleep ends: a call that waits for many slots sleeps many times on one signal.
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

function keyId(key: BudgetKey): string {
  return `${key.endpoint}|${key.scope}|${key.scopeId}`;
}

const scopeWords: Record<RateLimitScope, string> = {
  app: "per app",
  client: "per client",
  link: "per link",
  user: "per user",
};

export function describeScope(key: BudgetKey): string {
  return `${scopeWords[key.scope]}${key.scope === "link" || key.scope === "user" ? ` ${key.scopeId}` : ""}`;
}

export function secondsUntil(at: Date, now = Date.now()): number {
  return Math.max(1, Math.ceil((at.getTime() - now) / 1000));
}
