import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDatabase, type Database } from "../db/client";
import { withTestDatabases } from "../testing/databases";
import { BudgetUnavailableError } from "./errors";
import { keyString } from "./keys";
import { createMemoryStore } from "./memory-store";
import { createPostgresStore } from "./postgres-store";
import { BUDGET_WINDOW_MS } from "./rules";
import type { BudgetedKey, BudgetKey, BudgetStore, RateLimitEvent, ReserveResult } from "./types";

// Every store keeps the same promise: at most `limit` reservations per key in any rolling window, all keys of a call or
// none. The memory store and the PostgreSQL store (on a real server when DATABASE_URL is set, on PGlite otherwise) run
// the same suite, on a clock the test moves by hand (for the PostgreSQL store it stands in for the database's clock).

const databases = withTestDatabases();

/** A clock the test moves; times in ms since the epoch, a recent date so Dates read naturally in failures. */
interface Clock {
  t: number;
}

interface Target {
  name: string;
  /** A store on `clock`, or on its real clocks without one. */
  open(clock?: Clock): BudgetStore;
}

const targets: Target[] = [
  {
    name: "memory store",
    open: (clock) => {
      if (!clock) return createMemoryStore();
      // The memory store reads its monotonic clock for counting and the wall clock to turn times into Dates: the
      // test's clock is both, so the Dates it answers are exact.
      vi.spyOn(Date, "now").mockImplementation(() => clock.t);
      return createMemoryStore({ now: () => clock.t });
    },
  },
  ...databases.map((database): Target => ({
    name: `postgres store on ${database.kind}`,
    open: (clock) =>
      createPostgresStore(database.database.db, { sweepChance: 0, ...(clock ? { now: () => clock.t } : {}) }),
  })),
];

afterEach(() => {
  vi.restoreAllMocks();
});

const BASE = Date.parse("2026-03-02T09:00:00.000Z");

function newClock(): Clock {
  return { t: BASE };
}

/** A key of its own for one test, so tests sharing a database never count each other's reservations. */
function key(
  limit: number,
  options: { windowMs?: number; scope?: BudgetKey["scope"]; endpoint?: string; scopeId?: string } = {},
): BudgetedKey {
  return {
    endpoint: options.endpoint ?? "GET /links/{id}",
    scope: options.scope ?? "link",
    scopeId: options.scopeId ?? `mk_${randomUUID()}`,
    limit,
    upstreamLimit: limit * 2,
    windowMs: options.windowMs ?? BUDGET_WINDOW_MS,
  };
}

const bare = ({ endpoint, scope, scopeId }: BudgetKey): BudgetKey => ({ endpoint, scope, scopeId });

function refused(nextSlotAt: number, blockedBy: BudgetKey, reason: "full" | "closed" = "full"): ReserveResult {
  return { ok: false, nextSlotAt: new Date(nextSlotAt), blockedBy: bare(blockedBy), reason };
}

function event(endpoint: string, at: number, scopeIds: Record<string, string>): RateLimitEvent {
  return { endpoint, retryAfter: "5", at: new Date(at), scopeIds };
}

async function countOf(store: BudgetStore, k: BudgetKey, windowMs = BUDGET_WINDOW_MS): Promise<number> {
  const { used } = await store.usage(windowMs);
  return used.find((u) => keyString(u.key) === keyString(k))?.count ?? 0;
}

