import "server-only";
import { and, count, desc, eq, isNotNull, max, sql } from "drizzle-orm";
import { cachedRead } from "../db/cached-read";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { LINK_ERROR_CODES, LINK_STATES, type LinkErrorCode, type LinkState } from "../upstream/schemas";
import { LINK_ERROR_INFO, type WhoActs } from "./error-codes";

// What the Health page shows now, read from the links read model in a few aggregate queries (never row by row), so it
// stays fast at 100,000 links: one pass over the table for states, error codes, staleness and freshness; one pass for
// product errors; the error-state links (found through links_state_idx) for the top institutions and providers.
//
// Every count here is the count the links list shows for the matching filter of linkListParamsSchema
// (lib/schemas/links.ts): state=, error_code=, state=error&institution=, state=error&provider=, stale=,
// product_error=. Keep the two definitions together when either changes.
//
// The trend over time is health-trend.ts; the charts' grouping of it, trend-series.ts.

const DAY_MS = 24 * 60 * 60 * 1000;

/** The staleness thresholds the page shows: no product refreshed in this many days. */
export const STALE_DAYS = [7, 30] as const;
/** How many institutions and providers the "most errors" tables show. */
export const TOP_ERROR_SOURCES = 10;
/** Product error codes are free text upstream; more distinct codes than this are summed under `otherProductErrors`. */
const PRODUCT_ERROR_ROWS = 25;

export const WHO_ACTS_ORDER: readonly WhoActs[] = ["user", "wait", "service"];

export interface StateCount {
  state: LinkState;
  count: number;
}

export interface ErrorCodeCount {
  errorCode: LinkErrorCode;
  count: number;
}

export interface WhoActsShare {
  whoActs: WhoActs;
  /** Links whose error code falls in this group. */
  count: number;
  /** count / all links with an error code, 0..1 (0 when no link has one). */
  share: number;
  /** The group's error codes with their counts, largest first. */
  codes: ErrorCodeCount[];
}

export interface InstitutionErrors {
  institutionId: string;
  /** As the upstream last named it: upstream text, render as text only. */
  institutionName: string | null;
  count: number;
}

export interface ProviderErrors {
  provider: string;
  count: number;
}

export interface StaleCount {
  days: number;
  count: number;
}

export interface ProductErrorCount {
  /** A product error code as the upstream wrote it (rate_limit, timeout, ...): upstream text. */
  code: string;
  /** Links with at least one product failing with this code. */
  count: number;
}

export interface HealthSummary {
  /** Every link in the read model, read or only listed. */
  total: number;
  /** Listed by GET /links but details not read yet: no state, so in no state's count. */
  unread: number;
  /** Every state, in LINK_STATES order, zeros included. */
  byState: StateCount[];
  /** Every error code with at least one link, largest first. */
  byErrorCode: ErrorCodeCount[];
  /**
   * States and error codes this version of Linkdesk does not know (the upstream added them since), largest first: kept
   * apart from the known ones, whose meanings and who-acts groups they have none of, and shown as sent.
   */
  otherStates: { value: string; count: number }[];
  otherErrorCodes: { value: string; count: number }[];
  /** Links with an error code (the denominator of the who-acts shares). */
  withErrorCode: number;
  /** Who must act, in WHO_ACTS_ORDER, zeros included. */
  whoActs: WhoActsShare[];
  /** Institutions with the most links in state error, most first. */
  topInstitutions: InstitutionErrors[];
  /** Providers with the most links in state error, most first. */
  topProviders: ProviderErrors[];
  /** Links with no product refreshed in each of STALE_DAYS days (never refreshed included, as the list counts them). */
  stale: StaleCount[];
  /** Links by product refresh error code, most first. */
  productErrors: ProductErrorCount[];
  /** Links counted under product error codes beyond the rows shown (only with unusually many distinct codes). */
  otherProductErrors: number;
  /** When Linkdesk last read any link's details: how fresh these numbers are. Null when nothing was read yet. */
  asOf: Date | null;
  /** When these counts were read (staleness counts back from it): the clock "2 min ago" beside them is read against. */
  readAt: Date;
}

/** Whether a stored value is a state or an error code this Linkdesk knows (the health trend's snapshots use them too). */
export const isState = (value: unknown): value is LinkState => (LINK_STATES as readonly unknown[]).includes(value);
export const isErrorCode = (value: unknown): value is LinkErrorCode =>
  (LINK_ERROR_CODES as readonly unknown[]).includes(value);

/**
 * The start of the stale window: a link is stale for `days` when no product of it refreshed since then. As in the
 * links list's `stale` filter (lib/links/list-query.ts), a link never refreshed (last_refreshed_at null: connecting, details
 * not read yet, no product granted) counts as stale too, so the number and its click-through agree.
 */
export function staleBefore(days: number, now: Date = new Date()): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

