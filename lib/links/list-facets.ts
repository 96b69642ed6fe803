import "server-only";
import { and, desc, isNotNull, max, notInArray, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { cachedRead } from "../db/cached-read";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { LINK_ERROR_CODES, LINK_STATES } from "../upstream/schemas";

// The options of the links list's filter dropdowns, counted from the read model.

export interface InstitutionOption {
  id: string;
  /** As the upstream last named it (any one, if links disagree): text only. */
  name: string | null;
  count: number;
}

export interface ValueOption {
  value: string;
  count: number;
}

export interface LinkFacets {
  /** States and error codes the read model holds that this version of Linkdesk does not know (the upstream added them). */
  otherStates: ValueOption[];
  otherErrorCodes: ValueOption[];
  institutions: InstitutionOption[];
  providers: ValueOption[];
  productErrors: ValueOption[];
  tags: ValueOption[];
}

/** How many options each dropdown lists: the most used first. A value beyond them can still be typed into the URL. */
export const FACET_LIMIT = 200;

/** The options of the filter dropdowns, from the read model: each value with how many links have it, most first. */
export async function facetOptions(db: Db, { limit = FACET_LIMIT }: { limit?: number } = {}): Promise<LinkFacets> {
  const n = sql<number>`count(*)`.mapWith(Number);
  const [otherStates, otherErrorCodes, institutions, providers, productErrors, tags] = await Promise.all([
    db
      .select({ value: links.state, count: n })
      .from(links)
      .where(and(isNotNull(links.state), notInArray(links.state, [...LINK_STATES])))
      .groupBy(links.state)
      .orderBy(desc(n), links.state)
      .limit(limit),
    db
      .select({ value: links.errorCode, count: n })
      .from(links)
      .where(and(isNotNull(links.errorCode), notInArray(links.errorCode, [...LINK_ERROR_CODES])))
      .groupBy(links.errorCode)
      .orderBy(desc(n), links.errorCode)
      .limit(limit),
    db
      .select({ id: links.institutionId, name: max(links.institutionName), count: n })
      .from(links)
      .where(isNotNull(links.institutionId))
      .groupBy(links.institutionId)
      .orderBy(desc(n), links.institutionId)
      .limit(limit),
    db
      .select({ value: links.provider, count: n })
      .from(links)
      .where(isNotNull(links.provider))
      .groupBy(links.provider)
      .orderBy(desc(n), links.provider)
      .limit(limit),
    unnestedCounts(db, links.productErrorCodes, limit),
    unnestedCounts(db, links.linkTags, limit),
  ]);
  return {
    otherStates: otherStates.map((r) => ({ value: r.value!, count: r.count })),
    otherErrorCodes: otherErrorCodes.map((r) => ({ value: r.value!, count: r.count })),
    institutions: institutions.map((r) => ({ id: r.id!, name: r.name, count: r.count })),
    providers: providers.map((r) => ({ value: r.value!, count: r.count })),
    productErrors,
    tags,
  };
}

async function unnestedCounts(db: Db, column: AnyPgColumn, limit: number): Promise<ValueOption[]> {
  const { rows } = await db.execute<{ value: string; count: number | string }>(
    sql`select value, count(*) as count from ${links}, unnest(${column}) as value group by value order by count(*) desc, value limit ${limit}`,
  );
  return rows.map((r) => ({ value: r.value, count: Number(r.count) }));
}

/**
 * facetOptions, kept for a minute per database: each of its queries reads the whole table, and the options change only
 * as fast as the sync reads links.
 */
export const cachedFacetOptions = cachedRead(facetOptions, 60_000);
