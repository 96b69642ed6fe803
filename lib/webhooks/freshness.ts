import "server-only";
import { desc, eq, gte, min, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { cachedRead } from "../db/cached-read";
import { links, webhookEvents } from "../db/schema";

// How fresh the read model is: the newest verified webhook (are events flowing?) and how long ago links were last
// read or told about. For Health and for the sync's pace (with events flowing, polling is reconciliation).

/** Events count as flowing when one was verified this recently. */
export const WEBHOOKS_FLOWING_WITHIN_MS = 60 * 60_000;

/** When the newest verified webhook arrived, or null if none ever did. */
export async function newestVerifiedWebhookAt(db: Db): Promise<Date | null> {
  const [row] = await db
    .select({ at: webhookEvents.receivedAt })
    .from(webhookEvents)
    .where(eq(webhookEvents.verification, "verified"))
    .orderBy(desc(webhookEvents.receivedAt))
    .limit(1);
  return row?.at ?? null;
}

export function webhooksFlowing(newest: Date | null, now: Date): boolean {
  return newest !== null && now.getTime() - newest.getTime() < WEBHOOKS_FLOWING_WITHIN_MS;
}

export interface ReadModelFreshness {
  /** The newest verified webhook's arrival. */
  newestEventAt: Date | null;
  /** Webhooks verified and refused in the last 24 hours. */
  verifiedLastDay: number;
  refusedLastDay: number;
  /** Links not deleted, and how many of them were read or told about (a full read or an event) in the last hour. */
  links: number;
  freshWithinHour: number;
  /** The longest any such link has gone without a read or an event (null: none, or some never read). */
  oldestKnownAt: Date | null;
  /** Links known only by id, whose details were never read. */
  neverRead: number;
}

export async function readModelFreshness(db: Db, now = new Date()): Promise<ReadModelFreshness> {
  const hourAgo = new Date(now.getTime() - 60 * 60_000);
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60_000);
  const known = sql`greatest(${links.seenAt}, ${links.eventAt})`;
  const [[counts], [linkCounts], newestEventAt] = await Promise.all([
    db
      .select({
        verified: sql<number>`count(*) filter (where ${webhookEvents.verification} = 'verified')::int`,
        refused: sql<number>`count(*) filter (where ${webhookEvents.verification} = 'refused')::int`,
      })
      .from(webhookEvents)
      .where(gte(webhookEvents.receivedAt, dayAgo)),
    db
      .select({
        links: sql<number>`count(*)::int`,
        fresh: sql<number>`count(*) filter (where ${known} >= ${hourAgo.toISOString()}::timestamptz)::int`,
        neverRead: sql<number>`count(*) filter (where ${links.seenAt} is null)::int`,
        oldest: min(sql<Date>`${known}`),
      })
      .from(links)
      .where(sql`${links.state} is distinct from 'deleted'`),
    newestVerifiedWebhookAt(db),
  ]);
  const oldest = linkCounts?.oldest ? new Date(linkCounts.oldest as unknown as string) : null;
  return {
    newestEventAt,
    verifiedLastDay: Number(counts?.verified ?? 0),
    refusedLastDay: Number(counts?.refused ?? 0),
    links: Number(linkCounts?.links ?? 0),
    freshWithinHour: Number(linkCounts?.fresh ?? 0),
    oldestKnownAt: oldest,
    neverRead: Number(linkCounts?.neverRead ?? 0),
  };
}

/** The freshness figures, kept 5 s per database like the Health summary (a page view should not pay two scans). */
export const cachedReadModelFreshness = cachedRead((db) => readModelFreshness(db), 5_000);
