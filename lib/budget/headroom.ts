import { RATE_LIMITS, type RateLimitScope } from "../upstream/rate-limits";
import type { Budget, CallIds } from "./budget";
import type { BudgetKey, BudgetUsage, BudgetedKey, RateLimitEvent } from "./types";

// What is left of the budget, for people: the Rate limits page, the link page's "corrections left", scripts' headers.

export interface KeyHeadroom {
  key: BudgetedKey;
  used: number;
  remaining: number;
  /** When the next slot frees if none is free now (or the closure ends). */
  nextSlotAt: Date | null;
  closedUntil: Date | null;
}

export interface RuleRow {
  endpoint: string;
  scope: RateLimitScope;
  upstreamLimit: number;
  limit: number;
  /** For per-app and per-client rules: the one key. For per-link and per-user rules: the busiest key right now. */
  busiest: KeyHeadroom | null;
  activeKeys: number;
  events: RateLimitEvent[];
}

const same = (a: BudgetKey, b: BudgetKey) =>
  a.endpoint === b.endpoint && a.scope === b.scope && a.scopeId === b.scopeId;

export function headroomOf(key: BudgetedKey, usage: BudgetUsage, now = Date.now()): KeyHeadroom {
  const row = usage.used.find((u) => same(u.key, key));
  const closure = usage.closures.find((c) => same(c.key, key) && c.until.getTime() > now);
  const used = row?.count ?? 0;
  const remaining = closure ? 0 : Math.max(0, key.limit - used);
  const nextSlotAt = closure
    ? closure.until
    : remaining === 0 && row?.oldestAt
      ? new Date(row.oldestAt.getTime() + key.windowMs)
      : null;
  return { key, used, remaining, nextSlotAt, closedUntil: closure?.until ?? null };
}

/** Headroom of every key one call of `endpoint` would use; the call fits when each has room. */
export async function callHeadroom(budget: Budget, endpoint: string, ids: CallIds): Promise<KeyHeadroom[]> {
  const keys = budget.keys(endpoint, ids);
  const usage = await budget.store.usage(keys[0]?.windowMs ?? 61_000);
  return keys.map((key) => headroomOf(key, usage));
}

/** One row per rule of the spec's table, with Linkdesk's share, what is used and the 429s of the last hour. */
export async function ruleRows(
  budget: Budget,
): Promise<{ rows: RuleRow[]; busiestLinks: KeyHeadroom[]; usage: BudgetUsage }> {
  const probeKeys = budget.keys("GET /links", {});
  const usage = await budget.store.usage(probeKeys[0]?.windowMs ?? 61_000);
  const rows: RuleRow[] = [];
  const seen = new Set<string>();
  for (const rule of RATE_LIMITS) {
    const id = `${rule.endpoint}|${rule.scope}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const sample = budget
      .keys(rule.endpoint, { linkId: "·", userId: "·", relink: true })
      .find((k) => k.scope === rule.scope);
    if (!sample) continue;
    const ofRule = usage.used.filter((u) => u.key.endpoint === rule.endpoint && u.key.scope === rule.scope);
    const fixedId = rule.scope === "app" || rule.scope === "client";
    const candidates = fixedId ? [{ ...sample }] : ofRule.map((u) => ({ ...sample, scopeId: u.key.scopeId }));
    const headrooms = candidates.map((k) => headroomOf(k, usage)).sort((a, b) => b.used - a.used);
    rows.push({
      endpoint: rule.endpoint,
      scope: rule.scope,
      upstreamLimit: rule.limitPerMinute,
      limit: sample.limit,
      busiest: headrooms[0] ?? null,
      activeKeys: fixedId ? 1 : ofRule.length,
      events: usage.events.filter((e) => e.endpoint === rule.endpoint),
    });
  }
  const busiestLinks = usage.used
    .filter((u) => u.key.scope === "link")
    .map((u) => {
      const sample = budget
        .keys(u.key.endpoint, { linkId: u.key.scopeId, relink: true })
        .find((k) => k.scope === "link");
      return sample ? headroomOf(sample, usage) : null;
    })
    .filter((h): h is KeyHeadroom => h !== null)
    .sort((a, b) => b.used / b.key.limit - a.used / a.key.limit)
    .slice(0, 10);
  return { rows, busiestLinks, usage };
}

export interface CostEstimate {
  calls: number;
  /** The tightest key's share limit and what is left of it now. */
  limit: number;
  remaining: number;
  scope: RateLimitScope;
  /** Time until the last call can be sent, at that limit. */
  seconds: number;
}

/**
 * What a bulk job of `calls` calls costs: the first `remaining` go now, then `limit` per window as slots free.
 * E.g. 312 corrections at 30 a minute with 30 left: about 10 minutes.
 */
export function estimateCost(calls: number, headrooms: KeyHeadroom[]): CostEstimate | null {
  let worst: CostEstimate | null = null;
  for (const h of headrooms) {
    const later = Math.max(0, calls - h.remaining);
    const seconds = later === 0 ? 0 : Math.ceil(later / h.key.limit) * (h.key.windowMs / 1000);
    if (!worst || seconds > worst.seconds || (seconds === worst.seconds && h.remaining < worst.remaining)) {
      worst = { calls, limit: h.key.limit, remaining: h.remaining, scope: h.key.scope, seconds };
    }
  }
  return worst;
}

export interface TimeLeftEstimate extends CostEstimate {
  /** When the tightest key has no room now: when its next slot frees (or its closure ends). */
  nextSlotAt: Date | null;
}

/**
 * The time until the last of `calls` queued calls can be sent, from now. As estimateCost, except on a key with no room
 * now: there the first slots come when its next slot frees, not a whole window from now. A queued job sends as soon as
 * slots free, so its calls leave the window in the bursts they came in; and the time left falls while a job waits for
 * slots instead of standing at a whole window. E.g. 20 calls at 30 a minute, the key full, next slot in 12 s: 12 s.
 */
export function estimateTimeLeft(calls: number, headrooms: KeyHeadroom[], now = Date.now()): TimeLeftEstimate | null {
  let worst: TimeLeftEstimate | null = null;
  for (const h of headrooms) {
    const later = Math.max(0, calls - h.remaining);
    const windowS = h.key.windowMs / 1000;
    // With room now, when the oldest call leaves the window is not known here: a whole window at most.
    const firstS = h.nextSlotAt ? Math.max(0, (h.nextSlotAt.getTime() - now) / 1000) : windowS;
    const seconds = later === 0 ? 0 : Math.ceil(firstS + (Math.ceil(later / h.key.limit) - 1) * windowS);
    if (!worst || seconds > worst.seconds || (seconds === worst.seconds && h.remaining < worst.remaining)) {
      worst = {
        calls,
        limit: h.key.limit,
        remaining: h.remaining,
        scope: h.key.scope,
        seconds,
        nextSlotAt: h.nextSlotAt,
      };
    }
  }
  return worst;
}

/**
 * A limit as the pages name it: "the per-link limit of GET /links/{id}/transactions", the endpoint as the spec's table
 * writes it and never a key's ids; "closed" after the upstream answered 429, until its Retry-After.
 */
export function describeLimit(limit: { endpoint: string; scope: RateLimitScope }, closed = false): string {
  return `the per-${limit.scope} limit of ${limit.endpoint}${closed ? " (closed after a 429 from the upstream)" : ""}`;
}

export function describeDuration(seconds: number): string {
  if (seconds < 5) return "a few seconds";
  if (seconds < 90) return `about ${Math.ceil(seconds / 5) * 5} s`;
  return `about ${Math.round(seconds / 60)} min`;
}
