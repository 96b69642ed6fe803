import "server-only";
import { sql } from "drizzle-orm";
import { type Db, getDb } from "../db/client";
import { type LinkSource, links } from "../db/schema";
import { observeLinkAnswers } from "../upstream";
import { noteReadModelChange } from "./read-model-version";
import type { WireLink } from "../upstream/schemas";

/** The columns Linkdesk derives from one Link object. */
export function linkRowOf(link: WireLink, seenAt: Date, learnedFrom: LinkSource = "upstream_answer") {
  const products = Object.values(link.products);
  const refreshed = products
    .map((p) => (p?.refreshed_at ? Date.parse(p.refreshed_at) : Number.NaN))
    .filter((t) => !Number.isNaN(t));
  return {
    linkId: link.link_id,
    institutionId: link.institution_id,
    institutionName: link.institution_name,
    institutionAvatar: link.institution_avatar ?? null,
    state: link.state,
    errorCode: link.error_code ?? null,
    provider: link.provider,
    linkTags: link.link_tags ?? [],
    raw: link,
    productErrorCodes: [...new Set(products.map((p) => p?.error_code).filter((c): c is string => Boolean(c)))],
    lastRefreshedAt: refreshed.length ? new Date(Math.max(...refreshed)) : null,
    seenAt,
    deletedSeenAt: link.state === "deleted" ? seenAt : null,
    updatedAt: seenAt,
    learnedFrom,
    learnedAt: seenAt,
  };
}

/**
 * Writes Link objects into the read model at once (from a sync, or from any upstream answer that carries a link).
 * A deleted link keeps the first time it was seen deleted: its removal date counts from there. A link new to the read
 * model records `learnedFrom` as where Linkdesk learned of it; a known link keeps where it was first learned.
 */
export async function recordLinks(
  db: Db,
  wireLinks: WireLink[],
  seenAt = new Date(),
  learnedFrom: LinkSource = "upstream_answer",
): Promise<void> {
  if (wireLinks.length === 0) return;
  const rows = wireLinks.map((l) => linkRowOf(l, seenAt, learnedFrom));
  await db
    .insert(links)
    .values(rows)
    .onConflictDoUpdate({
      target: links.linkId,
      set: {
        institutionId: sql`excluded.institution_id`,
        institutionName: sql`excluded.institution_name`,
        institutionAvatar: sql`excluded.institution_avatar`,
        state: sql`excluded.state`,
        errorCode: sql`excluded.error_code`,
        provider: sql`excluded.provider`,
        linkTags: sql`excluded.link_tags`,
        raw: sql`excluded.raw`,
        productErrorCodes: sql`excluded.product_error_codes`,
        lastRefreshedAt: sql`excluded.last_refreshed_at`,
        seenAt: sql`excluded.seen_at`,
        deletedSeenAt: sql`case when excluded.state = 'deleted' then coalesce(${links.deletedSeenAt}, excluded.deleted_seen_at) else null end`,
        updatedAt: sql`excluded.updated_at`,
      },
    });
  noteReadModelChange();
}

/**
 * Has every answer of the dashboard's upstream that carries a Link object recorded here (`learnedFrom` as the call
 * said): wired once where the app starts. A failed write is logged by the door and never fails the call.
 */
export function recordUpstreamAnswers(): void {
  observeLinkAnswers("read model", async (wireLinks, learnedFrom) =>
    recordLinks((await getDb()).db, wireLinks, new Date(), learnedFrom),
  );
}
