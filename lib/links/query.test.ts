import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { parseCsv } from "../http/csv";
import { links } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { LINK_SORTS, type LinkListParams } from "../schemas/links";
import { wireLink } from "../testing/wire-fixtures";
import type { LinkErrorCode, LinkState, WireLink } from "../upstream/schemas";
import { LINK_ERROR_INFO } from "./error-codes";
import {
  cachedLinkPage,
  DEFAULT_LINK_SORT,
  facetOptions,
  LINKS_CSV_HEADER,
  type LinkListItem,
  type LinkSort,
  linkListSearchParams,
  listLinks,
  parseLinkListParams,
  readModelSummary,
  resolveLinkSort,
  type SortDir,
  streamLinksCsv,
} from "./query";
import { linkRowOf, recordLinks } from "./read-model";
import { noteReadModelChange } from "./read-model-version";

const databases = withTestDatabases();

// The clock every test reads: staleness counts back from here.
const NOW = new Date("2026-11-20T12:00:00.000Z");
const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();

const INSTITUTIONS = [
  ["chase", "Chase"],
  ["wells", "Wells Fargo"],
  ["boa", "Bank of America"],
  // A name a spreadsheet would run as a formula.
  ["ally", "=Ally"],
] as const;
const STATES: LinkState[] = ["connected", "error", "connecting", "error", "deleted", "awaiting_token_exchange"];
const ERRORS: LinkErrorCode[] = ["auth_expired", "institution_error", "provider_error", "invalid_credentials"];
const PROVIDERS = ["plaid", "mx", "finicity"];
const TAGS = [["team:retail"], ["team:sme", "vip"], [], ["vip"], ["semi;colon", "=cmd"]];

/**
 * 40 links read in full, varied on every filtered column (several share each sort value, to exercise the tie-break),
 * plus links listed but never read (no state, no institution: the null part of every nullable sort). `lkx01` would
 * match the search "lk_0" if `_` were a LIKE wildcard.
 */
function fixtureLinks(): { wire: WireLink[]; createdAt: Map<string, string | null> } {
  const wire: WireLink[] = [];
  const createdAt = new Map<string, string | null>();
  for (let i = 0; i < 40; i++) {
    const [institutionId, institutionName] = INSTITUTIONS[i % INSTITUTIONS.length]!;
    const state = STATES[i % STATES.length]!;
    const linkId = i === 39 ? "lkx01" : `lk_${String(i).padStart(3, "0")}`;
    // Refreshed 0..12 days ago, or never (every 7th link).
    const refreshed = i % 7 === 0 ? null : daysAgo((i * 5) % 13);
    wire.push(
      wireLink({
        link_id: linkId,
        institution_id: institutionId,
        institution_name: institutionName,
        institution_avatar: i % 5 === 0 ? "javascript:alert(1)" : `https://cdn.example.com/${institutionId}.png`,
        state,
        error_code: state === "error" ? ERRORS[Math.floor(i / 2) % ERRORS.length]! : null,
        provider: PROVIDERS[i % PROVIDERS.length]!,
        link_tags: TAGS[i % TAGS.length]!,
        tags: i % 4 === 0 ? ["old-tag"] : [],
        products: {
          accounts: { refreshed_at: refreshed, error_code: i % 6 === 1 ? "rate_limit" : null },
          ...(i % 3 === 0
            ? {
                transactions: {
                  refreshed_at: null,
                  error_code: i % 2 === 0 ? "timeout" : null,
                  unavailable: i % 2 === 0 ? null : "not_supported",
                },
              }
            : {}),
        },
      }),
    );
    // Two links share each creation day; every 8th was first seen outside GET /links (no created_at).
    createdAt.set(linkId, i % 8 === 5 ? null : daysAgo(30 - Math.floor(i / 2)));
  }
  return { wire, createdAt };
}

const UNREAD = ["lk_900", "lk_901", "lk_902"];

async function seed(db: Db): Promise<void> {
  await db.delete(links);
  const { wire, createdAt } = fixtureLinks();
  await recordLinks(db, wire, new Date(NOW.getTime() - 60_000));
  for (const [linkId, at] of createdAt) {
    await db.execute(
      sql`update links set created_at = ${at}::timestamptz, listed_at = ${NOW.toISOString()}::timestamptz where link_id = ${linkId}`,
    );
  }
  await db
    .insert(links)
    .values(UNREAD.map((linkId, i) => ({ linkId, createdAt: i === 0 ? null : new Date(daysAgo(1)), listedAt: NOW })));
}