/** Most reservations in any window of `windowMs` over sorted times: every window that matters starts at one of them. */
function mostInAnyWindow(times: number[], windowMs: number): number {
  let most = 0;
  let end = 0;
  for (let start = 0; start < times.length; start++) {
    while (end < times.length && times[end]! < times[start]! + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

describe.each(targets)("$name", (target) => {
  it("allows N calls in a window, refuses the next until the oldest leaves, and frees exactly one slot then", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const k = key(3);
    for (const offset of [0, 10, 20]) {
      clock.t = BASE + offset;
      expect(await store.tryReserve([k])).toEqual({ ok: true });
    }
    clock.t = BASE + 30;
    expect(await store.tryReserve([k])).toEqual(refused(BASE + k.windowMs, k));
    // One millisecond before the oldest leaves: still full.
    clock.t = BASE + k.windowMs - 1;
    expect(await store.tryReserve([k])).toEqual(refused(BASE + k.windowMs, k));
    // The moment it leaves, one slot, and only one.
    clock.t = BASE + k.windowMs;
    expect(await store.tryReserve([k])).toEqual({ ok: true });
    expect(await store.tryReserve([k])).toEqual(refused(BASE + 10 + k.windowMs, k));
    expect(await countOf(store, k)).toBe(3);
    // The refusals recorded nothing: the next slot is the second reservation's.
    clock.t = BASE + 10 + k.windowMs;
    expect(await store.tryReserve([k])).toEqual({ ok: true });
  });

  it("gives back the newest reservation of each key named, and of no other key", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const refresh = key(1, { windowMs: 60 * 60_000, endpoint: "POST /links/{id}/products (accounts)" });
    const other = key(2);
    expect(await store.tryReserve([refresh, other])).toEqual({ ok: true });
    clock.t += 1_000;
    expect(await store.tryReserve([refresh])).toEqual(refused(BASE + refresh.windowMs, refresh));
    await store.release([refresh]);
    expect(await countOf(store, refresh, refresh.windowMs)).toBe(0);
    expect(await countOf(store, other)).toBe(1);
    // The slot is free again at once; giving back a key with nothing reserved changes nothing.
    expect(await store.tryReserve([refresh])).toEqual({ ok: true });
    await store.release([key(1)]);
    expect(await countOf(store, refresh, refresh.windowMs)).toBe(1);
  });

  it("reports usage per key: the count in the window and the oldest reservation in it", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const k = key(5);
    await store.tryReserve([k]);
    clock.t += 500;
    await store.tryReserve([k]);
    const { used } = await store.usage(k.windowMs);
    expect(used.find((u) => keyString(u.key) === keyString(k))).toEqual({
      key: bare(k),
      count: 2,
      oldestAt: new Date(BASE),
    });
    // A narrower window than the key's counts only what is inside it.
    expect(await countOf(store, k, 400)).toBe(1);
  });

  it("never holds more than N in any window under a randomized arrival sequence, and refuses only when full", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const limit = 4;
    const windowMs = 1_000;
    const k = key(limit, { windowMs });
    const accepted: number[] = [];
    // Bursts and lulls: gaps from 0 to 400 ms, a quarter of them 0 (several calls in one millisecond).
    let seed = 20260302;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 120; i++) {
      clock.t += random() < 0.25 ? 0 : Math.floor(random() * 400);
      const inWindow = accepted.filter((a) => a > clock.t - windowMs);
      const expected =
        inWindow.length < limit ? { ok: true } : refused(inWindow[inWindow.length - limit]! + windowMs, k);
      const result = await store.tryReserve([k]);
      expect(result, `call ${i} at +${clock.t - BASE} ms`).toEqual(expected);
      if (result.ok) accepted.push(clock.t);
    }
    expect(accepted.length).toBeGreaterThan(40);
    expect(mostInAnyWindow(accepted, windowMs)).toBe(limit);
  });

  it("reserves all keys of a call or none: a full per-app key refuses without spending the per-link slot", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const app = key(2, { scope: "app", scopeId: `app_${randomUUID()}` });
    const [linkA, linkB, linkC] = [key(5), key(5), key(5)];
    expect(await store.tryReserve([linkA!, app])).toEqual({ ok: true });
    clock.t += 100;
    expect(await store.tryReserve([linkB!, app])).toEqual({ ok: true });
    clock.t += 100;
    expect(await store.tryReserve([linkC!, app])).toEqual(refused(BASE + app.windowMs, app));
    expect(await countOf(store, linkC!)).toBe(0);
    expect(await countOf(store, app)).toBe(2);
    clock.t = BASE + app.windowMs;
    expect(await store.tryReserve([linkC!, app])).toEqual({ ok: true });
    expect(await countOf(store, linkC!)).toBe(1);
  });

  it("names the key that frees last when several are full", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const early = key(1);
    const late = key(1);
    await store.tryReserve([early]);
    clock.t += 700;
    await store.tryReserve([late]);
    clock.t += 100;
    expect(await store.tryReserve([early, late])).toEqual(refused(BASE + 700 + late.windowMs, late));
    expect(await store.tryReserve([late, early])).toEqual(refused(BASE + 700 + late.windowMs, late));
  });

  it("counts a key named twice in one call once", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const k = key(2);
    expect(await store.tryReserve([k, { ...k }])).toEqual({ ok: true });
    expect(await countOf(store, k)).toBe(1);
  });

  it("refuses a closed key until the closure ends, shows it in usage with its 429, and keeps other keys open", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const link = key(10);
    const other = key(10);
    const until = BASE + 5_000;
    const recorded = event(link.endpoint, BASE, { link: link.scopeId });
    await store.close([bare(link)], new Date(until), recorded);

    expect(await store.tryReserve([link])).toEqual(refused(until, link, "closed"));
    expect(await store.tryReserve([other])).toEqual({ ok: true });
    const usage = await store.usage(BUDGET_WINDOW_MS);
    expect(usage.closures.find((c) => keyString(c.key) === keyString(link))).toEqual({
      key: bare(link),
      until: new Date(until),
    });
    expect(usage.events).toContainEqual(recorded);

    // A second 429 with a shorter Retry-After does not reopen the key early.
    clock.t += 1_000;
    await store.close([bare(link)], new Date(BASE + 2_000), event(link.endpoint, clock.t, { link: link.scopeId }));
    expect(await store.tryReserve([link])).toEqual(refused(until, link, "closed"));
    clock.t = until - 1;
    expect((await store.tryReserve([link])).ok).toBe(false);
    clock.t = until;
    expect(await store.tryReserve([link])).toEqual({ ok: true });
    expect((await store.usage(BUDGET_WINDOW_MS)).closures.some((c) => keyString(c.key) === keyString(link))).toBe(
      false,
    );
  });

  it("says 'full' when a key frees later than its closure ends", async () => {
    const clock = newClock();
    const store = target.open(clock);
    const k = key(1);
    await store.tryReserve([k]);
    await store.close([bare(k)], new Date(BASE + 1_000), event(k.endpoint, BASE, { link: k.scopeId }));
    expect(await store.tryReserve([k])).toEqual(refused(BASE + k.windowMs, k, "full"));
  });

  it("lets exactly N of many concurrent calls through, on its real clock", async () => {
    const store = target.open();
    const app = key(10, { scope: "app", scopeId: `app_${randomUUID()}` });
    const results = await Promise.all(Array.from({ length: 40 }, () => store.tryReserve([key(5), app])));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    for (const r of results.filter((r) => !r.ok)) {
      expect(r).toMatchObject({ reason: "full", blockedBy: bare(app) });
    }
    expect(await countOf(store, app)).toBe(10);
  });

  it("frees a slot when the oldest reservation leaves, on its real clock", async () => {
    const store = target.open();
    const k = key(2, { windowMs: 300 });
    expect(await store.tryReserve([k])).toEqual({ ok: true });
    expect(await store.tryReserve([k])).toEqual({ ok: true });
    const refusal = await store.tryReserve([k]);
    if (refusal.ok) throw new Error("a third call in 300 ms was allowed");
    // Within the window, and not sooner than the test's own round trips allow.
    const wait = refusal.nextSlotAt.getTime() - Date.now();
    expect(wait).toBeGreaterThan(100);
    expect(wait).toBeLessThanOrEqual(300);
    await new Promise((resolve) => setTimeout(resolve, wait + 20));
    expect(await store.tryReserve([k])).toEqual({ ok: true });
  });
});

