import "server-only";
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bareKey, distinctKeys, keyString, parseKey } from "./keys";
import type { BudgetKey, BudgetStore, BudgetUsage, RateLimitEvent, ReserveResult } from "./types";

// The embedded default's budget: one process, so counting in memory is exact. Every time is kept on a monotonic clock:
// a wall-clock step (NTP, a suspended laptop, someone setting the date) must neither free slots nor hold them.
// Dates go in and out through the wall clock as it reads at that moment, i.e. as durations from now.

interface SlidingLog {
  /** Reservation times, oldest first, from `head` on; entries before `head` have left the window. */
  times: number[];
  head: number;
  windowMs: number;
}

interface StoredEvent {
  event: RateLimitEvent;
  recordedAt: number;
}

const EVENT_RETENTION_MS = 60 * 60_000;
const MAX_EVENTS = 1000;
const SWEEP_INTERVAL_MS = 60_000;

export interface MemoryStoreOptions {
  /** Milliseconds on a clock that never steps back; defaults to performance.timeOrigin + performance.now(). */
  now?: () => number;
  /**
   * A file to journal reservations in, so a restart (clean or not) resumes with the calls of the current window
   * instead of allowing a fresh burst. Each reservation is appended before it is granted; the file is compacted to
   * the live window now and then.
   */
  journalFile?: string;
}

interface JournalLine {
  /** Key id. */
  k: string;
  /** Window of the key, ms. */
  w: number;
  /** Wall-clock time of the reservation, ms. */
  t: number;
}

export interface MemoryBudgetStore extends BudgetStore {
  readonly kind: "memory";
  /** Keys with reservations still held in memory, which the periodic sweep keeps to those with recent ones. */
  readonly keyCount: number;
}

