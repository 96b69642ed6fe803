import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { linkSnapshots } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { healthBaseline } from "./health-baseline";
import { type HealthBaseline, healthChange, signed } from "./health-change";
import type { HealthSummary } from "./health-summary";

// What changed on Health: the counts now against a snapshot of a known history, and which snapshot that is.

const HOUR = 60 * 60_000;
const NOW = new Date("2026-11-28T12:00:00.000Z");

function summary(byState: Record<string, number>, byErrorCode: Record<string, number>, unread = 0): HealthSummary {
  const read = Object.values(byState).reduce((a, b) => a + b, 0);
  return {
    total: read + unread,
    unread,
    byState: Object.entries(byState).map(([state, count]) => ({ state, count })),
    byErrorCode: Object.entries(byErrorCode).map(([errorCode, count]) => ({ errorCode, count })),
    otherStates: [],
    otherErrorCodes: [],
    withErrorCode: Object.values(byErrorCode).reduce((a, b) => a + b, 0),
    whoActs: [],
    topInstitutions: [],
    topProviders: [],
    stale: [],
    productErrors: [],
    otherProductErrors: 0,
    asOf: NOW,
    readAt: NOW,
  } as unknown as HealthSummary;
}

describe("healthChange", () => {
  it("gives each count's change since the snapshot, and the error codes that moved most, largest first", () => {
    const then: HealthBaseline = {
      at: new Date(NOW.getTime() - 24 * HOUR),
      total: 100,
      byState: { connected: 90, error: 10 },
      byErrorCode: { auth_expired: 6, institution_error: 4 },
    };
    const now = summary(
      { connected: 80, error: 22, deleted: 1 },
      { auth_expired: 18, institution_error: 1, invalid_credentials: 3 },
    );
    const change = healthChange("24h", now, then);
    expect(change.total).toBe(3);
    expect(change.byState).toMatchObject({ connected: -10, error: 12, deleted: 1 });
    expect(change.byErrorCode).toEqual({ auth_expired: 12, institution_error: -3, invalid_credentials: 3 });
    expect(change.movers).toEqual([
      { errorCode: "auth_expired", delta: 12, now: 18 },
      { errorCode: "institution_error", delta: -3, now: 1 },
      { errorCode: "invalid_credentials", delta: 3, now: 3 },
    ]);
    expect([signed(12), signed(-3), signed(0), signed(1234)]).toEqual(["+12", "−3", "no change", "+1,234"]);
  });
});

const databases = withTestDatabases();

describe.each(databases)("healthBaseline, on $kind", (target) => {
  let db: Db;
  beforeEach(async () => {
    db = target.database.db;
    await db.delete(linkSnapshots);
  });

  const snapshot = (hoursAgo: number, read: number, total: number, source: "sync" | "start" | "demo" = "sync") =>
    db.insert(linkSnapshots).values({
      at: new Date(NOW.getTime() - hoursAgo * HOUR),
      total,
      byState: { connected: read },
      byErrorCode: {},
      source,
    });

  it("is the newest whole snapshot at least the window old: not the demo's history, not one of a sync half done", async () => {
    await snapshot(30, 1000, 1000); // whole, 30 h ago
    await snapshot(26, 400, 1000, "start"); // a start with most links not read yet
    await snapshot(25, 2000, 2000, "demo"); // the demo's made-up history
    await snapshot(2, 990, 1000); // whole, but within the last 24 h
    const { baseline } = await healthBaseline(db, "24h", NOW);
    expect(baseline?.at).toEqual(new Date(NOW.getTime() - 30 * HOUR));
    expect((await healthBaseline(db, "1h", NOW)).baseline?.at).toEqual(new Date(NOW.getTime() - 2 * HOUR));
  });

  it("is none when Linkdesk has not run that long, and says since when it has", async () => {
    await snapshot(0.5, 1000, 1000);
    await snapshot(0.2, 1000, 1000);
    expect(await healthBaseline(db, "1h", NOW)).toEqual({
      baseline: null,
      oldest: new Date(NOW.getTime() - 0.5 * HOUR),
    });
  });
});
