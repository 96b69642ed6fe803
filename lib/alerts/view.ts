import "server-only";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { cachedRead } from "../db/cached-read";
import { type Db, getDb } from "../db/client";
import { type Alert, alerts } from "../db/schema";

// What the alerts page and the header's bell read: the open alerts, most severe and newest first; the history of the
// last 90 days; and how many open alerts nobody has acknowledged.

const SEVERITY_ORDER = sql`case ${alerts.severity} when 'critical' then 0 when 'warning' then 1 else 2 end`;

export async function openAlerts(db: Db): Promise<Alert[]> {
  return db.select().from(alerts).where(eq(alerts.state, "open")).orderBy(SEVERITY_ORDER, desc(alerts.openedAt));
}

export async function alertHistory(db: Db, { limit = 200 }: { limit?: number } = {}): Promise<Alert[]> {
  return db
    .select()
    .from(alerts)
    .where(and(eq(alerts.state, "resolved"), sql`${alerts.resolvedAt} > now() - interval '90 days'`))
    .orderBy(desc(alerts.resolvedAt))
    .limit(limit);
}

/** Open alerts nobody acknowledged: the bell's number. Kept a few seconds, as every page's header reads it. */
export const cachedUnacknowledged = cachedRead(async (db: Db) => {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(alerts)
    .where(and(eq(alerts.state, "open"), isNull(alerts.acknowledgedAt)));
  return Number(row?.n ?? 0);
}, 5_000);

/** The bell's number, for the header (which reads through lib/, never the database client). */
export async function unacknowledgedAlerts(): Promise<number> {
  return cachedUnacknowledged((await getDb()).db);
}

/** The alerts page's reads, and the clock they were read by (its relative times count back from it). */
export async function readAlerts(db: Db): Promise<{ open: Alert[]; history: Alert[]; readAt: Date }> {
  const [open, history] = await Promise.all([openAlerts(db), alertHistory(db)]);
  return { open, history, readAt: new Date() };
}
