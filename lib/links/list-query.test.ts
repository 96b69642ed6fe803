import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { withTestDatabases } from "../testing/databases";
import { allPages, daysAgo, expectedIds, fixtureLinks, NOW, seedLinksList } from "../testing/links-list-fixture";
import { LINK_SORTS, type LinkListParams } from "../schemas/links";
import type { LinkSort, SortDir } from "./list-params";
import { cachedLinkPage, type LinkListItem, listLinks } from "./list-query";
import { recordLinks } from "./read-model";
import { noteReadModelChange } from "./read-model-version";

const databases = withTestDatabases();

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

describe.each(databases)("links list on $kind", (target) => {
  let db: Db;
  beforeAll(async () => {
    db = target.database.db;
    await seedLinksList(db);
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
});
