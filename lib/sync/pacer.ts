import type { Budget } from "../budget/budget";

// The sync's own limiter, in front of the rate budget: at most `limit` detail reads in any rolling window, handed out
// evenly (one every window / limit) rather than in a burst at the start of each window, so people's clicks find the
// rest of Linkdesk's budget free at every moment, not only after the sync's burst has aged out.

export interface PacerOptions {
  /** Calls allowed in any window. */
  limit: number;
  windowMs: number;
  /** Milliseconds on a clock that never steps back. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Slots a late grant may make up for. Timers fire late by a millisecond or so, and a call that waited on the budget
 * leaves its slot unused; letting the schedule catch up by a couple of slots keeps the achieved rate at the limit,
 * while the sliding log still caps every window at `limit`.
 */
const CATCH_UP_SLOTS = 2;

export class SyncPacer {
  readonly intervalMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Grant times, oldest first, from `head` on. */
  private granted: number[] = [];
  private head = 0;
  private next = -Infinity;
  private turn: Promise<void> = Promise.resolve();

  constructor(private readonly options: PacerOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1)
      throw new RangeError(`A pacer's limit must be a whole number ≥ 1, got ${options.limit}`);
    if (!(options.windowMs > 0)) throw new RangeError(`A pacer's window must be positive, got ${options.windowMs}`);
    this.intervalMs = options.windowMs / options.limit;
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? sleep;
  }

  get limit(): number {
    return this.options.limit;
  }

  /** Waits for the next slot, in the order asked. Rejects with the signal's reason once it aborts. */
  acquire(signal?: AbortSignal): Promise<void> {
    const mine = this.turn.then(() => this.waitForSlot(signal));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const at = this.now();
      const cutoff = at - this.options.windowMs;
      while (this.head < this.granted.length && this.granted[this.head]! <= cutoff) this.head++;
      if (this.head > 1024 && this.head * 2 > this.granted.length) {
        this.granted = this.granted.slice(this.head);
        this.head = 0;
      }
      const used = this.granted.length - this.head;
      const windowFreesAt =
        used < this.options.limit ? at : this.granted[this.head + used - this.options.limit]! + this.options.windowMs;
      const slotAt = Math.max(this.next, windowFreesAt);
      if (slotAt <= at) {
        this.granted.push(at);
        // From the schedule, not from now: a timer that fired late does not push every later slot back.
        this.next = Math.max(this.next, at - CATCH_UP_SLOTS * this.intervalMs) + this.intervalMs;
        return;
      }
      await this.sleep(slotAt - at, signal);
    }
  }
}

/** Waits `ms`; rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The endpoint the sync's share applies to. */
export const DETAIL_ENDPOINT = "GET /links/{id}";

export interface SyncPace {
  /** Detail reads the sync may make in any window. */
  limit: number;
  windowMs: number;
}

/**
 * The sync's pace: `share` of Linkdesk's per-app GET /links/{id} budget (itself BUDGET_APP_SHARE of the upstream's
 * 1000 a minute), over the budget's window. Floored like the budget's own shares, at least 1.
 */
export function syncPaceOf(budget: Pick<Budget, "keys">, share: number): SyncPace {
  if (!(share > 0 && share <= 1)) throw new RangeError(`The sync's share must be above 0 and at most 1, got ${share}`);
  const app = budget.keys(DETAIL_ENDPOINT, { linkId: "-" }).find((key) => key.scope === "app");
  if (!app) throw new Error(`The rate budget has no per-app rule for ${DETAIL_ENDPOINT}`);
  return { limit: Math.max(1, Math.floor(app.limit * share + 1e-9)), windowMs: app.windowMs };
}
