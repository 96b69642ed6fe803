import "server-only";
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { linkSchema, type WireLink } from "../upstream/schemas";

// One link's copy in the read model, for the detail page (and the link's operations) when the upstream cannot be read.

export interface StoredLink {
  linkId: string;
  /** The Link object as last read, if it still matches the wire schema. */
  link: WireLink | null;
  seenAt: Date | null;
  listedAt: Date | null;
  createdAt: Date | null;
  /** First time Linkdesk saw the link deleted: the upstream removes it DELETED_RETENTION_DAYS later at the latest. */
  deletedSeenAt: Date | null;
  /** When a webhook last said the link's transactions changed: cached reads from before are not used. */
  transactionsChangedAt: Date | null;
}

/** The read model's copy of one link (primary-key lookup), or null when Linkdesk never saw it. */
export async function storedLink(db: Db, linkId: string): Promise<StoredLink | null> {
  const [row] = await db
    .select({
      linkId: links.linkId,
      raw: links.raw,
      seenAt: links.seenAt,
      listedAt: links.listedAt,
      createdAt: links.createdAt,
      deletedSeenAt: links.deletedSeenAt,
      transactionsChangedAt: links.transactionsChangedAt,
    })
    .from(links)
    .where(eq(links.linkId, linkId))
    .limit(1);
  if (!row) return null;
  const parsed = row.raw == null ? null : linkSchema.safeParse(row.raw);
  return {
    linkId: row.linkId,
    link: parsed?.success ? parsed.data : null,
    seenAt: row.seenAt,
    listedAt: row.listedAt,
    createdAt: row.createdAt,
    deletedSeenAt: row.deletedSeenAt,
    transactionsChangedAt: row.transactionsChangedAt,
  };
}
