import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { wireLink } from "../testing/wire-fixtures";
import { LINK_STATES, type WireLink } from "../upstream/schemas";
import { healthSummary, STALE_DAYS, staleBefore, TOP_ERROR_SOURCES } from "./health-summary";
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

describe.each(databases)("$kind", (target) => {
  let db: Db;
  beforeEach(async () => {
    db = target.database.db;
    // Each test file has databases of its own: emptying these tables touches no other test.
    await db.delete(links);
  });

  describe("healthSummary", () => {
    it("counts states and error codes the upstream added since apart, as sent, out of the who-acts shares", async () => {
      await recordLinks(
        db,
        [
          errorLink("consent_revoked"),
          errorLink("consent_revoked"),
          errorLink("auth_expired"),
          link({ state: "relinking" }),
          link({ state: "connected" }),
        ],
        NOW,
      );
      const summary = await healthSummary(db, { now: NOW });
      expect(summary.total).toBe(5);
      expect(summary.otherStates).toEqual([{ value: "relinking", count: 1 }]);
      expect(summary.otherErrorCodes).toEqual([{ value: "consent_revoked", count: 2 }]);
      expect(summary.byState.find((s) => s.state === "error")?.count).toBe(3);
      expect(summary.byErrorCode).toEqual([{ errorCode: "auth_expired", count: 1 }]);
      expect(summary.withErrorCode).toBe(1);
    });

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
});
