import { asc } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { links, linkSnapshots } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { upsertListedLinks } from "../sync/queries";
import { wireLink } from "../testing/wire-fixtures";
import { LINK_ERROR_CODES } from "../upstream/schemas";
import { demoHistoryUntil, healthTrend } from "./health-trend";
import { DEMO_HISTORY_DAYS, demoHistory, takeStartSnapshots } from "./trend-snapshots";
import { recordLinks } from "./read-model";

const databases = withTestDatabases();
const NOW = new Date("2026-11-20T12:00:00.000Z");
const DAY_MS = 86_400_000;
// The bundled sandbox's seed, as lib/env.ts gives it by default: each error code on one link in 64.
const DEMO = { links: 2000, errorCodeShare: 1 / 64 };

describe("demoHistory", () => {
  const days = demoHistory({ now: NOW, total: 2000, errorCodeShare: DEMO.errorCodeShare });

  it("gives one consistent snapshot a day for 90 days, ending a day before now at about the size asked", () => {
    expect(days).toHaveLength(DEMO_HISTORY_DAYS);
    expect(days[0]!.at).toEqual(new Date(NOW.getTime() - 90 * DAY_MS));
    expect(days.at(-1)!.at).toEqual(new Date(NOW.getTime() - DAY_MS));
    expect(Math.abs(days.at(-1)!.total - 2000)).toBeLessThan(30);
    for (const day of days) {
      const states = Object.values(day.byState).reduce((a, b) => a + b, 0);
      const codes = Object.values(day.byErrorCode).reduce((a, b) => a + b, 0);
      expect(states).toBe(day.total);
      expect(codes).toBe(day.byState.error);
      expect(Object.keys(day.byErrorCode).sort()).toEqual([...LINK_ERROR_CODES].sort());
    }
  });

  it("tells something: an institution outage stands out of its usual level, and the history is the same on every run", () => {
    const outage = days.map((d) => d.byErrorCode.institution_error!);
    expect(Math.max(...outage)).toBeGreaterThan(4 * outage[5]!);
    expect(demoHistory({ now: NOW, total: 2000, errorCodeShare: DEMO.errorCodeShare })).toEqual(days);
  });
});

describe.each(databases)("$kind", (target) => {
  let db: Db;
  beforeEach(async () => {
    db = target.database.db;
    await db.delete(links);
    await db.delete(linkSnapshots);
  });

  it("seeds the demo history on a first start, once, and the trend marks it as demo", async () => {
    expect(await takeStartSnapshots(db, { demo: DEMO, now: NOW })).toEqual({
      demoSeeded: DEMO_HISTORY_DAYS,
      startSnapshot: false,
    });
    expect(await takeStartSnapshots(db, { demo: DEMO, now: new Date(NOW.getTime() + DAY_MS) })).toEqual({
      demoSeeded: 0,
      startSnapshot: false,
    });
    const rows = await db.select().from(linkSnapshots).orderBy(asc(linkSnapshots.at));
    expect(rows).toHaveLength(DEMO_HISTORY_DAYS);
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(["demo"]));
    const trend = await healthTrend(db, { days: 90, now: NOW });
    expect(trend.points.length).toBeGreaterThan(80);
    expect(demoHistoryUntil(trend)).toEqual(new Date(NOW.getTime() - DAY_MS));
  });

  it("seeds nothing outside demo mode, nor over a history that exists", async () => {
    expect(await takeStartSnapshots(db, { demo: false, now: NOW })).toEqual({ demoSeeded: 0, startSnapshot: false });
    expect(await db.select().from(linkSnapshots)).toHaveLength(0);
    await db.insert(linkSnapshots).values({ at: NOW, total: 1, byState: {}, byErrorCode: {} });
    expect((await takeStartSnapshots(db, { demo: DEMO, now: NOW })).demoSeeded).toBe(0);
  });

  it("takes a snapshot at start of what the read model holds, once it holds a read link, the unread ones in its total", async () => {
    await upsertListedLinks(db, [{ link_id: "mk_listed_only", created_at: NOW.toISOString() }], NOW);
    expect((await takeStartSnapshots(db, { demo: false, now: NOW })).startSnapshot).toBe(false);
    await recordLinks(db, [wireLink({ link_id: "mk_read", state: "error", error_code: "auth_expired" })], NOW);
    expect((await takeStartSnapshots(db, { demo: false, now: NOW })).startSnapshot).toBe(true);
    const [snapshot] = await db.select().from(linkSnapshots);
    expect(snapshot).toMatchObject({
      source: "start",
      total: 2,
      byState: { error: 1 },
      byErrorCode: { auth_expired: 1 },
    });
  });
});
