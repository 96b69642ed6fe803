import "server-only";
import { and, count, desc, eq, gte, isNotNull, max, sql } from "drizzle-orm";
import { type CachedRead, cachedRead } from "../db/cached-read";
import type { Db } from "../db/client";
import { type LinkSnapshotSource, links, linkSnapshots } from "../db/schema";
import {
  LINK_ERROR_CODES,
  LINK_STATES,
  type LinkErrorCode,
  type LinkState,
  linkSchema,
  type WireLink,
} from "../upstream/schemas";
import { LINK_ERROR_INFO, type WhoActs } from "./error-codes";

// What the Health page shows, read from the links read model in a few aggregate queries (never row by row), so it
// stays fast at 100,000 links: one pass over the table for states, error codes, staleness and freshness; one pass for
// product errors; the error-state links (found through links_state_idx) for the top institutions and providers.
//
// Every count here is the count the links list shows for the matching filter of linkListParamsSchema
// (lib/schemas/links.ts): state=, error_code=, state=error&institution=, state=error&provider=, stale=,
// product_error=. Keep the two definitions together when either changes.

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
}

const isState = (value: unknown): value is LinkState => (LINK_STATES as readonly unknown[]).includes(value);
const isErrorCode = (value: unknown): value is LinkErrorCode =>
  (LINK_ERROR_CODES as readonly unknown[]).includes(value);

/**
 * The start of the stale window: a link is stale for `days` when no product of it refreshed since then. As in the
 * links list's `stale` filter (lib/links/query.ts), a link never refreshed (last_refreshed_at null: connecting, details
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
  const stale = STALE_DAYS.map((days) => ({ days, count: 0 }));
  let total = 0;
  let unread = 0;
  let asOf: Date | null = null;
  for (const group of groups) {
    total += group.count;
    if (group.state === null) unread += group.count;
    else if (isState(group.state)) byStateMap.set(group.state, (byStateMap.get(group.state) ?? 0) + group.count);
    if (isErrorCode(group.errorCode))
      byErrorMap.set(group.errorCode, (byErrorMap.get(group.errorCode) ?? 0) + group.count);
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
    withErrorCode,
    whoActs,
    topInstitutions: sources.institutions,
    topProviders: sources.providers,
    stale,
    productErrors: productErrors.rows,
    otherProductErrors: productErrors.other,
    asOf,
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

// --- trends ---

export interface TrendPoint {
  at: Date;
  total: number;
  byState: Partial<Record<LinkState, number>>;
  byErrorCode: Partial<Record<LinkErrorCode, number>>;
  /** "sync", "start", or "demo" (made-up history in demo mode). */
  source: LinkSnapshotSource;
}

export interface HealthTrend {
  /** The window asked for. */
  from: Date;
  to: Date;
  /** Oldest first; at most `maxPoints`, the newest snapshot of each equal slice of the window. */
  points: TrendPoint[];
}

/** The last made-up demo point of a trend (its history before the first real snapshot), or null when it has none. */
export function demoHistoryUntil(trend: HealthTrend): Date | null {
  const demo = trend.points.filter((p) => p.source === "demo");
  return demo.length > 0 ? demo.at(-1)!.at : null;
}

/** The default most points a chart draws: a sync every few minutes for 30 days would otherwise be thousands. */
export const TREND_MAX_POINTS = 120;

/**
 * The link snapshots (taken after each sync) of the last `days` days, for the charts. The window is cut into
 * `maxPoints` equal slices and the newest snapshot of each is kept, so a chart's cost does not grow with the sync rate.
 */
export async function healthTrend(
  db: Db,
  { days, maxPoints = TREND_MAX_POINTS, now = new Date() }: { days: number; maxPoints?: number; now?: Date },
): Promise<HealthTrend> {
  if (!(days > 0) || !(maxPoints >= 1)) throw new RangeError("healthTrend: days and maxPoints must be positive");
  const from = new Date(now.getTime() - days * DAY_MS);
  const sliceSeconds = Math.max(1, Math.floor((days * DAY_MS) / 1000 / Math.floor(maxPoints)));
  // Written into the text, not bound: PostgreSQL matches DISTINCT ON to ORDER BY by expression, and two parameters
  // ($1, $5) are different expressions to it. Both are numbers computed here.
  const slice = sql`floor((extract(epoch from ${linkSnapshots.at}) - ${sql.raw(String(from.getTime() / 1000))}) / ${sql.raw(String(sliceSeconds))})`;
  const rows = await db
    .selectDistinctOn([slice], {
      at: linkSnapshots.at,
      total: linkSnapshots.total,
      byState: linkSnapshots.byState,
      byErrorCode: linkSnapshots.byErrorCode,
      source: linkSnapshots.source,
    })
    .from(linkSnapshots)
    .where(and(gte(linkSnapshots.at, from), sql`${linkSnapshots.at} <= ${now.toISOString()}::timestamptz`))
    .orderBy(slice, desc(linkSnapshots.at), desc(linkSnapshots.id));
  return {
    from,
    to: now,
    points: rows
      .map((row) => ({
        at: row.at,
        total: row.total,
        byState: pickCounts(row.byState, isState),
        byErrorCode: pickCounts(row.byErrorCode, isErrorCode),
        source: row.source,
      }))
      .sort((a, b) => a.at.getTime() - b.at.getTime()),
  };
}

