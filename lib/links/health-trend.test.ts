import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { linkSnapshots } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { cachedHealthTrend, healthTrend } from "./health-trend";

const databases = withTestDatabases();

const NOW = new Date("2026-11-20T12:00:00.000Z");
const DAY_MS = 86_400_000;

describe.each(databases)("$kind", (target) => {
  let db: Db;
  beforeEach(async () => {
    db = target.database.db;
    // Each test file has databases of its own: emptying these tables touches no other test.
    await db.delete(linkSnapshots);
  });

  describe("healthTrend", () => {
    const snapshot = (at: Date, connected: number, error: number) => ({
      at,
      total: connected + error,
      byState: { connected, error },
      byErrorCode: { auth_expired: error },
    });

    it("returns the window's snapshots oldest first, without older or future ones", async () => {
      await db
        .insert(linkSnapshots)
        .values([
          snapshot(new Date(NOW.getTime() - 40 * DAY_MS), 1, 1),
          snapshot(new Date(NOW.getTime() - 2 * DAY_MS), 5, 2),
          snapshot(new Date(NOW.getTime() - 20 * DAY_MS), 3, 3),
          snapshot(new Date(NOW.getTime() + DAY_MS), 9, 9),
        ]);
      const trend = await healthTrend(db, { days: 30, now: NOW });
      expect(trend.from).toEqual(new Date(NOW.getTime() - 30 * DAY_MS));
      expect(trend.to).toEqual(NOW);
      expect(trend.points).toEqual([
        {
          at: new Date(NOW.getTime() - 20 * DAY_MS),
          total: 6,
          byState: { connected: 3, error: 3 },
          byErrorCode: { auth_expired: 3 },
          source: "sync",
        },
        {
          at: new Date(NOW.getTime() - 2 * DAY_MS),
          total: 7,
          byState: { connected: 5, error: 2 },
          byErrorCode: { auth_expired: 2 },
          source: "sync",
        },
      ]);
    });

    it("keeps the newest snapshot of each slice when there are more snapshots than points", async () => {
      // One snapshot every 10 minutes for 2 days: 288 snapshots.
      const rows = Array.from({ length: 288 }, (_, i) => snapshot(new Date(NOW.getTime() - i * 600_000), i, 0));
      await db.insert(linkSnapshots).values(rows);
      const trend = await healthTrend(db, { days: 2, maxPoints: 24, now: NOW });
      expect(trend.points.length).toBeGreaterThanOrEqual(24);
      expect(trend.points.length).toBeLessThanOrEqual(25);
      const times = trend.points.map((p) => p.at.getTime());
      expect(times).toEqual([...times].sort((a, b) => a - b));
      // The newest snapshot is always kept, so a chart ends at the latest sync.
      expect(trend.points.at(-1)).toMatchObject({ at: NOW, total: 0 });
    });

    it("drops keys it does not know from stored counts", async () => {
      await db.insert(linkSnapshots).values({
        at: NOW,
        total: 3,
        byState: { connected: 2, someday_state: 1 },
        byErrorCode: { auth_expired: 1, not_a_code: 4 },
      });
      const { points } = await healthTrend(db, { days: 1, now: NOW });
      expect(points).toEqual([
        { at: NOW, total: 3, byState: { connected: 2 }, byErrorCode: { auth_expired: 1 }, source: "sync" },
      ]);
    });

    it("is shared by the views of a few seconds, one read per window", async () => {
      await db.insert(linkSnapshots).values(snapshot(new Date(Date.now() - DAY_MS), 4, 1));
      const first = cachedHealthTrend(db, 30);
      expect(cachedHealthTrend(db, 30)).toBe(first);
      expect(cachedHealthTrend(db, 7)).not.toBe(first);
      expect((await first).points.map((p) => p.total)).toEqual([5]);
      expect((await cachedHealthTrend(db, 7)).points.map((p) => p.total)).toEqual([5]);
    });
  });
});