/** The fixture as the list should show it, to filter and sort in plain JavaScript. */
function expectedItems(): Map<string, { row: ReturnType<typeof linkRowOf> | null; createdAt: string | null }> {
  const { wire, createdAt } = fixtureLinks();
  const items = new Map<string, { row: ReturnType<typeof linkRowOf> | null; createdAt: string | null }>();
  for (const link of wire)
    items.set(link.link_id, { row: linkRowOf(link, NOW), createdAt: createdAt.get(link.link_id) ?? null });
  items.set(UNREAD[0]!, { row: null, createdAt: null });
  for (const id of UNREAD.slice(1)) items.set(id, { row: null, createdAt: daysAgo(1) });
  return items;
}

/** The link ids the view should hold, by a reading of the filters independent of the SQL. */
function expectedIds(params: LinkListParams): string[] {
  const ids: string[] = [];
  for (const [id, { row }] of expectedItems()) {
    const r = row;
    if (params.state && r?.state !== params.state) continue;
    if (params.error_code && r?.errorCode !== params.error_code) continue;
    if (
      params.who_acts &&
      !(r?.errorCode && LINK_ERROR_INFO[r.errorCode as LinkErrorCode]?.whoActs === params.who_acts)
    )
      continue;
    if (
      params.institution &&
      r?.institutionId !== params.institution &&
      r?.institutionName?.toLowerCase() !== params.institution.toLowerCase()
    )
      continue;
    if (params.provider && r?.provider !== params.provider) continue;
    if (params.tag && !r?.linkTags.includes(params.tag)) continue;
    if (params.product_error && !r?.productErrorCodes.includes(params.product_error)) continue;
    if (
      params.stale !== undefined &&
      r?.lastRefreshedAt &&
      r.lastRefreshedAt.getTime() >= NOW.getTime() - params.stale * DAY
    )
      continue;
    if (params.q && !id.startsWith(params.q) && !r?.linkTags.includes(params.q)) continue;
    ids.push(id);
  }
  return ids.sort();
}

async function allPages(
  db: Db,
  params: LinkListParams,
  pageSize: number,
): Promise<{ rows: LinkListItem[]; total: number; pages: number }> {
  const rows: LinkListItem[] = [];
  const first = await listLinks(db, params, { pageSize, now: NOW });
  rows.push(...first.rows);
  for (let page = 2; page <= first.pageCount; page++) {
    const next = await listLinks(db, { ...params, page }, { pageSize, now: NOW });
    expect(next.total).toBe(first.total);
    expect(next.rows.length).toBe(page < first.pageCount ? pageSize : first.total - pageSize * (first.pageCount - 1));
    rows.push(...next.rows);
  }
  return { rows, total: first.total, pages: first.pageCount };
}

const sortValue = (item: LinkListItem, sort: LinkSort): string | null =>
  ({
    created_at: item.createdAt,
    last_refreshed_at: item.lastRefreshedAt,
    institution_name: item.institutionName,
    state: item.state,
    error_code: item.errorCode,
    provider: item.provider,
    link_id: item.linkId,
  })[sort];

/** Rows in the sort's order: values in the direction asked (ties in either link_id order), then the nulls. */
function expectSorted(rows: LinkListItem[], sort: LinkSort, dir: SortDir): void {
  const values = rows.map((r) => sortValue(r, sort));
  const firstNull = values.indexOf(null);
  if (firstNull >= 0) expect(values.slice(firstNull).every((v) => v === null)).toBe(true);
  const present = (firstNull >= 0 ? values.slice(0, firstNull) : values) as string[];
  // ISO times compare as text; the fixture's other values are chosen to sort the same in byte order and in a
  // linguistic collation, so the check holds whatever the database's collation.
  for (let i = 1; i < present.length; i++) {
    const [a, b] = [present[i - 1]!, present[i]!];
    if (dir === "asc") expect(a <= b, `${a} before ${b}`).toBe(true);
    else expect(a >= b, `${a} before ${b}`).toBe(true);
  }
}

async function csvOf(db: Db, params: LinkListParams, batchSize?: number): Promise<string[][]> {
  let text = "";
  for await (const chunk of streamLinksCsv(db, params, { batchSize, now: NOW })) text += chunk;
  return parseCsv(text);
}