/** Each trend window's reads, kept 5 s per database as the summary is. */
const trendReads = new Map<number, CachedRead<HealthTrend>>();

function trendRead(days: number): CachedRead<HealthTrend> {
  let read = trendReads.get(days);
  if (!read) trendReads.set(days, (read = cachedRead((one) => healthTrend(one, { days }), 5_000)));
  return read;
}

/**
 * The trend of the last `days` days, kept 5 s and shared by the views in that time, as the summary's counts are:
 * snapshots are taken at start and after each sync, so every view of a few seconds would read the same ones. For the
 * page's few windows only (one kept read each).
 */
export function cachedHealthTrend(db: Db, days: number): Promise<HealthTrend> {
  return trendRead(days)(db);
}

/** The kept trend of the last `days` days if it is at hand (CachedRead.peek). */
export function peekHealthTrend(db: Db, days: number): HealthTrend | undefined {
  return trendRead(days).peek(db);
}

// --- error codes over time, grouped for the charts ---

/** Each party's links per point of a trend: the sum of the counts of the error codes it must act on. */
export function whoActsOverTime(points: readonly TrendPoint[]): Record<WhoActs, number[]> {
  const out = Object.fromEntries(WHO_ACTS_ORDER.map((group) => [group, points.map(() => 0)])) as Record<
    WhoActs,
    number[]
  >;
  points.forEach((p, i) => {
    for (const code of LINK_ERROR_CODES) out[LINK_ERROR_INFO[code].whoActs][i]! += p.byErrorCode[code] ?? 0;
  });
  return out;
}

/** One band of the error codes chart: a code of its own, or the codes not drawn one by one of one party. */
export type ErrorCodeBand =
  | { kind: "code"; errorCode: LinkErrorCode; whoActs: WhoActs; values: number[] }
  | { kind: "rest"; whoActs: WhoActs; codes: LinkErrorCode[]; values: number[] };

/** How many error codes the chart draws one by one at least; more when a party's remainder would outgrow them. */
export const ERROR_CODES_DRAWN = 5;

/**
 * The error codes over a trend, as chart bands. The codes that reached the most links at some point get a band each
 * (an outage's spike ranks its code high even when it is rare the rest of the time), largest first. The rest are
 * summed per party that must act on them, never into one "other" band, and no such remainder may peak above the
 * smallest code drawn: while one would, its largest code is drawn on its own. A remainder of one code is that code.
 * Remainders come first (the bottom of a stack), in WHO_ACTS_ORDER, then the codes drawn, largest first.
 */
export function errorCodeBands(points: readonly TrendPoint[], codesDrawn: number = ERROR_CODES_DRAWN): ErrorCodeBand[] {
  const valuesOf = (code: LinkErrorCode) => points.map((p) => p.byErrorCode[code] ?? 0);
  const sumOf = (values: number[]) => values.reduce((sum, n) => sum + n, 0);
  const peakOf = (values: number[]) => Math.max(0, ...values);
  const values = new Map(LINK_ERROR_CODES.map((code) => [code, valuesOf(code)]));
  const ranked = LINK_ERROR_CODES.filter((code) => sumOf(values.get(code)!) > 0).sort(
    (a, b) => peakOf(values.get(b)!) - peakOf(values.get(a)!) || sumOf(values.get(b)!) - sumOf(values.get(a)!),
  );
  const rank = (code: LinkErrorCode) => ranked.indexOf(code);

  const drawn = ranked.slice(0, Math.max(1, codesDrawn));
  let rest = ranked.slice(drawn.length);
  const restOf = (group: WhoActs) => rest.filter((code) => LINK_ERROR_INFO[code].whoActs === group);
  const restValues = (codes: LinkErrorCode[]) =>
    points.map((_, i) => codes.reduce((sum, code) => sum + values.get(code)![i]!, 0));
  for (;;) {
    const floor = Math.min(...drawn.map((code) => peakOf(values.get(code)!)));
    const over = WHO_ACTS_ORDER.map(restOf).find((codes) => codes.length > 0 && peakOf(restValues(codes)) > floor);
    if (!over) break;
    drawn.push(over[0]!);
    rest = rest.filter((code) => code !== over[0]);
  }

  const remainders = WHO_ACTS_ORDER.map((group) => ({ group, codes: restOf(group) })).filter((r) => r.codes.length > 0);
  for (const r of remainders) if (r.codes.length === 1) drawn.push(r.codes[0]!);
  const bands: ErrorCodeBand[] = remainders
    .filter((r) => r.codes.length > 1)
    .map((r) => ({ kind: "rest", whoActs: r.group, codes: r.codes, values: restValues(r.codes) }));
  for (const code of drawn.sort((a, b) => rank(a) - rank(b))) {
    bands.push({ kind: "code", errorCode: code, whoActs: LINK_ERROR_INFO[code].whoActs, values: values.get(code)! });
  }
  return bands;
}

/** Keeps the known keys with numeric counts: a snapshot is JSON written by an older or newer Linkdesk. */
function pickCounts<K extends string>(value: unknown, known: (key: unknown) => key is K): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  if (value && typeof value === "object") {
    for (const [key, n] of Object.entries(value))
      if (known(key) && typeof n === "number" && Number.isFinite(n)) out[key] = n;
  }
  return out;
}

// --- one link's copy, for the detail page when the upstream cannot be read ---

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
