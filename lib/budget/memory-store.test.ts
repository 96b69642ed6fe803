import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryStore } from "./memory-store";
import { BUDGET_WINDOW_MS } from "./rules";
import type { BudgetedKey, RateLimitEvent } from "./types";

afterEach(() => {
  vi.restoreAllMocks();
});

const HOUR = 60 * 60_000;
const realDateNow = Date.now.bind(Date);

function key(limit: number, windowMs = BUDGET_WINDOW_MS): BudgetedKey {
  return {
    endpoint: "PATCH /links/{id}",
    scope: "link",
    scopeId: `mk_${randomUUID()}`,
    limit,
    upstreamLimit: limit,
    windowMs,
  };
}

/** Makes Date.now read `offset` ms away from the real wall clock, as after an NTP step or a change of date. */
function stepWallClock(offset: number) {
  vi.spyOn(Date, "now").mockImplementation(() => realDateNow() + offset);
}

describe("memory store", () => {
  it("counts on a monotonic clock: a wall-clock step back or forward neither frees nor doubles slots", async () => {
    let monotonic = 1_000_000;
    let wall = Date.parse("2026-03-02T09:00:00.000Z");
    vi.spyOn(Date, "now").mockImplementation(() => wall);
    const store = createMemoryStore({ now: () => monotonic });
    const k = key(2);
    expect(await store.tryReserve([k])).toEqual({ ok: true });
    expect(await store.tryReserve([k])).toEqual({ ok: true });

    // An hour forward on the wall clock, 5 s on the monotonic one: the window has not passed.
    monotonic += 5_000;
    wall += HOUR;
    const forward = await store.tryReserve([k]);
    expect(forward).toMatchObject({ ok: false, reason: "full" });
    // The Date it answers is on the wall clock as it reads now: the wait is what is left of the window.
    expect(!forward.ok && forward.nextSlotAt.getTime() - Date.now()).toBe(k.windowMs - 5_000);

    // And a day back: the slots are not held for a day either.
    wall -= 25 * HOUR;
    const back = await store.tryReserve([k]);
    expect(!back.ok && back.nextSlotAt.getTime() - Date.now()).toBe(k.windowMs - 5_000);
    monotonic += k.windowMs - 5_000;
    expect(await store.tryReserve([k])).toEqual({ ok: true });
    expect(await store.tryReserve([k])).toEqual({ ok: true });
    expect((await store.tryReserve([k])).ok).toBe(false);
  });

  it("holds a closure for the time the upstream asked, whatever the wall clock does afterwards", async () => {
    let monotonic = 0;
    let wall = Date.parse("2026-03-02T09:00:00.000Z");
    vi.spyOn(Date, "now").mockImplementation(() => wall);
    const store = createMemoryStore({ now: () => monotonic });
    const k = key(5);
    const event: RateLimitEvent = {
      endpoint: k.endpoint,
      retryAfter: "30",
      at: new Date(wall),
      scopeIds: { link: k.scopeId },
    };
    await store.close([k], new Date(wall + 30_000), event);
    wall += HOUR;
    monotonic += 29_999;
    expect(await store.tryReserve([k])).toMatchObject({ ok: false, reason: "closed", nextSlotAt: new Date(wall + 1) });
    wall -= 2 * HOUR;
    monotonic += 1;
    expect(await store.tryReserve([k])).toEqual({ ok: true });
  });

  it("uses the real monotonic clock by default, not Date.now", async () => {
    const store = createMemoryStore();
    const k = key(1);
    expect(await store.tryReserve([k])).toEqual({ ok: true });
    stepWallClock(2 * HOUR);
    expect(await store.tryReserve([k])).toMatchObject({ ok: false, reason: "full" });
    stepWallClock(-2 * HOUR);
    const refusal = await store.tryReserve([k]);
    if (refusal.ok) throw new Error("a wall-clock step back freed the slot");
    const wait = refusal.nextSlotAt.getTime() - Date.now();
    expect(wait).toBeGreaterThan(k.windowMs - 1_000);
    expect(wait).toBeLessThanOrEqual(k.windowMs);
  });

  it("drops keys with nothing left in their window, and ignores a clock that would run backwards", async () => {
    let monotonic = 0;
    const store = createMemoryStore({ now: () => monotonic });
    for (let i = 0; i < 500; i++) await store.tryReserve([key(3, 1_000)]);
    expect(store.keyCount).toBe(500);
    monotonic += 60_000;
    const busy = key(3, 120_000);
    await store.tryReserve([busy]);
    expect(store.keyCount).toBe(1);
    // A clock injected by mistake going back does not let the log run out of order.
    monotonic -= 50_000;
    await store.tryReserve([busy]);
    expect((await store.usage(120_000)).used).toEqual([
      { key: { endpoint: busy.endpoint, scope: "link", scopeId: busy.scopeId }, count: 2, oldestAt: expect.any(Date) },
    ]);
  });

  it("keeps the 429s of the last hour, newest first, at most a thousand", async () => {
    let monotonic = 0;
    const store = createMemoryStore({ now: () => monotonic });
    const k = key(5);
    const at = Date.parse("2026-03-02T09:00:00.000Z");
    const event = (n: number): RateLimitEvent => ({
      endpoint: k.endpoint,
      retryAfter: String(n),
      at: new Date(at + n),
      scopeIds: { link: k.scopeId },
    });
    await store.close([k], new Date(Date.now() + 1_000), event(-1));
    monotonic += HOUR - 1_000;
    for (let n = 0; n < 1_200; n++) await store.close([k], new Date(Date.now() + 1_000), event(n));
    let { events } = await store.usage(BUDGET_WINDOW_MS);
    expect(events).toHaveLength(1_000);
    expect(events[0]).toEqual(event(1_199));
    expect(events.at(-1)).toEqual(event(200));
    monotonic += HOUR - 1;
    expect((await store.usage(BUDGET_WINDOW_MS)).events).toHaveLength(1_000);
    monotonic += 1;
    ({ events } = await store.usage(BUDGET_WINDOW_MS));
    expect(events).toEqual([]);
  });
});

describe("memory store journal", () => {
  it("resumes after a restart with the calls of the current window, so a restart allows no new burst", async () => {
    const { mkdtempSync, rmSync, appendFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const dir = mkdtempSync(path.join(tmpdir(), "linkdesk-budget-"));
    const journalFile = path.join(dir, "budget.journal");
    try {
      const key: BudgetedKey = {
        endpoint: "GET /links/{id}",
        scope: "link",
        scopeId: "mk_restart",
        limit: 3,
        upstreamLimit: 6,
        windowMs: BUDGET_WINDOW_MS,
      };
      const first = createMemoryStore({ journalFile });
      for (let i = 0; i < 3; i++) expect(await first.tryReserve([key])).toEqual({ ok: true });

      // The process ends without warning (nothing flushed beyond the journal), with a torn line at the end.
      appendFileSync(journalFile, '{"k":"GET /links/{id}|link|mk_restart","w":61');
      const second = createMemoryStore({ journalFile });
      const refused = await second.tryReserve([key]);
      expect(refused).toMatchObject({ ok: false, reason: "full" });
      if (refused.ok) throw new Error("unreachable");
      expect(refused.nextSlotAt.getTime()).toBeGreaterThan(Date.now() + BUDGET_WINDOW_MS - 5_000);
      expect((await second.usage(BUDGET_WINDOW_MS)).used).toEqual([
        expect.objectContaining({ key: { endpoint: key.endpoint, scope: "link", scopeId: "mk_restart" }, count: 3 }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
