// Enforces the spec's Limits table (limits.ts). The upstream counts per rolling minute, so this
// keeps a sliding log of call times per (endpoint, scope, scope id) rather than fixed one-minute buckets. A refused
// call is not logged: a client that backs off as told is let back in exactly when Retry-After says.
import { RATE_LIMIT_WINDOW_MS, rulesFor, type RateLimitRule, type RateLimitScope } from "./limits";

export type ScopeKeys = Partial<Record<RateLimitScope, string>>;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; rule: RateLimitRule };

interface SlidingLog {
  rule: RateLimitRule;
  key: string;
  /** Call times, oldest first, from `head` on; the entries before `head` have left the window. */
  times: number[];
  head: number;
  total: number;
  refused: number;
}

export interface RateCounter {
  endpoint: string;
  scope: RateLimitScope;
  key: string;
  limitPerMinute: number;
  /** Calls counted in the current window. */
  inWindow: number;
  /** Calls allowed since start (or reset), while the counter was kept. */
  total: number;
  /** Calls refused with 429. */
  refused: number;
}

const SWEEP_EVERY = 10_000;

export class RateLimiter {
  private logs = new Map<string, SlidingLog>();
  private readonly rules = new Map<string, RateLimitRule[]>();
  private checks = 0;

  constructor(
    private readonly now: () => number,
    private readonly windowMs = RATE_LIMIT_WINDOW_MS,
  ) {}

  private rulesOf(endpoint: string): RateLimitRule[] {
    let rules = this.rules.get(endpoint);
    if (!rules) {
      rules = rulesFor(endpoint);
      this.rules.set(endpoint, rules);
    }
    return rules;
  }

  private prune(log: SlidingLog, now: number): number {
    const cutoff = now - this.windowMs;
    while (log.head < log.times.length && (log.times[log.head] ?? Infinity) <= cutoff) log.head++;
    // Compact once the dead prefix dominates, so memory stays at about the limit per key.
    if (log.head > 32 && log.head * 2 > log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
    return log.times.length - log.head;
  }

  /** Checks every rule of `endpoint` whose scope has a key; counts the call in all of them only if all allow it. */
  check(endpoint: string, keys: ScopeKeys): RateDecision {
    const now = this.now();
    if (++this.checks % SWEEP_EVERY === 0) this.sweep(now);
    const applicable: SlidingLog[] = [];
    let refusal: RateDecision | null = null;
    for (const rule of this.rulesOf(endpoint)) {
      const scopeKey = keys[rule.scope];
      if (scopeKey === undefined) continue;
      const id = `${rule.endpoint}|${rule.scope}|${scopeKey}`;
      let log = this.logs.get(id);
      if (!log) {
        log = { rule, key: scopeKey, times: [], head: 0, total: 0, refused: 0 };
        this.logs.set(id, log);
      }
      const counted = this.prune(log, now);
      if (counted >= rule.limitPerMinute) {
        const oldest = log.times[log.head] ?? now;
        const retryAfterSeconds = Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
        log.refused++;
        if (refusal === null || (!refusal.allowed && retryAfterSeconds > refusal.retryAfterSeconds)) {
          refusal = { allowed: false, retryAfterSeconds, rule };
        }
      }
      applicable.push(log);
    }
    if (refusal) return refusal;
    for (const log of applicable) {
      log.times.push(now);
      log.total++;
    }
    return { allowed: true };
  }

  /** Drops logs with nothing left in the window, so idle keys (one per link ever read) do not pile up. */
  private sweep(now: number): void {
    for (const [id, log] of this.logs) {
      if (this.prune(log, now) === 0) this.logs.delete(id);
    }
  }

  counters(): RateCounter[] {
    const now = this.now();
    return [...this.logs.values()].map((log) => ({
      endpoint: log.rule.endpoint,
      scope: log.rule.scope,
      key: log.key,
      limitPerMinute: log.rule.limitPerMinute,
      inWindow: this.prune(log, now),
      total: log.total,
      refused: log.refused,
    }));
  }

  counter(endpoint: string, scope: RateLimitScope, key: string): RateCounter | undefined {
    return this.counters().find((c) => c.endpoint === endpoint && c.scope === scope && c.key === key);
  }

  get size(): number {
    return this.logs.size;
  }

  reset(): void {
    this.logs = new Map();
    this.checks = 0;
  }
}