describe.each(databases)("postgres store on $kind", (target) => {
  const db = () => target.database.db;

  it("prunes a key's reservations that left its window when the key is reserved again", async () => {
    const clock = newClock();
    const store = createPostgresStore(db(), { now: () => clock.t, sweepChance: 0 });
    const k = key(3, { windowMs: 1_000 });
    for (let i = 0; i < 3; i++) await store.tryReserve([k]);
    expect(await rowsOf(db(), k)).toBe(3);
    clock.t += 1_000;
    await store.tryReserve([k]);
    expect(await rowsOf(db(), k)).toBe(1);
  });

  it("sweeps out reservations and closures of keys nobody reserves any more", async () => {
    const clock = newClock();
    const store = createPostgresStore(db(), { now: () => clock.t, sweepChance: 0 });
    const idle = key(3, { windowMs: 1_000 });
    const longer = key(3, { windowMs: 5_000 });
    await store.tryReserve([idle, longer]);
    await store.close([bare(idle)], new Date(BASE + 500), event(idle.endpoint, BASE, {}));
    clock.t += 1_000;
    // Every reservation sweeps: the idle key's row goes (its window passed), the longer window's row stays.
    const sweeping = createPostgresStore(db(), { now: () => clock.t, sweepChance: 1 });
    await sweeping.tryReserve([key(1)]);
    expect(await rowsOf(db(), idle)).toBe(0);
    expect(await rowsOf(db(), longer)).toBe(1);
    const closures = await db().execute<{ n: number }>(
      sql`select count(*)::int as n from budget_closures where key = ${keyString(idle)}`,
    );
    expect(closures.rows[0]?.n).toBe(0);
  });

  it("fails closed with a clear error when the database is unavailable, and never answers ok", async () => {
    const database = await openAnother(target.url);
    const store = createPostgresStore(database.db);
    expect(await store.tryReserve([key(5)])).toEqual({ ok: true });
    await database.close();
    const attempt = store.tryReserve([key(5)]);
    await expect(attempt).rejects.toBeInstanceOf(BudgetUnavailableError);
    await expect(attempt).rejects.toThrow("so the call was not sent upstream");
    await expect(store.usage(BUDGET_WINDOW_MS)).rejects.toBeInstanceOf(BudgetUnavailableError);
    await expect(
      store.close([bare(key(1))], new Date(Date.now() + 1_000), event("GET /links", Date.now(), {})),
    ).rejects.toBeInstanceOf(BudgetUnavailableError);
  });

  if (target.kind === "postgres") {
    it("refuses as unavailable when the database does not answer in time", async () => {
      const store = createPostgresStore(db(), { timeoutMs: 50 });
      const k = key(5);
      // Hold the key's lock in another session so the reservation waits on it.
      const holder = await openAnother(target.url);
      try {
        const client = holder.client as import("pg").Pool;
        const connection = await client.connect();
        try {
          await connection.query("begin");
          await connection.query("select pg_advisory_xact_lock(hashtextextended($1, 0))", [keyString(k)]);
          await expect(store.tryReserve([k])).rejects.toThrow("did not answer in time");
          await connection.query("rollback");
        } finally {
          connection.release();
        }
      } finally {
        await holder.close();
      }
    });

    it("shares one budget between two instances (two pools) reserving at once", async () => {
      const [first, second] = await Promise.all([openAnother(target.url), openAnother(target.url)]);
      try {
        const stores = [createPostgresStore(first.db), createPostgresStore(second.db)];
        const app = key(15, { scope: "app", scopeId: `app_${randomUUID()}` });
        const link = key(8);
        // Both instances hammer one per-link key and one per-app key, naming them in opposite orders.
        const results = await Promise.all(
          Array.from({ length: 60 }, (_, i) => stores[i % 2]!.tryReserve(i % 4 < 2 ? [link, app] : [app, link])),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(8);
        expect(await rowsOf(first.db, link)).toBe(8);
        expect(await rowsOf(first.db, app)).toBe(8);

        // Overlapping key sets in opposite orders across instances queue rather than deadlock.
        const a = key(1000);
        const b = key(1000);
        const c = key(1000);
        const mixed = await Promise.all(
          Array.from({ length: 80 }, (_, i) =>
            stores[i % 2]!.tryReserve(
              [
                [a, b],
                [b, c],
                [c, a],
                [c, b, a],
              ][i % 4]!,
            ),
          ),
        );
        expect(mixed.every((r) => r.ok)).toBe(true);
        expect(await rowsOf(second.db, a)).toBe(60);

        // A closure set by one instance holds on the other.
        const closed = key(5);
        await stores[0]!.close(
          [bare(closed)],
          new Date(Date.now() + 60_000),
          event(closed.endpoint, Date.now(), { link: closed.scopeId }),
        );
        expect(await stores[1]!.tryReserve([closed])).toMatchObject({
          ok: false,
          reason: "closed",
          blockedBy: bare(closed),
        });
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });
  }
});

async function rowsOf(db: Database["db"], k: BudgetKey): Promise<number> {
  const result = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from budget_reservations where key = ${keyString(k)}`,
  );
  return result.rows[0]?.n ?? -1;
}

/** Another connection to the test's database: a second instance on PostgreSQL, a second PGlite otherwise. */
function openAnother(url: string | undefined): Promise<Database> {
  return createDatabase(url ? { url } : { dataDir: "memory" });
}
