import "server-only";
import { and, asc, eq, gte, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { noteReadModelChange } from "../links/read-model-version";
import type { WireLinksPage } from "../upstream/schemas";

// What the sync writes into the read model beyond whole Link objects (those go through recordLinks): the listing's
// ids and a link learnt deleted from a 410 (the snapshots of counts: lib/links/trend-snapshots.ts). Plus the order it
// reads details in.

// Rows per INSERT: five parameters each, far below PostgreSQL's 65,535 per statement.
const UPSERT_CHUNK = 1000;

/**
 * Records links as listed by GET /links: new ids are inserted bare (details come later), learned from the listing;
 * known ones get their created_at and listed_at, and nothing else, so details read earlier (or by a person's click
 * meanwhile) and where the link was first learned stay.
 */
export async function upsertListedLinks(db: Db, listed: WireLinksPage["links"], listedAt: Date): Promise<void> {
  for (let start = 0; start < listed.length; start += UPSERT_CHUNK) {
    const rows = listed.slice(start, start + UPSERT_CHUNK).map((l) => ({
      linkId: l.link_id,
      createdAt: new Date(l.created_at),
      listedAt,
      learnedFrom: "listing" as const,
      learnedAt: listedAt,
    }));
    await db
      .insert(links)
      .values(rows)
      .onConflictDoUpdate({
        target: links.linkId,
        set: { createdAt: sql`excluded.created_at`, listedAt: sql`excluded.listed_at` },
      });
  }
  noteReadModelChange();
}

/**
 * The links a run still has to read, in the order it reads them: links in state error first (what staff act on),
 * then links never read (those the listing never named first: the upstream lists only active links, so a link
 * learned elsewhere, a registered id say, is likely broken), then newest first. Stale means not read since
 * `freshSince` (the run's start, less a few minutes: a link a person just opened need not be read again). A link
 * known deleted and no longer listed is left alone: it cannot come back, and the upstream answers for it until it
 * purges it.
 */
export async function staleLinkIds(
  db: Db,
  { runStartedAt, freshSince }: { runStartedAt: Date; freshSince: Date },
): Promise<string[]> {
  const rows = await db
    .select({ linkId: links.linkId })
    .from(links)
    .where(
      and(
        or(isNull(links.seenAt), lt(links.seenAt, freshSince)),
        or(sql`${links.state} is distinct from 'deleted'`, gte(links.listedAt, runStartedAt)),
      ),
    )
    .orderBy(
      sql`case when ${links.state} = 'error' then 0 else 1 end`,
      sql`case when ${links.seenAt} is null then 0 else 1 end`,
      sql`case when ${links.seenAt} is null and ${links.listedAt} is null then 0 else 1 end`,
      sql`${links.createdAt} desc nulls last`,
      links.linkId,
    );
  return rows.map((r) => r.linkId);
}

/**
 * Links never read that were learned at or after `since` (a registration, a webhook, a lookup while a run reads the
 * others), in the order a run reads them, leaving out `except` (those the run has queued already).
 */
export async function newlyLearnedLinkIds(
  db: Db,
  since: Date,
  except: ReadonlySet<string>,
  limit?: number,
): Promise<string[]> {
  const query = db
    .select({ linkId: links.linkId })
    .from(links)
    .where(and(isNull(links.seenAt), gte(links.learnedAt, since)))
    .orderBy(
      sql`case when ${links.listedAt} is null then 0 else 1 end`,
      sql`${links.createdAt} desc nulls last`,
      links.linkId,
    );
  // With a limit, the rows left out are counted in full first: `except` may hold some of the first ones.
  const rows = limit === undefined ? await query : await query.limit(limit + except.size);
  const ids = rows.map((r) => r.linkId).filter((id) => !except.has(id));
  return limit === undefined ? ids : ids.slice(0, limit);
}

/**
 * Least time between two reads of one link asked for by webhooks: a read in the last 10 s counts as live elsewhere too
 * (docs/links.md), and the upstream allows 15 reads of a link a minute. A flood of late retries or unknown events for
 * one link costs one read in this time at most.
 */
export const READ_REQUEST_GAP_MS = 10_000;

/**
 * Links a webhook asked to read again (lib/webhooks/apply.ts: a late delivery, an unknown kind of event) and not read
 * since it asked, oldest request first, leaving out those read in the last `gapMs` (read again once that has passed).
 * Served by links_read_requested_idx, which holds only the links still waiting.
 */
export async function requestedLinkIds(
  db: Db,
  {
    except = new Set<string>(),
    limit = 1000,
    gapMs = READ_REQUEST_GAP_MS,
  }: {
    except?: ReadonlySet<string>;
    limit?: number;
    gapMs?: number;
  } = {},
): Promise<string[]> {
  const rows = await db
    .select({ linkId: links.linkId })
    .from(links)
    .where(
      and(
        isNotNull(links.readRequestedAt),
        sql`(${links.seenAt} is null or ${links.seenAt} < ${links.readRequestedAt})`,
        sql`(${links.seenAt} is null or ${links.seenAt} < now() - (${Math.round(gapMs)}::int * interval '1 millisecond'))`,
      ),
    )
    .orderBy(asc(links.readRequestedAt), links.linkId)
    .limit(limit + except.size);
  return rows
    .map((r) => r.linkId)
    .filter((id) => !except.has(id))
    .slice(0, limit);
}

/**
 * The upstream answered 410 link_error.deleted: the link is deleted, its details are no longer served. The row keeps
 * what was last read, now marked deleted from this moment (its removal counts from the first time it was seen so).
 */
export async function markLinkDeleted(db: Db, linkId: string, seenAt: Date): Promise<void> {
  await db
    .update(links)
    .set({
      state: "deleted",
      raw: sql`case when ${links.raw} is null then null else jsonb_set(${links.raw}, '{state}', '"deleted"') end`,
      seenAt,
      deletedSeenAt: sql`coalesce(${links.deletedSeenAt}, ${seenAt.toISOString()}::timestamptz)`,
      updatedAt: seenAt,
    })
    .where(eq(links.linkId, linkId));
  noteReadModelChange();
}