export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryBudgetStore {
  const clock = options.now ?? (() => performance.timeOrigin + performance.now());
  const logs = new Map<string, SlidingLog>();
  const closures = new Map<string, number>();
  let events: StoredEvent[] = [];
  let last = -Infinity;
  let lastSweep = -Infinity;

  // Never backwards, even from an injected clock: the sliding logs rely on times being appended in order.
  const now = () => (last = Math.max(last, clock()));
  const toDate = (time: number, at: number) => new Date(Date.now() + (time - at));
  const fromDate = (date: Date, at: number) => at + (date.getTime() - Date.now());
  const journal = options.journalFile;
  if (journal) mkdirSync(path.dirname(journal), { recursive: true });

  // Replay the journal: reservations still inside their window count again, placed on this process's clock by their
  // age (wall clock: the only clock two processes share). The path is run-time data (LINKDESK_DATA_DIR), not a file of
  // the build: turbopackIgnore keeps Turbopack from tracing the whole project into the server output for it.
  if (journal && existsSync(/*turbopackIgnore: true*/ journal)) {
    const at = now();
    const wall = Date.now();
    const lines = readFileSync(/*turbopackIgnore: true*/ journal, "utf8").split("\n");
    const replayed: { line: JournalLine; time: number }[] = [];
    for (const text of lines) {
      if (!text) continue;
      try {
        const line = JSON.parse(text) as JournalLine;
        const age = wall - line.t;
        if (age < line.w) replayed.push({ line, time: at - Math.max(0, age) });
      } catch {
        // A torn last line from a crash: skip it.
      }
    }
    replayed.sort((a, b) => a.time - b.time);
    for (const { line, time } of replayed) {
      let log = logs.get(line.k);
      if (!log) logs.set(line.k, (log = { times: [], head: 0, windowMs: line.w }));
      log.times.push(time);
    }
  }

  function compactJournal(at: number): void {
    if (!journal) return;
    const wall = Date.now();
    const live: string[] = [];
    for (const [id, log] of logs) {
      for (let i = log.head; i < log.times.length; i++)
        live.push(JSON.stringify({ k: id, w: log.windowMs, t: wall - (at - log.times[i]!) }));
    }
    mkdirSync(path.dirname(journal), { recursive: true });
    writeFileSync(`${journal}.tmp`, live.length ? `${live.join("\n")}\n` : "");
    renameSync(`${journal}.tmp`, journal);
  }

  /** Drops the entries that left the window; answers how many are left. */
  function prune(log: SlidingLog, at: number): number {
    const cutoff = at - log.windowMs;
    while (log.head < log.times.length && log.times[log.head]! <= cutoff) log.head++;
    // Compact once the dead prefix dominates, so memory stays at about the limit per key.
    if (log.head > 32 && log.head * 2 > log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
    return log.times.length - log.head;
  }

  function sweep(at: number): void {
    lastSweep = at;
    for (const [id, log] of logs) if (prune(log, at) === 0) logs.delete(id);
    for (const [id, until] of closures) if (until <= at) closures.delete(id);
    events = events.filter((e) => e.recordedAt > at - EVENT_RETENTION_MS).slice(-MAX_EVENTS);
    compactJournal(at);
  }

  return {
    kind: "memory",

    get keyCount() {
      return logs.size;
    },

    async tryReserve(keys) {
      const at = now();
      if (at - lastSweep >= SWEEP_INTERVAL_MS) sweep(at);
      const reserved = distinctKeys(keys);
      let refusal: { until: number; key: BudgetKey; reason: "full" | "closed" } | undefined;
      const logsOfCall: SlidingLog[] = [];
      for (const { id, key } of reserved) {
        let log = logs.get(id);
        if (!log) logs.set(id, (log = { times: [], head: 0, windowMs: key.windowMs }));
        log.windowMs = key.windowMs;
        logsOfCall.push(log);
        const used = prune(log, at);
        // A slot frees when the (used - limit + 1)-th oldest reservation leaves the window.
        const fullUntil = used >= key.limit ? log.times[log.head + used - key.limit]! + key.windowMs : undefined;
        const closedUntil = closures.get(id);
        const closed = closedUntil !== undefined && closedUntil > at ? closedUntil : undefined;
        if (fullUntil === undefined && closed === undefined) continue;
        const until = Math.max(fullUntil ?? -Infinity, closed ?? -Infinity);
        if (!refusal || until > refusal.until) {
          refusal = { until, key: bareKey(key), reason: closed !== undefined && closed >= until ? "closed" : "full" };
        }
      }
      if (refusal) {
        return {
          ok: false,
          nextSlotAt: toDate(refusal.until, at),
          blockedBy: refusal.key,
          reason: refusal.reason,
        } satisfies ReserveResult;
      }
      if (journal) {
        // Written before the slot is granted: a crash right after cannot forget a call that was sent.
        const wall = Date.now();
        const lines = reserved.map(({ id, key }) => JSON.stringify({ k: id, w: key.windowMs, t: wall })).join("\n");
        appendFileSync(journal, `${lines}\n`);
      }
      for (const log of logsOfCall) log.times.push(at);
      return { ok: true };
    },

    async close(keys, until, event) {
      const at = now();
      const closesAt = fromDate(until, at);
      for (const key of keys) {
        const id = keyString(key);
        // Two 429s on one key: the later end wins, a shorter Retry-After does not reopen the key early.
        closures.set(id, Math.max(closures.get(id) ?? -Infinity, closesAt));
      }
      events.push({ event: { ...event, scopeIds: { ...event.scopeIds } }, recordedAt: at });
      if (events.length > MAX_EVENTS) events = events.slice(-MAX_EVENTS);
    },

    async release(keys) {
      const at = now();
      let released = false;
      for (const id of new Set(keys.map(keyString))) {
        const log = logs.get(id);
        if (!log || prune(log, at) === 0) continue;
        log.times.pop();
        released = true;
      }
      // The journal would count the reservation again after a restart: rewrite it to what is held now.
      if (released) compactJournal(at);
    },

    async usage(windowMs): Promise<BudgetUsage> {
      const at = now();
      const used: BudgetUsage["used"] = [];
      for (const [id, log] of logs) {
        prune(log, at);
        let first = log.head;
        while (first < log.times.length && log.times[first]! <= at - windowMs) first++;
        const count = log.times.length - first;
        if (count > 0) used.push({ key: parseKey(id), count, oldestAt: toDate(log.times[first]!, at) });
      }
      const closuresInForce = [...closures]
        .filter(([, until]) => until > at)
        .map(([id, until]) => ({ key: parseKey(id), until: toDate(until, at) }));
      const recent = events
        .filter((e) => e.recordedAt > at - EVENT_RETENTION_MS)
        .map((e) => ({ ...e.event, scopeIds: { ...e.event.scopeIds } }))
        .reverse();
      return { used: used.sort(byKey), closures: closuresInForce.sort(byKey), events: recent };
    },
  };
}

function byKey(a: { key: BudgetKey }, b: { key: BudgetKey }): number {
  const x = keyString(a.key);
  const y = keyString(b.key);
  return x < y ? -1 : x > y ? 1 : 0;
}
