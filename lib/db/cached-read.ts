import type { Db } from "./client";

/**
 * A read kept for `ttlMs` per database, shared by every view in that time: for whole-table counts that a page view
 * should not pay each time and that move only as fast as the sync reads links. A failed read is not kept: the next view
 * tries again. Each instance keeps its own copy.
 */
export function cachedRead<T>(load: (db: Db) => Promise<T>, ttlMs: number): (db: Db) => Promise<T> {
  const kept = new WeakMap<Db, { expires: number; value: Promise<T> }>();
  return (db) => {
    const now = Date.now();
    const hit = kept.get(db);
    if (hit && hit.expires > now) return hit.value;
    const value = load(db);
    kept.set(db, { expires: now + ttlMs, value });
    value.catch(() => {
      if (kept.get(db)?.value === value) kept.delete(db);
    });
    return value;
  };
}
