import { describe, expect, it } from "vitest";
import { RecentReads } from "./recent-reads";

describe("RecentReads", () => {
  it("shares a recent read, and reads again once the upstream said the value changed after it", async () => {
    let now = 1_000;
    let reads = 0;
    const cache = new RecentReads(async () => ({ n: ++reads }), { maxAgeMs: 30_000, maxKeys: 8, now: () => now });
    expect((await cache.get("mk_1")).n).toBe(1);
    now += 5_000;
    // Changed before the read: the read is still good.
    expect((await cache.get("mk_1", {}, 500)).n).toBe(1);
    // A webhook said the transactions changed after the read: the next view reads again, and shares that read.
    expect((await cache.get("mk_1", {}, 5_500)).n).toBe(2);
    expect((await cache.get("mk_1", {}, 5_500)).n).toBe(2);
  });
});
