import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type LinkCustomerSource, importedLinks, jobItems, linkCustomers } from "../db/schema";

// Which customer user a link belongs to. The upstream's Link carries no customer (upstream-facts §3.1), and a link's
// customer never changes (a relink cannot change it, §7.1), so Linkdesk keeps what it learns where it learns it:
//   import          a link Linkdesk imported: its file named the customer (imported_links), and maybe their email
//   customer_lookup staff looked a customer up: GET /users/{id}/links listed the link under that customer
//   link_session    a link session Linkdesk made for a customer (demo mode's sandbox session)
// A link the product made and nobody looked up is not known: its customer must be looked up first.

export type CustomerSource = "import" | LinkCustomerSource;

export const CUSTOMER_SOURCE_LABELS: Record<CustomerSource, string> = {
  import: "its import file",
  customer_lookup: "a look-up of the customer's links",
  link_session: "a link session Linkdesk made",
  registration: "the product's back end, which registered the link with its customer",
};

export interface KnownCustomer {
  customerUserId: string;
  source: CustomerSource;
  /** The end user's email address, where Linkdesk was told one: an import file's customer_user.email.address. */
  email: string | null;
}

/** Records the customer of links an upstream answer tied to them; a link's customer is the upstream's latest word. */
export async function rememberLinkCustomers(
  db: Db,
  customerUserId: string,
  linkIds: readonly string[],
  learnedFrom: LinkCustomerSource,
): Promise<void> {
  const ids = [...new Set(linkIds)];
  if (ids.length === 0) return;
  await db
    .insert(linkCustomers)
    .values(ids.map((linkId) => ({ linkId, customerUserId, learnedFrom })))
    .onConflictDoUpdate({
      target: linkCustomers.linkId,
      set: { customerUserId, learnedFrom, learnedAt: sql`now()` },
      // A look-up that lists the link again changes nothing but the time; it is not worth a write per listed link.
      setWhere: sql`${linkCustomers.customerUserId} is distinct from excluded.customer_user_id`,
    });
}

/** The link's customer as Linkdesk knows it, or null. An import's word comes first: it may carry an email address. */
export async function knownCustomerOf(db: Db, linkId: string): Promise<KnownCustomer | null> {
  const [imported] = await db
    .select({
      customerUserId: importedLinks.customerUserId,
      email: sql<string | null>`(
        select ${jobItems.input} -> 'body' -> 'customer_user' -> 'email' ->> 'address' from ${jobItems}
        where ${jobItems.jobId} = ${importedLinks.jobId} and ${jobItems.input} ->> 'step' = 'link'
          and (${jobItems.input} ->> 'position')::int = ${importedLinks.position}
        limit 1
      )`,
    })
    .from(importedLinks)
    .where(and(eq(importedLinks.linkId, linkId), eq(importedLinks.state, "created")))
    .limit(1);
  if (imported) {
    const email = imported.email?.trim() || null;
    return { customerUserId: imported.customerUserId, source: "import", email };
  }
  const [learned] = await db.select().from(linkCustomers).where(eq(linkCustomers.linkId, linkId)).limit(1);
  return learned ? { customerUserId: learned.customerUserId, source: learned.learnedFrom, email: null } : null;
}