describe("parseLinkListParams", () => {
  it("reads every parameter of the URL contract", () => {
    const { params, dropped } = parseLinkListParams(
      new URLSearchParams(
        "state=error&error_code=auth_expired&institution=chase&provider=plaid&tag=vip&product_error=timeout&stale=7&q=lk_0&sort=provider&dir=desc&page=3",
      ),
    );
    expect(dropped).toEqual([]);
    expect(params).toEqual({
      state: "error",
      error_code: "auth_expired",
      institution: "chase",
      provider: "plaid",
      tag: "vip",
      product_error: "timeout",
      stale: 7,
      q: "lk_0",
      sort: "provider",
      dir: "desc",
      page: 3,
    });
  });

  it("drops each bad value with a reason, keeps the good ones, and ignores blanks and unknown parameters", () => {
    const { params, dropped } = parseLinkListParams({
      state: "sleeping",
      error_code: ["auth_expired", "provider_error"],
      stale: "a week",
      page: "0",
      sort: "raw",
      dir: "sideways",
      tag: " vip ",
      q: "   ",
      provider: "",
      id: "mk_123",
    });
    expect(params).toEqual({ tag: "vip" });
    expect(dropped.map((d) => [d.param, d.value, d.reason])).toEqual([
      ["state", "sleeping", "not one of the choices"],
      ["error_code", "auth_expired, provider_error", "given more than once"],
      ["stale", "a week", "not a whole number"],
      ["sort", "raw", "not one of the choices"],
      ["dir", "sideways", "not one of the choices"],
      ["page", "0", "too small"],
    ]);
  });

  it("writes a view back in one canonical order, without page 1, and round-trips", () => {
    const params: LinkListParams = { q: "lk", state: "error", stale: 30, page: 1, sort: "state" };
    const search = linkListSearchParams(params);
    expect(search.toString()).toBe("state=error&stale=30&q=lk&sort=state");
    expect(parseLinkListParams(search).params).toEqual({ q: "lk", state: "error", stale: 30, sort: "state" });
    expect(linkListSearchParams(params, { page: 4, state: undefined }).toString()).toBe(
      "stale=30&q=lk&sort=state&page=4",
    );
  });

  it("defaults to newest first, and each sort to its own direction", () => {
    expect(resolveLinkSort({})).toEqual({ sort: DEFAULT_LINK_SORT, dir: "desc" });
    expect(resolveLinkSort({ sort: "institution_name" })).toEqual({ sort: "institution_name", dir: "asc" });
    expect(resolveLinkSort({ sort: "last_refreshed_at", dir: "asc" })).toEqual({
      sort: "last_refreshed_at",
      dir: "asc",
    });
  });
});

