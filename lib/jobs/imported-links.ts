import "server-only";
import { createHash } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type ImportedLink, importedLinks } from "../db/schema";
import { IDENTITY_TAG_PREFIX } from "../import/identity";

// Linkdesk's record of every link it imported, by identity key (the imported_links table): the check a file's links
// go through before a plan is made, the reservation that makes two overlapping imports plan each link once, and the
// record a lost answer is found by.

/**
 * The tag written to an imported link for its identity: a lost answer is found by it under the customer's links
 * (GET /users/{id}/links), whatever GET /links lists. 128 bits of SHA-256 of the key keep it short (tags are under
 * 100 characters and start with a letter or digit; upstream-facts §3.5).
 */
export function identityTag(identityKey: string): string {
  return `${IDENTITY_TAG_PREFIX}${createHash("sha256").update(identityKey).digest("hex").slice(0, 32)}`;
}

/** A row's identity is free to take: its import never created the link, or the link was deleted since. */
const FREE_STATES = ["released", "deleted"] as const;
const isFree = (row: Pick<ImportedLink, "state">) => (FREE_STATES as readonly string[]).includes(row.state);

/** What Linkdesk knows of an identity: imported (link known), being imported by a job, or free. */
export type KnownIdentity = Pick<
  ImportedLink,
  "identityKey" | "state" | "linkId" | "jobId" | "position" | "line" | "createdAt"
>;

const LOOKUP_CHUNK = 1_000;

/** Why a link is not imported again, in words. */
export function heldReason(held: Pick<KnownIdentity, "linkId" | "jobId" | "createdAt">): string {
  const when = held.createdAt.toISOString().slice(0, 10);
  return held.linkId
    ? `Already imported as link ${held.linkId} (job ${held.jobId}, ${when}); skipped.`
    : `Being imported by job ${held.jobId} (since ${when}); skipped.`;
}

/** Identities held (imported or being imported) among `keys`; free ones are left out. */
export async function lookupImported(db: Db, keys: readonly string[]): Promise<Map<string, KnownIdentity>> {
  const found = new Map<string, KnownIdentity>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += LOOKUP_CHUNK) {
    const rows = await db
      .select({
        identityKey: importedLinks.identityKey,
        state: importedLinks.state,
        linkId: importedLinks.linkId,
        jobId: importedLinks.jobId,
        position: importedLinks.position,
        line: importedLinks.line,
        createdAt: importedLinks.createdAt,
      })
      .from(importedLinks)
      .where(inArray(importedLinks.identityKey, unique.slice(i, i + LOOKUP_CHUNK)));
    for (const row of rows) if (!isFree(row)) found.set(row.identityKey, row);
  }
  return found;
}

export interface IdentityReservation {
  identityKey: string;
  customerUserId: string;
  institutionId: string | null;
  position: number;
  line: number;
}

/**
 * Takes the identities that are new or free for `jobId`, in one statement: an identity another job holds is left
 * to it. On PostgreSQL a second transaction inserting the same key waits for the first to commit and then sees its
 * row, so overlapping imports started at the same moment (two tabs, two instances) take each identity once. Keys are
 * taken in sorted order so two such transactions lock rows in the same order. Returns the keys taken.
 */
export async function reserveIdentities(
  tx: Db,
  jobId: string,
  entries: readonly IdentityReservation[],
): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const sorted = [...entries].sort((a, b) =>
    a.identityKey < b.identityKey ? -1 : a.identityKey > b.identityKey ? 1 : 0,
  );
  const rows = await tx
    .insert(importedLinks)
    .values(
      sorted.map((e) => ({
        identityKey: e.identityKey,
        tag: identityTag(e.identityKey),
        customerUserId: e.customerUserId,
        institutionId: e.institutionId,
        jobId,
        position: e.position,
        line: e.line,
      })),
    )
    .onConflictDoUpdate({
      target: importedLinks.identityKey,
      set: {
        tag: sql`excluded.tag`,
        customerUserId: sql`excluded.customer_user_id`,
        institutionId: sql`excluded.institution_id`,
        jobId: sql`excluded.job_id`,
        position: sql`excluded.position`,
        line: sql`excluded.line`,
        linkId: null,
        state: "reserved",
        importedState: null,
        importedErrorCode: null,
        updatedAt: sql`now()`,
      },
      setWhere: inArray(importedLinks.state, [...FREE_STATES]),
    })
    .returning({ identityKey: importedLinks.identityKey });
  return new Set(rows.map((r) => r.identityKey));
}

