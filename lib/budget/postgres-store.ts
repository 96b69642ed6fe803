import "server-only";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { BudgetUnavailableError, isBudgetUnavailable } from "./errors";
import { distinctKeys, keyString, parseKey } from "./keys";
import type { BudgetKey, BudgetStore, BudgetUsage, RateLimitEvent, ReserveResult } from "./types";

// The budget shared by every dashboard instance. Each reservation is one call of budget_try_reserve (migration 0004):
// one round trip, one transaction that takes an advisory lock per key (in one global order), counts the key's
// reservations in its window and records one per key only when all have room. Times are read from the DATABASE's
// clock, so instances agree however their own clocks drift or step; a Date crosses the boundary as a duration from
// "now" on each side, so what a caller waits for is right on its own clock.

export interface PostgresStoreOptions {
  /** Replaces both the database's clock and this process's (milliseconds since the epoch); for tests only. */
  now?: () => number;
  /** How long one budget query may take before the call is refused as if the database were down. */
  timeoutMs?: number;
  /** The share of reservations that also sweep out rows of keys nobody reserves any more. */
  sweepChance?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_SWEEP_CHANCE = 1 / 250;
const EVENT_RETENTION = sql.raw("interval '1 hour'");
const MAX_EVENTS = 1000;

interface ReserveRow {
  ok: boolean;
  now_ms: number;
  blocked_key: string | null;
  next_slot_ms: number | null;
  reason: "full" | "closed" | null;
}

interface UsageRow {
  now_ms: number;
  used: { key: string; count: number; oldestMs: number }[];
  closures: { key: string; untilMs: number }[];
  events: { atMs: number; endpoint: string; retryAfter: string | null; scopeIds: Record<string, string> }[];
}

export function createPostgresStore(db: Db, options: PostgresStoreOptions = {}): BudgetStore {
  const localNow = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const sweepChance = options.sweepChance ?? DEFAULT_SWEEP_CHANCE;
  // null: the database reads its own clock.
  const dbNow = () => (options.now ? new Date(options.now()).toISOString() : null);

  /** Runs one statement; any failure (unreachable, refused, too slow) becomes BudgetUnavailableError. */
  async function query<T>(statement: SQL): Promise<T[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new BudgetUnavailableError({ cause: new Error(`no answer within ${timeoutMs} ms`), timedOut: true })),
        timeoutMs,
      );
    });
    try {
      // A query that answers after the timeout may still record its reservation: that only spends budget unused.
      const result = await Promise.race([db.execute(statement), timeout]);
      return result.rows as T[];
    } catch (error) {
      if (isBudgetUnavailable(error)) throw error;
      throw new BudgetUnavailableError({ cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /** A time on the database's clock, as a Date on this process's clock. */
  const toLocal = (ms: number, dbNowMs: number, localAt: number) => new Date(localAt + (ms - dbNowMs));

  return {
    kind: "postgres",

    async tryReserve(keys): Promise<ReserveResult> {
      const reserved = distinctKeys(keys).map(({ id, key }) => ({ key: id, limit: key.limit, windowMs: key.windowMs }));
      const [row] = await query<ReserveRow>(
        sql`select * from budget_try_reserve(${JSON.stringify(reserved)}::jsonb, ${dbNow()}::timestamptz, ${sweepChance}::float8)`,
      );
      const localAt = localNow();
      if (!row) throw new BudgetUnavailableError({ cause: new Error("budget_try_reserve returned no row") });
      if (row.ok) return { ok: true };
      if (row.blocked_key === null || row.next_slot_ms === null || row.reason === null) {
        throw new BudgetUnavailableError({ cause: new Error("budget_try_reserve refused without saying why") });
      }
      return {
        ok: false,
        nextSlotAt: toLocal(Number(row.next_slot_ms), Number(row.now_ms), localAt),
        blockedBy: parseKey(row.blocked_key),
        reason: row.reason,
      };
    },

    async close(keys: BudgetKey[], until: Date, event: RateLimitEvent): Promise<void> {
      const ids = [...new Set(keys.map(keyString))];
      // Retry-After is a wait from when the upstream answered: carried over as one, it lands right on the database's clock.
      const remainingMs = until.getTime() - localNow();
      await query(sql`
        with t as (select coalesce(${dbNow()}::timestamptz, clock_timestamp()) as now),
        closed as (
          insert into budget_closures (key, until)
          select k, t.now + ${remainingMs}::float8 * interval '1 millisecond' from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) k, t
          on conflict (key) do update set until = greatest(budget_closures.until, excluded.until)
        ),
        recorded as (
          insert into budget_events (at, endpoint, retry_after, scope_ids)
          values (${event.at.toISOString()}::timestamptz, ${event.endpoint}, ${event.retryAfter}, ${JSON.stringify(event.scopeIds)}::jsonb)
        )
        delete from budget_events where at < (select now from t) - ${EVENT_RETENTION}
      `);
    },

    async release(keys: BudgetKey[]): Promise<void> {
      const ids = [...new Set(keys.map(keyString))];
      if (ids.length === 0) return;
      await query(sql`
        delete from budget_reservations where id in (
          select distinct on (r.key) r.id from budget_reservations r
           where r.key in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
           order by r.key, r.at desc, r.id desc)
      `);
    },

    async usage(windowMs: number): Promise<BudgetUsage> {
      const [row] = await query<UsageRow>(sql`
        with t as (select date_trunc('milliseconds', coalesce(${dbNow()}::timestamptz, clock_timestamp())) as now)
        select
          (extract(epoch from t.now) * 1000)::float8 as now_ms,
          (select coalesce(jsonb_agg(jsonb_build_object('key', u.key, 'count', u.n, 'oldestMs', u.oldest_ms) order by u.key), '[]'::jsonb)
             from (select r.key, count(*) as n, (extract(epoch from min(r.at)) * 1000)::float8 as oldest_ms
                     from budget_reservations r
                    where r.at > t.now - ${windowMs}::float8 * interval '1 millisecond'
                    group by r.key) u) as used,
          (select coalesce(jsonb_agg(jsonb_build_object('key', c.key, 'untilMs', (extract(epoch from c.until) * 1000)::float8) order by c.key), '[]'::jsonb)
             from budget_closures c where c.until > t.now) as closures,
          (select coalesce(jsonb_agg(jsonb_build_object('atMs', (extract(epoch from e.at) * 1000)::float8, 'endpoint', e.endpoint,
                                                        'retryAfter', e.retry_after, 'scopeIds', e.scope_ids) order by e.at desc, e.id desc), '[]'::jsonb)
             from (select * from budget_events where at > t.now - ${EVENT_RETENTION} order by at desc, id desc limit ${MAX_EVENTS}) e) as events
        from t
      `);
      const localAt = localNow();
      if (!row) throw new BudgetUnavailableError({ cause: new Error("the usage query returned no row") });
      const dbNowMs = Number(row.now_ms);
      return {
        used: row.used.map((u) => ({
          key: parseKey(u.key),
          count: u.count,
          oldestAt: toLocal(u.oldestMs, dbNowMs, localAt),
        })),
        closures: row.closures.map((c) => ({ key: parseKey(c.key), until: toLocal(c.untilMs, dbNowMs, localAt) })),
        events: row.events.map((e) => ({
          endpoint: e.endpoint,
          retryAfter: e.retryAfter,
          at: new Date(e.atMs),
          scopeIds: e.scopeIds,
        })),
      };
    },
  };
}
