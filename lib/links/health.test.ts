import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { links, linkSnapshots } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { wireLink } from "../testing/wire-fixtures";
import { LINK_STATES, type WireLink } from "../upstream/schemas";
import {
  cachedHealthTrend,
  errorCodeBands,
  healthSummary,
  healthTrend,
  STALE_DAYS,
  staleBefore,
  storedLink,
  TOP_ERROR_SOURCES,
  type TrendPoint,
  whoActsOverTime,
} from "./health";
import type { LinkListParams } from "../schemas/links";
import { listLinks } from "./list-query";
import { recordLinks } from "./read-model";

const databases = withTestDatabases();

const NOW = new Date("2026-11-20T12:00:00.000Z");
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS).toISOString();

let serial = 0;
/** A link refreshed `refreshedDaysAgo` days before NOW (every product), with a unique id. */
function link(overrides: Partial<WireLink> = {}, refreshedDaysAgo = 0): WireLink {
  const at = daysAgo(refreshedDaysAgo);
  return wireLink({
    link_id: `mk_health_${++serial}`,
    products: { accounts: { refreshed_at: at }, transactions: { refreshed_at: at } },
    ...overrides,
  });
}

const errorLink = (errorCode: NonNullable<WireLink["error_code"]>, overrides: Partial<WireLink> = {}) =>
  link({ state: "error", error_code: errorCode, ...overrides });

/** Trend points with the given error code counts, a day apart. */
const pointsOf = (counts: TrendPoint["byErrorCode"][]): TrendPoint[] =>
  counts.map((byErrorCode, i) => ({
    at: new Date(NOW.getTime() + i * DAY_MS),
    total: 1_000,
    byState: {},
    byErrorCode,
    source: "sync",
  }));
const peak = (values: number[]) => Math.max(...values);

describe("errorCodeBands", () => {
  it("draws the top codes, sums the rest per party that must act, and draws alone any code a remainder would hide", () => {
    const points = pointsOf([
      { auth_expired: 100, system_error: 50, user_error: 30, no_accounts: 30, institution_error: 5, provider_error: 5 },
      { auth_expired: 90, system_error: 40, user_error: 20, no_accounts: 25, institution_error: 2 },
    ]);
    const bands = errorCodeBands(points, 2);
    // With two codes drawn the user's remainder (user_error + no_accounts, 60) would outgrow system_error (50): its
    // largest code (no_accounts: the same peak, more links in all) is drawn alone, which leaves user_error alone too.
    expect(bands).toEqual([
      { kind: "rest", whoActs: "wait", codes: ["institution_error", "provider_error"], values: [10, 2] },
      { kind: "code", errorCode: "auth_expired", whoActs: "user", values: [100, 90] },
      { kind: "code", errorCode: "system_error", whoActs: "service", values: [50, 40] },
      { kind: "code", errorCode: "no_accounts", whoActs: "user", values: [30, 25] },
      { kind: "code", errorCode: "user_error", whoActs: "user", values: [30, 20] },
    ]);
  });

  it("never lets a remainder peak above a code drawn alone, and counts every link once", () => {
    const points = pointsOf([
      {
        auth_expired: 3,
        invalid_credentials: 3,
        user_error: 3,
        incomplete: 3,
        no_accounts: 3,
        user_oauth_denied: 3,
        user_setup_required: 3,
        user_input_incorrect: 3,
        system_error: 1,
      },
      {
        auth_expired: 2,
        invalid_credentials: 2,
        user_error: 2,
        incomplete: 2,
        no_accounts: 2,
        user_oauth_denied: 2,
        user_setup_required: 2,
        user_input_incorrect: 2,
        provider_error: 9,
      },
    ]);
    const bands = errorCodeBands(points);
    const floor = Math.min(...bands.filter((b) => b.kind === "code").map((b) => peak(b.values)));
    for (const band of bands.filter((b) => b.kind === "rest")) expect(peak(band.values)).toBeLessThanOrEqual(floor);
    expect(points.map((_, i) => bands.reduce((sum, b) => sum + b.values[i]!, 0))).toEqual([25, 25]);
  });

  it("has no bands for a trend without error codes", () => {
    expect(errorCodeBands(pointsOf([{}, {}]))).toEqual([]);
    expect(errorCodeBands([])).toEqual([]);
  });
});

describe("whoActsOverTime", () => {
  it("sums each point's error codes by who must act, zeros included", () => {
    const points = pointsOf([{ auth_expired: 4, incomplete: 1, provider_error: 2 }, { system_error: 3 }, {}]);
    expect(whoActsOverTime(points)).toEqual({ user: [5, 0, 0], wait: [2, 0, 0], service: [0, 3, 0] });
  });
});

