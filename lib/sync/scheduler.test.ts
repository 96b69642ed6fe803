import { describe, expect, it } from "vitest";
import { LEASE_TTL_MS } from "../leases/timing";
import { LEASE_STALE_MS } from "./lease";
import { RETRY_STOPPED_AFTER_MS, SCHEDULER_TICK_MS, syncDue } from "./scheduler";

const now = new Date("2026-11-20T12:00:00Z");
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
const idle = { phase: "idle" as const, running: false, runFinishedAt: ago(5), requestedAt: null, failing: null };

describe("syncDue", () => {
  it("starts a run when the interval has passed since the last one finished", async () => {
    expect((await syncDue({ status: idle, now, intervalMinutes: 15 })).due).toBe(false);
    expect((await syncDue({ status: { ...idle, runFinishedAt: ago(15) }, now, intervalMinutes: 15 })).due).toBe(true);
    expect((await syncDue({ status: { ...idle, runFinishedAt: null }, now, intervalMinutes: 15 })).due).toBe(true);
  });

  it("with an interval of 0, runs only on demand", async () => {
    expect((await syncDue({ status: { ...idle, runFinishedAt: null }, now, intervalMinutes: 0 })).due).toBe(false);
    expect((await syncDue({ status: { ...idle, requestedAt: ago(0) }, now, intervalMinutes: 0 })).due).toBe(true);
  });

  it("never starts beside a live run, and resumes an unfinished one", async () => {
    expect(
      (await syncDue({ status: { ...idle, running: true, requestedAt: ago(0) }, now, intervalMinutes: 15 })).due,
    ).toBe(false);
    expect(await syncDue({ status: { ...idle, phase: "details" }, now, intervalMinutes: 0 })).toEqual({
      due: true,
      reason: "resuming an unfinished run",
    });
  });

  it("after a run that ended with the upstream still failing, tries again at the wait it had reached", async () => {
    const failing = { since: ago(30), failure: "the upstream answers 503", retryMs: 2 * 60_000 };
    expect(await syncDue({ status: { ...idle, runFinishedAt: ago(1), failing }, now, intervalMinutes: 15 })).toEqual({
      due: false,
      reason: "synced recently",
    });
    expect(await syncDue({ status: { ...idle, runFinishedAt: ago(2), failing }, now, intervalMinutes: 15 })).toEqual({
      due: true,
      reason: "the last run ended while the upstream failed; trying again",
    });
  });

  it("waits a little after a run stopped early, unless someone asks for a run since", async () => {
    const stopped = { ...idle, phase: "details" as const };
    expect((await syncDue({ status: stopped, now, intervalMinutes: 15, lastStoppedAt: ago(1) })).due).toBe(false);
    expect(
      (
        await syncDue({
          status: stopped,
          now,
          intervalMinutes: 15,
          lastStoppedAt: new Date(now.getTime() - RETRY_STOPPED_AFTER_MS),
        })
      ).due,
    ).toBe(true);
    expect(
      (
        await syncDue({
          status: { ...stopped, requestedAt: ago(0.5) },
          now,
          intervalMinutes: 15,
          lastStoppedAt: ago(1),
        })
      ).due,
    ).toBe(true);
    expect(
      (await syncDue({ status: { ...stopped, requestedAt: ago(2) }, now, intervalMinutes: 15, lastStoppedAt: ago(1) }))
        .due,
    ).toBe(false);
  });
});

describe("syncDue with webhooks", () => {
  const slowdown = (flowing: boolean) => ({ factor: 4, webhooksFlowing: async () => flowing });

  it("runs the sync SYNC_WEBHOOK_SLOWDOWN times less often while webhooks flow, and at the plain interval when they stop", async () => {
    const finished = (minutes: number) => ({ ...idle, runFinishedAt: ago(minutes) });
    expect(await syncDue({ status: finished(20), now, intervalMinutes: 15, slowdown: slowdown(true) })).toEqual({
      due: false,
      reason: "webhooks are flowing: the sync runs 4 times less often",
    });
    expect((await syncDue({ status: finished(60), now, intervalMinutes: 15, slowdown: slowdown(true) })).due).toBe(
      true,
    );
    expect((await syncDue({ status: finished(20), now, intervalMinutes: 15, slowdown: slowdown(false) })).due).toBe(
      true,
    );
    // Asked for, or half done, a run is due whatever the webhooks.
    expect(
      (
        await syncDue({
          status: { ...finished(20), requestedAt: ago(0) },
          now,
          intervalMinutes: 15,
          slowdown: slowdown(true),
        })
      ).due,
    ).toBe(true);
  });
});

describe("takeover of a dead holder's run", () => {
  it("happens within 20 s: the lease lapses after the shared TTL and idle instances look every poll interval", async () => {
    expect(LEASE_STALE_MS).toBe(LEASE_TTL_MS);
    expect(LEASE_STALE_MS + SCHEDULER_TICK_MS).toBeLessThan(20_000);
  });
});
