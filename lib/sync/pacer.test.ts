import { describe, expect, it } from "vitest";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import { SyncPacer, syncPaceOf } from "./pacer";

/** A manual clock: sleeping moves it forward (late by `lateMs`, like a busy timer). */
function virtualClock(lateMs = 0) {
  const clock = {
    now: 0,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      clock.now += ms + lateMs;
    },
  };
  return clock;
}

async function grantTimes(pacer: SyncPacer, clock: { now: number }, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    await pacer.acquire();
    times.push(clock.now);
  }
  return times;
}

describe("SyncPacer", () => {
  it("hands out its slots evenly, never more than the limit in any window", async () => {
    const clock = virtualClock();
    const pacer = new SyncPacer({ limit: 100, windowMs: 60_000, now: () => clock.now, sleep: clock.sleep });
    const times = await grantTimes(pacer, clock, 1000);
    for (let i = 0; i + 100 < times.length; i++) expect(times[i + 100]! - times[i]!).toBeGreaterThanOrEqual(60_000);
    // A small burst at the start, then one slot every 600 ms: 1000 slots in about 10 windows.
    expect(times.at(-1)!).toBeGreaterThan(9.9 * 60_000 - 3 * 600);
    expect(times.at(-1)!).toBeLessThanOrEqual(10 * 60_000);
    expect(times[10]! - times[9]!).toBe(600);
  });

  it("makes up for late timers, so the rate holds at the limit", async () => {
    const clock = virtualClock(7);
    const pacer = new SyncPacer({ limit: 100, windowMs: 60_000, now: () => clock.now, sleep: clock.sleep });
    const times = await grantTimes(pacer, clock, 1000);
    for (let i = 0; i + 100 < times.length; i++) expect(times[i + 100]! - times[i]!).toBeGreaterThanOrEqual(60_000);
    // Every timer 7 ms late would cost about 1 % without the catch-up; with it the schedule holds.
    expect(times.at(-1)!).toBeLessThan(10 * 60_000 + 100);
  });

  it("serves waiting callers in order and lets them go on abort", async () => {
    const clock = virtualClock();
    const pacer = new SyncPacer({ limit: 10, windowMs: 10_000, now: () => clock.now, sleep: clock.sleep });
    const order: number[] = [];
    await Promise.all(Array.from({ length: 20 }, (_, i) => pacer.acquire().then(() => order.push(i))));
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));

    const real = new SyncPacer({ limit: 1, windowMs: 60_000 });
    await real.acquire();
    const controller = new AbortController();
    const waiting = real.acquire(controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });

  it("takes the sync's share of Linkdesk's per-app GET /links/{id} budget", () => {
    const budget = (app: number) =>
      new Budget({
        store: createMemoryStore(),
        clientId: "c",
        appId: "a",
        shares: { app, link: 0.5, user: 0.5, client: 0.5 },
        interactiveMaxWaitMs: 0,
      });
    // 1000 a minute upstream; Linkdesk's half is 500 over the budget's 61 s window; the sync's 80 % of that is 400.
    expect(syncPaceOf(budget(0.5), 0.8)).toEqual({ limit: 400, windowMs: 61_000 });
    expect(syncPaceOf(budget(1), 1)).toEqual({ limit: 1000, windowMs: 61_000 });
    expect(() => syncPaceOf(budget(1), 0)).toThrow(RangeError);
  });
});
