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

/**
 * The share of a kept read's time after which a view that finds it also starts the next read, in the background: a
 * page viewed steadily then always finds its reads at hand, and none is older than its time. A view after a lull (no
 * view in the last quarter) waits for a fresh read as before.
 */
const REFRESH_FROM = 0.75;

interface Kept<T> {
  expires: number;
  refreshFrom: number;
  value: Promise<T>;
  /** Set once the read has answered. */
  settled?: { value: T };
  /** Set once a view has started the read that will replace this one. */
  refreshing?: boolean;
}

/** One kept read's place: the entry it holds now, and how to replace or drop it. */
interface Slot<T> {
  get(): Kept<T> | undefined;
  put(entry: Kept<T>): void;
  drop(): void;
}

function started<T>(value: Promise<T>, now: number, ttlMs: number): Kept<T> {
  const kept: Kept<T> = { expires: now + ttlMs, refreshFrom: now + ttlMs * REFRESH_FROM, value };
  value.then(
    (answer) => {
      kept.settled = { value: answer };
    },
    () => {},
  );
  return kept;
}

/**
 * The answer for a view from `slot`: the kept read while it is within its time (starting its successor once it is in
 * its last quarter), else a new read. A failed read is not kept: the next view tries again; a failed background read
 * leaves the kept one to serve out its time.
 */
function readThrough<T>(slot: Slot<T>, load: () => Promise<T>, ttlMs: number): Promise<T> {
  const now = Date.now();
  const hit = slot.get();
  if (hit && hit.expires > now) {
    if (hit.settled && !hit.refreshing && now >= hit.refreshFrom) {
      hit.refreshing = true;
      const next = started(load(), now, ttlMs);
      next.value.then(
        () => {
          if (slot.get() === hit) slot.put(next);
        },
        () => {},
      );
    }
    return hit.value;
  }
  const entry = started(load(), now, ttlMs);
  entry.value.catch(() => {
    if (slot.get() === entry) slot.drop();
  });
  slot.put(entry);
  return entry.value;
}

function atHand<T>(hit: Kept<T> | undefined): T | undefined {
  return hit && hit.expires > Date.now() ? hit.settled?.value : undefined;
}

/**
 * A read kept for `ttlMs` per database, shared by every view in that time: for whole-table counts that a page view
 * should not pay each time and that move only as fast as the sync reads links. Each instance keeps its own copy.
 */
export function cachedRead<T>(load: (db: Db) => Promise<T>, ttlMs: number): CachedRead<T> {
  const kept = new WeakMap<Db, Kept<T>>();
  const slotOf = (db: Db): Slot<T> => ({
    get: () => kept.get(db),
    put: (entry) => kept.set(db, entry),
    drop: () => kept.delete(db),
  });
  const read = (db: Db) => readThrough(slotOf(db), () => load(db), ttlMs);
  return Object.assign(read, { peek: (db: Db) => atHand(kept.get(db)) });
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
    let entries = perDb.get(db);
    if (!entries) perDb.set(db, (entries = new Map()));
    const kept = entries;
    return readThrough(
      {
        get: () => kept.get(key),
        put: (entry) => {
          // Re-inserted, so the Map's order is the order of reads and its first key the oldest read.
          kept.delete(key);
          kept.set(key, entry);
          const now = Date.now();
          for (const [oldKey, old] of kept) {
            if (kept.size <= max && old.expires > now) break;
            kept.delete(oldKey);
          }
        },
        drop: () => kept.delete(key),
      },
      () => load(db, arg),
      ttlMs,
    );
  };
}
