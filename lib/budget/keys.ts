import type { RateLimitScope } from "../upstream/rate-limits";
import type { BudgetedKey, BudgetKey } from "./types";

const SCOPES: readonly RateLimitScope[] = ["client", "app", "user", "link"];

/** A key as stored: `${endpoint}|${scope}|${scopeId}`. Endpoints and scopes hold no "|", so the scope id may. */
export function keyString(key: BudgetKey): string {
  return `${key.endpoint}|${key.scope}|${key.scopeId}`;
}

/** The inverse of keyString. */
export function parseKey(value: string): BudgetKey {
  const first = value.indexOf("|");
  const second = value.indexOf("|", first + 1);
  const scope = value.slice(first + 1, second);
  if (first <= 0 || second < 0 || !SCOPES.includes(scope as RateLimitScope))
    throw new Error(`Not a budget key: ${value}`);
  return { endpoint: value.slice(0, first), scope: scope as RateLimitScope, scopeId: value.slice(second + 1) };
}

/** A key of one reservation, checked and keyed by its string. */
export interface ReservedKey {
  id: string;
  key: BudgetedKey;
}

// A Postgres integer holds about 24.8 days of milliseconds, which is plenty: the longest window is a day.
const MAX_WINDOW_MS = 2 ** 31 - 1;

/**
 * The keys of one tryReserve, each once: one upstream call counts once on a key however often it is named. Should a
 * key come twice with different figures, the stricter (lower limit, longer window) holds.
 */
export function distinctKeys(keys: readonly BudgetedKey[]): ReservedKey[] {
  const byId = new Map<string, ReservedKey>();
  for (const key of keys) {
    if (!Number.isInteger(key.limit) || key.limit < 1)
      throw new RangeError(`Budget limit must be a whole number of at least 1, got ${key.limit}`);
    if (!Number.isInteger(key.windowMs) || key.windowMs < 1 || key.windowMs > MAX_WINDOW_MS) {
      throw new RangeError(
        `Budget window must be a whole number of milliseconds between 1 and ${MAX_WINDOW_MS}, got ${key.windowMs}`,
      );
    }
    const id = keyString(key);
    const seen = byId.get(id);
    byId.set(
      id,
      seen
        ? {
            id,
            key: {
              ...seen.key,
              limit: Math.min(seen.key.limit, key.limit),
              windowMs: Math.max(seen.key.windowMs, key.windowMs),
            },
          }
        : { id, key },
    );
  }
  return [...byId.values()];
}

/** The BudgetKey part of a key (without limit and window), as usage and refusals report it. */
export function bareKey({ endpoint, scope, scopeId }: BudgetKey): BudgetKey {
  return { endpoint, scope, scopeId };
}
