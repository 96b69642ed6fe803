import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { alerts, links } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { evaluateAlerts } from "./evaluate";
import { openAlerts } from "./view";

// The alert catalogue against a read model of known links: an alert opens once when its condition holds, follows its
// value and peak, resolves when the condition clears, opens once whatever the evaluators at once, and nothing is
// evaluated while the read model is still being read.

const databases = withTestDatabases();

describe.each(databases)("alerts, on $kind", (target) => {
  let db: Db;
  beforeEach(async () => {
    db = target.database.db;
    await db.delete(alerts);
    await db.delete(links);
  });

  const id = () => `mk_a${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  /** An institution's links: `outage` in Institution outage, `user` needing their user, the rest connected. */
  async function institution(institutionId: string, total: number, { outage = 0, user = 0 } = {}) {
    const rows = Array.from({ length: total }, (_, i) => ({
      linkId: id(),
      institutionId,
      institutionName: `Bank ${institutionId}`,
      provider: "moneykit",
      state: i < outage + user ? "error" : "connected",
      errorCode: i < outage ? "institution_error" : i < outage + user ? "auth_expired" : null,
    }));
    await db.insert(links).values(rows);
    return rows.map((r) => r.linkId);
  }
  const setOutage = async (ids: string[], n: number) => {
    for (const [i, linkId] of ids.entries())
      await db
        .update(links)
        .set(i < n ? { state: "error", errorCode: "institution_error" } : { state: "connected", errorCode: null })
        .where(eq(links.linkId, linkId));
  };

  it("opens an institution's outage once, follows its value and peak, and resolves it when it clears", async () => {
    const chase = await institution("chase", 20, { outage: 3 });
    await institution("ally", 40);
    const first = await evaluateAlerts(db);
    expect(first).toMatchObject({ opened: 1, resolved: 0, skipped: null });
    const [open] = await openAlerts(db);
    expect(open).toMatchObject({
      rule: "institution_outage",
      subject: "chase",
      severity: "critical",
      value: 3,
      peak: 3,
      summary: "Bank chase: 3 of 20 links in Institution outage (15 %)",
      linksQuery: "error_code=institution_error&institution=chase",
    });

    await setOutage(chase, 6);
    expect(await evaluateAlerts(db)).toMatchObject({ opened: 0, resolved: 0 });
    await setOutage(chase, 4);
    await evaluateAlerts(db);
    expect((await openAlerts(db))[0]).toMatchObject({ id: open!.id, value: 4, peak: 6 });

    await setOutage(chase, 1);
    expect(await evaluateAlerts(db)).toMatchObject({ opened: 0, resolved: 1 });
    expect(await openAlerts(db)).toEqual([]);
    const [resolved] = await db.select().from(alerts).where(eq(alerts.id, open!.id));
    expect(resolved).toMatchObject({ state: "resolved", peak: 6 });
    expect(resolved!.resolvedAt).not.toBeNull();

    // A new outage later is a new alert, its history apart.
    await setOutage(chase, 5);
    await evaluateAlerts(db);
    expect((await openAlerts(db)).map((a) => a.id)).not.toContain(open!.id);
  });

  it("opens each alert once however many evaluators run at once", async () => {
    await institution("chase", 20, { outage: 5 });
    await institution("ally", 30, { user: 12 });
    const runs = await Promise.all([evaluateAlerts(db), evaluateAlerts(db), evaluateAlerts(db)]);
    expect(runs.reduce((n, r) => n + r.opened, 0)).toBe(2);
    expect((await openAlerts(db)).map((a) => `${a.rule}:${a.subject}`).sort()).toEqual([
      "institution_needs_user:ally",
      "institution_outage:chase",
    ]);
  });

  it("evaluates nothing while the read model is still being read, and keeps what was open", async () => {
    await institution("chase", 20, { outage: 5 });
    await evaluateAlerts(db);
    // A new sync lists many links not read yet: their counts would say nothing.
    await db.insert(links).values(Array.from({ length: 50 }, () => ({ linkId: id() })));
    await setOutage(
      await db
        .select({ id: links.linkId })
        .from(links)
        .where(eq(links.institutionId, "chase"))
        .then((r) => r.map((x) => x.id)),
      0,
    );
    expect(await evaluateAlerts(db)).toMatchObject({
      opened: 0,
      resolved: 0,
      skipped: expect.stringContaining("still being read"),
    });
    expect(await openAlerts(db)).toHaveLength(1);
  });
});
