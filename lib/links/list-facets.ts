import "server-only";
import { desc, isNotNull, max, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { cachedRead } from "../db/cached-read";
import type { Db } from "../db/client";
import { links } from "../db/schema";

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
  const [institutions, providers, productErrors, tags] = await Promise.all([
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