describe.each(databases)("links list on $kind", (target) => {
  let db: Db;
  beforeAll(async () => {
    db = target.database.db;
    await seed(db);
  });

  const everything = () => expectedIds({});

  it("lists every link, newest first, links without a creation time last", async () => {
    const page = await listLinks(db, {}, { now: NOW });
    expect(page.total).toBe(43);
    expect(page).toMatchObject({ page: 1, pageCount: 1, pageSize: 50, sort: "created_at", dir: "desc" });
    expect(page.rows.map((r) => r.linkId).sort()).toEqual(everything());
    expectSorted(page.rows, "created_at", "desc");
    expect(page.rows.at(-1)?.createdAt).toBeNull();
    expect(page.rows[0]?.createdAt).toBe(daysAgo(1));
  });

  it("keeps a view a few seconds, and shows a change made through this instance at once", async () => {
    const stateOf = async () => (await cachedLinkPage(db, { q: "lk_004" })).rows[0]?.state;
    const before = await stateOf();
    expect(before).toBe("deleted");
    // A change the read model's writers did not announce (another instance's, say) waits for the kept view to expire.
    await db.execute(sql`update links set state = 'connected' where link_id = 'lk_004'`);
    expect(await stateOf()).toBe("deleted");
    noteReadModelChange();
    expect(await stateOf()).toBe("connected");
    // recordLinks announces its own change: the next view has it.
    const original = fixtureLinks().wire.find((l) => l.link_id === "lk_004")!;
    await recordLinks(db, [original], new Date(NOW.getTime() - 60_000));
    expect(await stateOf()).toBe("deleted");
  });

  it("shows each row's columns, products and deprecated fields from the read model", async () => {
    const { rows } = await listLinks(db, { q: "lk_003" }, { now: NOW });
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({
      linkId: "lk_003",
      createdAt: daysAgo(29),
      institutionId: "ally",
      institutionName: "=Ally",
      institutionAvatar: "https://cdn.example.com/ally.png",
      state: "error",
      errorCode: "institution_error",
      provider: "plaid",
      linkTags: ["vip"],
      productErrorCodes: [],
      lastRefreshedAt: daysAgo(2),
      deletedSeenAt: null,
      deprecated: { tags: [], lastSyncedAt: "2026-11-19T08:00:00Z" },
    });
    expect(row.products).toEqual([
      { product: "accounts", refreshedAt: daysAgo(2), errorCode: null, errorMessage: null, unavailable: null },
      { product: "transactions", refreshedAt: null, errorCode: null, errorMessage: null, unavailable: "not_supported" },
    ]);
    const [failing] = (await listLinks(db, { q: "lk_006" }, { now: NOW })).rows;
    expect(failing?.productErrorCodes).toEqual(["timeout"]);
    expect(failing?.products[1]).toMatchObject({ product: "transactions", errorCode: "timeout" });
    const [old] = (await listLinks(db, { q: "lk_004" }, { now: NOW })).rows;
    expect(old?.deprecated.tags).toEqual(["old-tag"]);
    const [unread] = (await listLinks(db, { q: "lk_900" }, { now: NOW })).rows;
    expect(unread).toMatchObject({
      state: null,
      institutionName: null,
      products: [],
      deprecated: { tags: null, lastSyncedAt: null },
    });
  });

  const single: [string, LinkListParams][] = [
    ["state", { state: "error" }],
    ["error_code", { error_code: "auth_expired" }],
    ["who must act: the user", { who_acts: "user" }],
    ["who must act: a wait", { who_acts: "wait" }],
    ["institution by id", { institution: "wells" }],
    ["institution by name, any case", { institution: "bank of america" }],
    ["provider", { provider: "mx" }],
    ["tag", { tag: "vip" }],
    ["tag with a semicolon", { tag: "semi;colon" }],
    ["product_error", { product_error: "rate_limit" }],
    ["stale 7 days", { stale: 7 }],
    ["stale 30 days: only never refreshed", { stale: 30 }],
    ["search by link id prefix", { q: "lk_01" }],
    ["search: _ is not a wildcard", { q: "lk_0" }],
    ["search by exact tag", { q: "team:sme" }],
    ["search: a tag's prefix is not a match", { q: "team" }],
    ["an unknown value", { provider: "nobody" }],
  ];
  it.each(single)("filters by %s", async (_, params) => {
    const expected = expectedIds(params);
    const page = await listLinks(db, params, { now: NOW });
    expect(page.rows.map((r) => r.linkId).sort()).toEqual(expected);
    expect(page.total).toBe(expected.length);
  });

  const combos: [string, LinkListParams][] = [
    ["state + error_code", { state: "error", error_code: "institution_error" }],
    ["error_code + institution", { error_code: "auth_expired", institution: "wells" }],
    ["state + stale", { state: "connected", stale: 3 }],
    ["provider + tag + product_error", { provider: "plaid", tag: "vip", product_error: "timeout" }],
    ["search + state", { q: "lk_02", state: "error" }],
    ["contradicting filters", { state: "connected", error_code: "auth_expired" }],
  ];
  it("filters meaningfully: every filter narrows, and the fixture covers each", async () => {
    for (const [, params] of single.slice(0, 13))
      expect(expectedIds(params).length, JSON.stringify(params)).toBeGreaterThan(0);
    for (const [, params] of combos.slice(0, -1))
      expect(expectedIds(params).length, JSON.stringify(params)).toBeGreaterThan(0);
    expect(expectedIds({ q: "lk_0" })).not.toContain("lkx01");
    expect(expectedIds({ q: "team" })).toEqual([]);
    // "stale" counts a link never refreshed as stale.
    expect(expectedIds({ stale: 30 })).toContain("lk_000");
    expect(expectedIds({ stale: 30 })).toContain("lk_900");
  });

  it.each(combos)("combines %s", async (_, params) => {
    const expected = expectedIds(params);
    const page = await listLinks(db, params, { now: NOW });
    expect(page.rows.map((r) => r.linkId).sort()).toEqual(expected);
    expect(page.total).toBe(expected.length);
  });

  const sorts = LINK_SORTS.flatMap((sort) => (["asc", "desc"] as const).map((dir) => [sort, dir] as const));
  it.each(sorts)("sorts by %s %s, nulls last, every row exactly once across pages", async (sort, dir) => {
    const { rows, total, pages } = await allPages(db, { sort, dir }, 7);
    expect(total).toBe(43);
    expect(pages).toBe(7);
    const ids = rows.map((r) => r.linkId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(everything());
    expectSorted(rows, sort, dir);
    // The same order on every read: the tie-break makes it total.
    const again = await allPages(db, { sort, dir }, 7);
    expect(again.rows.map((r) => r.linkId)).toEqual(ids);
  });

  it("pages a filtered view, and a page past the end is empty with the true count", async () => {
    const params: LinkListParams = { state: "error", sort: "error_code" };
    const expected = expectedIds(params);
    const { rows, total } = await allPages(db, params, 4);
    expect(total).toBe(expected.length);
    expect(rows.map((r) => r.linkId).sort()).toEqual(expected);
    const past = await listLinks(db, { ...params, page: 99 }, { pageSize: 4, now: NOW });
    expect(past).toMatchObject({
      rows: [],
      total: expected.length,
      page: 99,
      pageCount: Math.ceil(expected.length / 4),
    });
    const empty = await listLinks(db, { provider: "nobody" }, { now: NOW });
    expect(empty).toMatchObject({ rows: [], total: 0, pageCount: 1 });
  });

  it("exports exactly the filtered view, in its order, across keyset batches", async () => {
    const views: LinkListParams[] = [
      {},
      { sort: "state", dir: "asc" },
      { sort: "error_code", dir: "desc" },
      { sort: "institution_name" },
      { sort: "last_refreshed_at", dir: "asc", stale: 5 },
      { sort: "created_at", dir: "asc" },
      { sort: "link_id", dir: "desc", q: "lk_0" },
      { state: "error", institution: "wells", page: 2 },
    ];
    for (const params of views) {
      const { rows } = await allPages(db, { ...params, page: undefined }, 6);
      for (const batchSize of [3, 1000]) {
        const [header, ...records] = await csvOf(db, params, batchSize);
        expect(header).toEqual(LINKS_CSV_HEADER);
        expect(
          records.map((r) => r[0]),
          `${JSON.stringify(params)} in batches of ${batchSize}`,
        ).toEqual(rows.map((r) => r.linkId));
      }
    }
  });

  it("writes each CSV field as text a spreadsheet will not run", async () => {
    const [header, ...records] = await csvOf(db, { q: "lk_003" });
    const record = Object.fromEntries(header!.map((name, i) => [name, records[0]![i]]));
    expect(records).toHaveLength(1);
    expect(record).toEqual({
      link_id: "lk_003",
      institution: "'=Ally",
      institution_id: "ally",
      state: "error",
      error_code: "institution_error",
      provider: "plaid",
      products: `accounts:${daysAgo(2)};transactions:unavailable not_supported`,
      product_error_codes: "",
      link_tags: "vip",
      last_refreshed_at: daysAgo(2),
      created_at: daysAgo(29),
      seen_at: new Date(NOW.getTime() - 60_000).toISOString(),
      learned_from: "upstream_answer",
      learned_at: new Date(NOW.getTime() - 60_000).toISOString(),
    });
    const [, tagged] = await csvOf(db, { q: "lk_004" });
    expect(tagged![LINKS_CSV_HEADER.indexOf("link_tags")]).toBe("semi colon;=cmd");
    const [, failing] = await csvOf(db, { q: "lk_006" });
    expect(failing![LINKS_CSV_HEADER.indexOf("products")]).toBe(`accounts:${daysAgo(4)};transactions:error timeout`);
  });

  it("offers the filter options with counts, most used first", async () => {
    const facets = await facetOptions(db);
    expect(facets.institutions).toEqual(
      [
        { id: "chase", name: "Chase", count: 10 },
        { id: "ally", name: "=Ally", count: 10 },
        { id: "boa", name: "Bank of America", count: 10 },
        { id: "wells", name: "Wells Fargo", count: 10 },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(facets.providers.map((p) => p.value).sort()).toEqual(["finicity", "mx", "plaid"]);
    expect(facets.productErrors.map((p) => p.value).sort()).toEqual(["rate_limit", "timeout"]);
    expect(facets.tags[0]).toEqual({ value: "vip", count: 16 });
    expect(facets.tags.map((t) => t.value).sort()).toEqual(["=cmd", "semi;colon", "team:retail", "team:sme", "vip"]);
    expect((await facetOptions(db, { limit: 2 })).tags).toHaveLength(2);
  });

  it("says how fresh and how big the read model is, and how many of its links were never read", async () => {
    expect(await readModelSummary(db)).toEqual({
      asOf: new Date(NOW.getTime() - 60_000),
      total: 40 + UNREAD.length,
      unread: UNREAD.length,
    });
  });
});