describe.each(databases)("$kind", (target) => {
  let db: Db;
  beforeEach(async () => {
    db = target.database.db;
    // Each test file has databases of its own: emptying these tables touches no other test.
    await db.delete(links);
    await db.delete(linkSnapshots);
  });

  describe("healthSummary", () => {
    it("reports an empty read model as zeros with no freshness", async () => {
      const summary = await healthSummary(db, { now: NOW });
      expect(summary).toMatchObject({
        total: 0,
        unread: 0,
        withErrorCode: 0,
        byErrorCode: [],
        topInstitutions: [],
        topProviders: [],
        productErrors: [],
        asOf: null,
      });
      expect(summary.byState).toEqual(LINK_STATES.map((state) => ({ state, count: 0 })));
      expect(summary.stale).toEqual(STALE_DAYS.map((days) => ({ days, count: 0 })));
      expect(summary.whoActs.map((w) => [w.whoActs, w.count, w.share])).toEqual([
        ["user", 0, 0],
        ["wait", 0, 0],
        ["service", 0, 0],
      ]);
    });

    it("counts links by state and by error code, with listed-but-unread links apart", async () => {
      await recordLinks(
        db,
        [
          link(),
          link(),
          link({ state: "connecting", products: {} }),
          link({ state: "deleted" }),
          errorLink("auth_expired"),
          errorLink("auth_expired"),
          errorLink("auth_expired"),
          errorLink("institution_error"),
          errorLink("system_error"),
        ],
        NOW,
      );
      await db.insert(links).values([
        { linkId: "mk_listed_only_1", listedAt: NOW },
        { linkId: "mk_listed_only_2", listedAt: NOW },
      ]);

      const summary = await healthSummary(db, { now: NOW });
      expect(summary.total).toBe(11);
      expect(summary.unread).toBe(2);
      expect(Object.fromEntries(summary.byState.map((s) => [s.state, s.count]))).toEqual({
        connecting: 1,
        awaiting_token_exchange: 0,
        connected: 2,
        deleted: 1,
        error: 5,
      });
      expect(summary.byErrorCode).toEqual([
        { errorCode: "auth_expired", count: 3 },
        { errorCode: "institution_error", count: 1 },
        { errorCode: "system_error", count: 1 },
      ]);
      expect(summary.withErrorCode).toBe(5);
    });

    it("splits error links by who must act, with shares that add up to one", async () => {
      await recordLinks(
        db,
        [
          errorLink("auth_expired"),
          errorLink("invalid_credentials"),
          errorLink("invalid_credentials"),
          errorLink("incomplete"),
          errorLink("institution_error"),
          errorLink("provider_error"),
          errorLink("provider_error"),
          errorLink("system_error"),
        ],
        NOW,
      );
      const { whoActs } = await healthSummary(db, { now: NOW });
      expect(whoActs.map((w) => ({ who: w.whoActs, count: w.count, share: w.share }))).toEqual([
        { who: "user", count: 4, share: 0.5 },
        { who: "wait", count: 3, share: 0.375 },
        { who: "service", count: 1, share: 0.125 },
      ]);
      expect(whoActs[0]!.codes).toEqual([
        { errorCode: "invalid_credentials", count: 2 },
        { errorCode: "auth_expired", count: 1 },
        { errorCode: "incomplete", count: 1 },
      ]);
      expect(whoActs[1]!.codes.map((c) => c.errorCode)).toEqual(["provider_error", "institution_error"]);
    });

    it("ranks the institutions and providers with most links in error, ten at most, with ids and names", async () => {
      const batch: WireLink[] = [];
      // Institution i has i+1 error links; twelve institutions, so the two smallest drop off.
      for (let i = 0; i < 12; i++) {
        for (let n = 0; n <= i; n++) {
          batch.push(
            errorLink("institution_error", {
              institution_id: `inst_${i}`,
              institution_name: `<b>Bank ${i}</b>`,
              provider: i % 2 ? "plaid" : "mx",
            }),
          );
        }
      }
      // Healthy links of a big institution do not make it an error source.
      for (let n = 0; n < 30; n++)
        batch.push(link({ institution_id: "big_and_fine", institution_name: "Big", provider: "finicity" }));
      await recordLinks(db, batch, NOW);

      const summary = await healthSummary(db, { now: NOW });
      expect(summary.topInstitutions).toHaveLength(TOP_ERROR_SOURCES);
      expect(summary.topInstitutions[0]).toEqual({
        institutionId: "inst_11",
        institutionName: "<b>Bank 11</b>",
        count: 12,
      });
      expect(summary.topInstitutions.map((i) => i.institutionId)).not.toContain("big_and_fine");
      expect(summary.topInstitutions.at(-1)).toMatchObject({ institutionId: "inst_2", count: 3 });
      // plaid: odd i → 2+4+…+12 = 42; mx: even i → 1+3+…+11 = 36.
      expect(summary.topProviders).toEqual([
        { provider: "plaid", count: 42 },
        { provider: "mx", count: 36 },
      ]);
    });

    it("counts stale links by their latest product refresh, never-refreshed links included (as the list's filter)", async () => {
      await recordLinks(
        db,
        [
          link({}, 0),
          link({}, 6.9),
          link({}, 7.1),
          link({}, 29),
          link({}, 31),
          link({}, 400),
          // Never refreshed: connecting, no product refreshed yet.
          link({ state: "connecting", products: { transactions: { refreshed_at: null } } }),
          // The latest of its products counts: one fresh product keeps the link fresh.
          link({ products: { accounts: { refreshed_at: daysAgo(90) }, transactions: { refreshed_at: daysAgo(1) } } }),
        ],
        NOW,
      );
      await db.insert(links).values({ linkId: "mk_listed_only", listedAt: NOW });
      const { stale } = await healthSummary(db, { now: NOW });
      // 7 days: 7.1, 29, 31, 400 days, the connecting link and the listed-only link; 30 days: 31, 400 and the two.
      expect(stale).toEqual([
        { days: 7, count: 6 },
        { days: 30, count: 4 },
      ]);
      expect(staleBefore(7, NOW).toISOString()).toBe(daysAgo(7));
    });

    it("counts links per product refresh error code, once per link and code", async () => {
      const failing = (code: string) => ({ refreshed_at: daysAgo(1), error_code: code, error_message: "failed" });
      await recordLinks(
        db,
        [
          link({ products: { transactions: failing("rate_limit"), accounts: failing("rate_limit") } }),
          link({ products: { transactions: failing("rate_limit") } }),
          link({ products: { transactions: failing("timeout"), identity: failing("no_permission") } }),
          link(),
        ],
        NOW,
      );
      const summary = await healthSummary(db, { now: NOW });
      expect(summary.productErrors).toEqual([
        { code: "rate_limit", count: 2 },
        { code: "no_permission", count: 1 },
        { code: "timeout", count: 1 },
      ]);
      expect(summary.otherProductErrors).toBe(0);
    });

    it("gives every number the count its click-through to the links list shows", async () => {
      const batch: WireLink[] = [];
      const codes = ["auth_expired", "institution_error", "system_error", "user_error"] as const;
      for (let i = 0; i < 40; i++) {
        const products = {
          transactions: {
            refreshed_at: i % 9 === 0 ? null : daysAgo(i),
            error_code: i % 3 === 0 ? "rate_limit" : i % 5 === 0 ? "timeout" : null,
          },
        };
        const overrides: Partial<WireLink> = {
          institution_id: `inst_${i % 4}`,
          institution_name: `Bank ${i % 4}`,
          provider: i % 2 ? "plaid" : "mx",
          products,
        };
        batch.push(
          i % 4 === 0
            ? link({ ...overrides, state: i % 8 === 0 ? "deleted" : "connecting" })
            : i % 3 === 0
              ? errorLink(codes[i % 4]!, overrides)
              : link(overrides),
        );
      }
      await recordLinks(db, batch, NOW);
      await db.insert(links).values({ linkId: "mk_listed_only", listedAt: NOW });

      const summary = await healthSummary(db, { now: NOW });
      const listed = async (params: LinkListParams) => (await listLinks(db, params, { now: NOW })).total;
      expect(await listed({})).toBe(summary.total);
      for (const { state, count } of summary.byState) expect([state, await listed({ state })]).toEqual([state, count]);
      for (const { errorCode, count } of summary.byErrorCode)
        expect([errorCode, await listed({ error_code: errorCode })]).toEqual([errorCode, count]);
      for (const { institutionId, count } of summary.topInstitutions)
        expect(await listed({ state: "error", institution: institutionId })).toBe(count);
      for (const { provider, count } of summary.topProviders)
        expect(await listed({ state: "error", provider })).toBe(count);
      for (const { days, count } of summary.stale) expect([days, await listed({ stale: days })]).toEqual([days, count]);
      for (const { code, count } of summary.productErrors)
        expect([code, await listed({ product_error: code })]).toEqual([code, count]);
      expect(summary.byErrorCode.length).toBeGreaterThan(1);
      expect(summary.productErrors.length).toBe(2);
    });

    it("is as fresh as the newest read of any link", async () => {
      await recordLinks(db, [link()], new Date(NOW.getTime() - 3_600_000));
      await recordLinks(db, [link()], new Date(NOW.getTime() - 60_000));
      await db.insert(links).values({ linkId: "mk_listed_later", listedAt: NOW });
      expect((await healthSummary(db, { now: NOW })).asOf).toEqual(new Date(NOW.getTime() - 60_000));
    });
  });

  describe("healthTrend", () => {
    const snapshot = (at: Date, connected: number, error: number) => ({
      at,
      total: connected + error,
      byState: { connected, error },
      byErrorCode: { auth_expired: error },
    });

    it("returns the window's snapshots oldest first, without older or future ones", async () => {
      await db
        .insert(linkSnapshots)
        .values([
          snapshot(new Date(NOW.getTime() - 40 * DAY_MS), 1, 1),
          snapshot(new Date(NOW.getTime() - 2 * DAY_MS), 5, 2),
          snapshot(new Date(NOW.getTime() - 20 * DAY_MS), 3, 3),
          snapshot(new Date(NOW.getTime() + DAY_MS), 9, 9),
        ]);
      const trend = await healthTrend(db, { days: 30, now: NOW });
      expect(trend.from).toEqual(new Date(NOW.getTime() - 30 * DAY_MS));
      expect(trend.to).toEqual(NOW);
      expect(trend.points).toEqual([
        {
          at: new Date(NOW.getTime() - 20 * DAY_MS),
          total: 6,
          byState: { connected: 3, error: 3 },
          byErrorCode: { auth_expired: 3 },
          source: "sync",
        },
        {
          at: new Date(NOW.getTime() - 2 * DAY_MS),
          total: 7,
          byState: { connected: 5, error: 2 },
          byErrorCode: { auth_expired: 2 },
          source: "sync",
        },
      ]);
    });

    it("keeps the newest snapshot of each slice when there are more snapshots than points", async () => {
      // One snapshot every 10 minutes for 2 days: 288 snapshots.
      const rows = Array.from({ length: 288 }, (_, i) => snapshot(new Date(NOW.getTime() - i * 600_000), i, 0));
      await db.insert(linkSnapshots).values(rows);
      const trend = await healthTrend(db, { days: 2, maxPoints: 24, now: NOW });
      expect(trend.points.length).toBeGreaterThanOrEqual(24);
      expect(trend.points.length).toBeLessThanOrEqual(25);
      const times = trend.points.map((p) => p.at.getTime());
      expect(times).toEqual([...times].sort((a, b) => a - b));
      // The newest snapshot is always kept, so a chart ends at the latest sync.
      expect(trend.points.at(-1)).toMatchObject({ at: NOW, total: 0 });
    });

    it("drops keys it does not know from stored counts", async () => {
      await db.insert(linkSnapshots).values({
        at: NOW,
        total: 3,
        byState: { connected: 2, someday_state: 1 },
        byErrorCode: { auth_expired: 1, not_a_code: 4 },
      });
      const { points } = await healthTrend(db, { days: 1, now: NOW });
      expect(points).toEqual([
        { at: NOW, total: 3, byState: { connected: 2 }, byErrorCode: { auth_expired: 1 }, source: "sync" },
      ]);
    });

    it("is shared by the views of a few seconds, one read per window", async () => {
      await db.insert(linkSnapshots).values(snapshot(new Date(Date.now() - DAY_MS), 4, 1));
      const first = cachedHealthTrend(db, 30);
      expect(cachedHealthTrend(db, 30)).toBe(first);
      expect(cachedHealthTrend(db, 7)).not.toBe(first);
      expect((await first).points.map((p) => p.total)).toEqual([5]);
      expect((await cachedHealthTrend(db, 7)).points.map((p) => p.total)).toEqual([5]);
    });
  });

  describe("storedLink", () => {
    it("returns the last-read Link object with when it was read, or null for an unknown link", async () => {
      const deleted = link({ state: "deleted" });
      await recordLinks(db, [deleted], new Date(NOW.getTime() - DAY_MS));
      await recordLinks(db, [deleted], NOW);
      const stored = await storedLink(db, deleted.link_id);
      expect(stored).toMatchObject({
        linkId: deleted.link_id,
        link: deleted,
        seenAt: NOW,
        deletedSeenAt: new Date(NOW.getTime() - DAY_MS),
      });
      expect(await storedLink(db, "mk_never_seen")).toBeNull();
    });

    it("gives no Link object for a link only listed, or a copy that no longer matches the wire schema", async () => {
      await db.insert(links).values([
        { linkId: "mk_listed", listedAt: NOW },
        { linkId: "mk_odd_copy", raw: { link_id: "mk_odd_copy", state: "teleported" }, seenAt: NOW },
      ]);
      expect(await storedLink(db, "mk_listed")).toMatchObject({ link: null, seenAt: null, listedAt: NOW });
      expect(await storedLink(db, "mk_odd_copy")).toMatchObject({ link: null, seenAt: NOW });
    });
  });
});
