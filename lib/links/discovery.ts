import "server-only";
import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type LinkSource, links } from "../db/schema";
import type { CallOptions, UpstreamApi } from "../upstream/index";
import { rememberLinkCustomers } from "./customers";
import { DELETED_RETENTION_DAYS } from "./error-codes";
import { noteReadModelChange } from "./read-model-version";

// How the read model learns of every link. The upstream's GET /links lists active links only (connected, data fetched
// at least once, not deleted: upstream-facts §2), so a link whose first connection failed, an import without
// credentials or a link stuck connecting is never listed, and those are the links support must see. Linkdesk learns a
// link id from every source it meets and keeps it:
//   listing          GET /links (the sync, lib/sync/queries.ts upsertListedLinks)
//   upstream_answer  any answer that carries a Link object (lib/links/read-model.ts recordLinks, through the door)
//   webhook          an event naming a link (lib/webhooks)
//   customer_lookup  GET /users/{id}/links, a person looking up a customer's links (lookUpCustomerLinks below)
//   registration    ids the product's back end knows (registerLinkIds: the admin page's file, POST /api/links/register)
// A row records where its link was first learned and when (learned_from, learned_at); a later source changes neither.
// A registered id is a bare row: its details come from the sync, which reads links never read before the others.
// A link deleted more than DELETED_RETENTION_DAYS ago leaves the read model (purgeDeletedLinks), as it leaves the
// upstream.

// Rows per INSERT: four parameters each, far below PostgreSQL's 65,535 per statement.
const INSERT_CHUNK = 1000;

export interface Registration {
  /** Ids new to the read model: inserted as bare rows, read by the sync. */
  registered: number;
  /** Ids the read model held already (from any source): left as they were. */
  alreadyKnown: number;
}

/**
 * Records link ids learned from `source` without their details: an id new to the read model gets a bare row (the sync
 * reads its details, never-read links first); a known one is left alone, first source included. Ids given twice
 * count once.
 */
export async function registerLinkIds(
  db: Db,
  ids: readonly string[],
  source: LinkSource,
  at = new Date(),
): Promise<Registration> {
  const unique = [...new Set(ids)];
  let registered = 0;
  for (let start = 0; start < unique.length; start += INSERT_CHUNK) {
    const rows = unique
      .slice(start, start + INSERT_CHUNK)
      .map((linkId) => ({ linkId, learnedFrom: source, learnedAt: at, updatedAt: at }));
    const inserted = await db
      .insert(links)
      .values(rows)
      .onConflictDoNothing({ target: links.linkId })
      .returning({ linkId: links.linkId });
    registered += inserted.length;
  }
  if (registered > 0) noteReadModelChange();
  return { registered, alreadyKnown: unique.length - registered };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the links first seen deleted more than DELETED_RETENTION_DAYS before `now`: the upstream purges a deleted
 * link that long after its deletion (which came at or before Linkdesk first saw it deleted), and answers 404 for it
 * from then on. Returns how many rows went.
 */
export async function purgeDeletedLinks(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - DELETED_RETENTION_DAYS * DAY_MS);
  const removed = await db
    .delete(links)
    .where(and(eq(links.state, "deleted"), lt(links.deletedSeenAt, cutoff)))
    .returning({ linkId: links.linkId });
  if (removed.length > 0) noteReadModelChange();
  return removed.length;
}

/** One of a customer's links as the lookup shows it: the upstream's words, rendered as text. */
export interface CustomerLink {
  linkId: string;
  institutionId: string;
  institutionName: string;
  institutionAvatar: string | null;
  state: string;
  errorCode: string | null;
  /** The read model learned of the link through this lookup (it was unknown to Linkdesk before). */
  newToLinkdesk: boolean;
}

export interface CustomerLookup {
  customerId: string;
  /** In any state, deleted ones included (until the upstream purges them); links in error first, then by id. */
  links: CustomerLink[];
}

/**
 * Every link the upstream made for one customer user (GET /users/{id}/links: the `customer_user.id` given at link
 * session or import), in any state. The door records each in the read model as learned by `customer_lookup` when new.
 */
export async function lookUpCustomerLinks(
  db: Db,
  api: Pick<UpstreamApi, "getUserLinks">,
  customerId: string,
  opts: Pick<CallOptions, "correlationId"> = {},
): Promise<CustomerLookup> {
  // A millisecond before: the read model's clock (learned_at) and this one agree to the millisecond at best.
  const startedAt = new Date(Date.now() - 1);
  const answer = await api.getUserLinks(customerId, {
    mode: "interactive",
    learnedFrom: "customer_lookup",
    correlationId: opts.correlationId,
  });
  const found = Object.values(answer.links);
  const ids = found.map((link) => link.link_id);
  // The upstream listed these links under this customer: from now on Linkdesk knows whose they are (a reconnect
  // request needs it).
  await rememberLinkCustomers(db, customerId, ids, "customer_lookup");
  const learnedNow = new Set<string>();
  for (let start = 0; start < ids.length; start += INSERT_CHUNK) {
    const rows = await db
      .select({ linkId: links.linkId })
      .from(links)
      .where(
        and(
          inArray(links.linkId, ids.slice(start, start + INSERT_CHUNK)),
          eq(links.learnedFrom, "customer_lookup"),
          gte(links.learnedAt, startedAt),
        ),
      );
    for (const row of rows) learnedNow.add(row.linkId);
  }
  const items = found.map((link): CustomerLink => ({
    linkId: link.link_id,
    institutionId: link.institution_id,
    institutionName: link.institution_name,
    institutionAvatar: link.institution_avatar ?? null,
    state: link.state,
    errorCode: link.error_code ?? null,
    newToLinkdesk: learnedNow.has(link.link_id),
  }));
  items.sort(
    (a, b) =>
      Number(b.state === "error") - Number(a.state === "error") ||
      (a.linkId < b.linkId ? -1 : a.linkId > b.linkId ? 1 : 0),
  );
  return { customerId, links: items };
}

/** How many links of the read model were learned from each source (rows learned before sources were kept: none). */
export async function countLinksBySource(db: Db): Promise<Partial<Record<LinkSource, number>>> {
  const rows = await db
    .select({ source: links.learnedFrom, n: sql<number>`count(*)`.mapWith(Number) })
    .from(links)
    .groupBy(links.learnedFrom);
  const out: Partial<Record<LinkSource, number>> = {};
  for (const row of rows) if (row.source) out[row.source] = row.n;
  return out;
}
