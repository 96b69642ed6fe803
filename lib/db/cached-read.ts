import type { Db } from "./client";

/** A read kept by cachedRead: call it for the value, or peek at what it already holds. */
export interface CachedRead<T> {
  (db: Db): Promise<T>;
  /**
   * The kept value if it has arrived and is still within its time, else undefined: a page renders what is at hand at
   * once and streams only what it must wait for.
   */
  peek(db: Db): T | undefined;
}

interface Kept<T> {
  expires: number;
  value: Promise<T>;
  /** Set once the read has answered. */
  settled?: { value: T };
}

function keep<T>(value: Promise<T>, expires: number, forget: () => void): Kept<T> {
  const kept: Kept<T> = { expires, value };
  value.then(
    (answer) => {
      kept.settled = { value: answer };
    },
    () => forget(),
  );
  return kept;
}

/**
 * A read kept for `ttlMs` per database, shared by every view in that time: for whole-table counts that a page view
 * should not pay each time and that move only as fast as the sync reads links. A failed read is not kept: the next view
 * tries again. Each instance keeps its own copy.
 */
export function cachedRead<T>(load: (db: Db) => Promise<T>, ttlMs: number): CachedRead<T> {
  const kept = new WeakMap<Db, Kept<T>>();
  const read = (db: Db) => {
    const now = Date.now();
    const hit = kept.get(db);
    if (hit && hit.expires > now) return hit.value;
    const entry: Kept<T> = keep(load(db), now + ttlMs, () => {
      if (kept.get(db) === entry) kept.delete(db);
    });
    kept.set(db, entry);
    return entry.value;
  };
  const peek = (db: Db) => {
    const hit = kept.get(db);
    return hit && hit.expires > Date.now() ? hit.settled?.value : undefined;
  };
  return Object.assign(read, { peek });
}

/**
 * cachedRead for a read that takes an argument (one view of a list, say): each distinct `key` is kept for `ttlMs`,
 * at most `max` keys per database (the oldest read goes first). The caller puts into the key everything the answer
 * depends on, a version of the data included when it has one.
 */
export function cachedReadBy<A, T>(
  load: (db: Db, arg: A) => Promise<T>,
  { ttlMs, max }: { ttlMs: number; max: number },
): (db: Db, key: string, arg: A) => Promise<T> {
  const perDb = new WeakMap<Db, Map<string, Kept<T>>>();
  return (db, key, arg) => {
    let kept = perDb.get(db);
    if (!kept) perDb.set(db, (kept = new Map()));
    const now = Date.now();
    const hit = kept.get(key);
    if (hit && hit.expires > now) return hit.value;
    const entries = kept;
    const entry: Kept<T> = keep(load(db, arg), now + ttlMs, () => {
      if (entries.get(key) === entry) entries.delete(key);
    });
    // Re-inserted, so the Map's order is the order of reads and its first key the oldest read.
    entries.delete(key);
    entries.set(key, entry);
    for (const [oldKey, old] of entries) {
      if (entries.size <= max && old.expires > now) break;
      entries.delete(oldKey);
    }
    return entry.value;
  };
}