export async function healthSummary(db: Db, { now = new Date() }: { now?: Date } = {}): Promise<HealthSummary> {
  const [groups, sources, productErrors] = await Promise.all([
    countByStateAndErrorCode(db, now),
    errorSources(db),
    countProductErrors(db),
  ]);

  const byStateMap = new Map<LinkState, number>();
  const byErrorMap = new Map<LinkErrorCode, number>();
  const otherStateMap = new Map<string, number>();
  const otherErrorMap = new Map<string, number>();
  const stale = STALE_DAYS.map((days) => ({ days, count: 0 }));
  let total = 0;
  let unread = 0;
  let asOf: Date | null = null;
  for (const group of groups) {
    total += group.count;
    if (group.state === null) unread += group.count;
    else if (isState(group.state)) byStateMap.set(group.state, (byStateMap.get(group.state) ?? 0) + group.count);
    else otherStateMap.set(group.state, (otherStateMap.get(group.state) ?? 0) + group.count);
    if (isErrorCode(group.errorCode))
      byErrorMap.set(group.errorCode, (byErrorMap.get(group.errorCode) ?? 0) + group.count);
    else if (group.errorCode !== null)
      otherErrorMap.set(group.errorCode, (otherErrorMap.get(group.errorCode) ?? 0) + group.count);
    group.stale.forEach((n, i) => (stale[i]!.count += n));
    if (group.asOf && (!asOf || group.asOf > asOf)) asOf = group.asOf;
  }

  const byErrorCode = [...byErrorMap]
    .map(([errorCode, n]) => ({ errorCode, count: n }))
    .sort(largestFirst((e) => e.errorCode));
  const withErrorCode = byErrorCode.reduce((sum, e) => sum + e.count, 0);
  const whoActs = WHO_ACTS_ORDER.map((group): WhoActsShare => {
    const codes = byErrorCode.filter((e) => LINK_ERROR_INFO[e.errorCode].whoActs === group);
    const n = codes.reduce((sum, e) => sum + e.count, 0);
    return { whoActs: group, count: n, share: withErrorCode > 0 ? n / withErrorCode : 0, codes };
  });

  return {
    total,
    unread,
    byState: LINK_STATES.map((state) => ({ state, count: byStateMap.get(state) ?? 0 })),
    byErrorCode,
    otherStates: countsOf(otherStateMap),
    otherErrorCodes: countsOf(otherErrorMap),
    withErrorCode,
    whoActs,
    topInstitutions: sources.institutions,
    topProviders: sources.providers,
    stale,
    productErrors: productErrors.rows,
    otherProductErrors: productErrors.other,
    asOf,
    readAt: now,
  };
}

/**
 * healthSummary, kept for 5 s per database and shared by the views in that time: its four queries read the whole table
 * (the /health page's main cost on the server), and the counts move only as fast as the sync reads links.
 */
export const cachedHealthSummary = cachedRead((db) => healthSummary(db), 5_000);

const largestFirst =
  <T extends { count: number }>(key: (item: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || key(a).localeCompare(key(b));

/** One pass over the table: counts per (state, error_code), with staleness and freshness folded in. */
async function countByStateAndErrorCode(db: Db, now: Date) {
  const staleColumns = Object.fromEntries(
    STALE_DAYS.map((days) => [
      `stale${days}`,
      sql<number>`count(*) filter (where ${links.lastRefreshedAt} is null or ${links.lastRefreshedAt} < ${staleBefore(days, now).toISOString()}::timestamptz)`.mapWith(
        Number,
      ),
    ]),
  );
  const rows = await db
    .select({
      state: links.state,
      errorCode: links.errorCode,
      count: count(),
      asOf: max(links.seenAt),
      ...staleColumns,
    })
    .from(links)
    .groupBy(links.state, links.errorCode);
  return rows.map((row) => ({
    state: row.state,
    errorCode: row.errorCode,
    count: row.count,
    asOf: row.asOf,
    stale: STALE_DAYS.map((days) => Number((row as Record<string, unknown>)[`stale${days}`] ?? 0)),
  }));
}

/** The institutions and providers with the most links in state error. */
async function errorSources(db: Db): Promise<{ institutions: InstitutionErrors[]; providers: ProviderErrors[] }> {
  const inError = eq(links.state, "error");
  const n = count();
  const [institutions, providers] = await Promise.all([
    db
      // An institution's name can differ between its links (renamed upstream between reads): any one is shown.
      .select({ institutionId: links.institutionId, institutionName: max(links.institutionName), count: n })
      .from(links)
      .where(and(inError, isNotNull(links.institutionId)))
      .groupBy(links.institutionId)
      .orderBy(desc(n), links.institutionId)
      .limit(TOP_ERROR_SOURCES),
    db
      .select({ provider: links.provider, count: n })
      .from(links)
      .where(and(inError, isNotNull(links.provider)))
      .groupBy(links.provider)
      .orderBy(desc(n), links.provider)
      .limit(TOP_ERROR_SOURCES),
  ]);
  return {
    institutions: institutions.map((r) => ({
      institutionId: r.institutionId!,
      institutionName: r.institutionName,
      count: r.count,
    })),
    providers: providers.map((r) => ({ provider: r.provider!, count: r.count })),
  };
}

/** Links per product error code: product_error_codes holds each link's codes once, so a link counts once per code. */
async function countProductErrors(db: Db): Promise<{ rows: ProductErrorCount[]; other: number }> {
  const result = await db.execute<{ code: string; count: number }>(sql`
    select code, count(*)::int as count
    from ${links}, unnest(${links.productErrorCodes}) as code
    group by code
    order by count(*) desc, code`);
  const rows = result.rows.map((r) => ({ code: r.code, count: Number(r.count) }));
  return {
    rows: rows.slice(0, PRODUCT_ERROR_ROWS),
    other: rows.slice(PRODUCT_ERROR_ROWS).reduce((sum, r) => sum + r.count, 0),
  };
}

const countsOf = (counts: Map<string, number>) =>
  [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