/**
 * Links ops chose to replace: the identity their import holds is released, in the planning transaction, for the
 * replacing link to take (reserveIdentities right after). Only a record of that very link is released: an identity
 * another link holds stays held.
 */
export async function releaseReplacedIdentities(
  tx: Db,
  entries: readonly { identityKey: string; linkId: string }[],
): Promise<void> {
  for (const e of entries)
    await tx
      .update(importedLinks)
      .set({ state: "released", updatedAt: sql`now()` })
      .where(
        and(
          eq(importedLinks.identityKey, e.identityKey),
          eq(importedLinks.linkId, e.linkId),
          eq(importedLinks.state, "created"),
        ),
      );
}

/**
 * Right before an import call: the identity is still this item's (or free again, after a cancel and a resume, or a
 * retry of a failed item). Returns null when it is, or who holds it now (another import took it meanwhile).
 */
export async function claimIdentity(
  db: Db,
  identityKey: string,
  jobId: string,
  position: number,
): Promise<KnownIdentity | null> {
  const claimed = await db
    .update(importedLinks)
    .set({ jobId, position, state: "reserved", updatedAt: sql`now()` })
    .where(
      and(
        eq(importedLinks.identityKey, identityKey),
        sql`((${importedLinks.jobId} = ${jobId} and ${importedLinks.position} = ${position} and ${importedLinks.state} = 'reserved') or ${importedLinks.state} in ('released', 'deleted'))`,
      ),
    )
    .returning({ identityKey: importedLinks.identityKey });
  if (claimed.length > 0) return null;
  const [holder] = await db.select().from(importedLinks).where(eq(importedLinks.identityKey, identityKey));
  // No row at all: a job planned before identities were recorded; nothing else holds it.
  return holder ?? null;
}

/** The link an identity's import created (the answer arrived, or a check found it). */
export async function recordImportedLink(
  db: Db,
  identityKey: string,
  jobId: string,
  link: { link_id: string; state: string; error_code?: string | null },
): Promise<void> {
  await db
    .update(importedLinks)
    .set({
      linkId: link.link_id,
      state: "created",
      importedState: link.state,
      importedErrorCode: link.error_code ?? null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(importedLinks.identityKey, identityKey), eq(importedLinks.jobId, jobId)));
}

/** The identity's link, when Linkdesk has recorded it for this job. */
export async function recordedLinkOf(db: Db, identityKey: string, jobId: string): Promise<string | null> {
  const [row] = await db
    .select({ linkId: importedLinks.linkId })
    .from(importedLinks)
    .where(and(eq(importedLinks.identityKey, identityKey), eq(importedLinks.jobId, jobId)));
  return row?.linkId ?? null;
}

/** Links an import job created that still exist as far as Linkdesk knows (for undoing it). */
export async function linksCreatedBy(db: Db, jobId: string): Promise<ImportedLink[]> {
  return db
    .select()
    .from(importedLinks)
    .where(and(eq(importedLinks.jobId, jobId), eq(importedLinks.state, "created")))
    .orderBy(importedLinks.position);
}

/** The identity's link was deleted (an undo): a later file may import it again. */
export async function markImportedLinkDeleted(db: Db, linkId: string): Promise<void> {
  await db
    .update(importedLinks)
    .set({ state: "deleted", updatedAt: sql`now()` })
    .where(and(eq(importedLinks.linkId, linkId), eq(importedLinks.state, "created")));
}
