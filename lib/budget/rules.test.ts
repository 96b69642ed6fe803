import { describe, expect, it } from "vitest";
import { PRODUCT_REFRESH_INTERVAL_MS, RATE_LIMIT_WINDOW_MS, RATE_LIMITS } from "../upstream/rate-limits";
import { keyString, parseKey } from "./keys";
import {
  ASSUMED_RULES,
  BUDGET_WINDOW_MS,
  keysFor,
  refreshEndpoint,
  refreshKeysFor,
  shareLabel,
  shareOf,
  WINDOW_MARGIN_MS,
} from "./rules";

const ids = { clientId: "client_1", appId: "app_1" };
const full = { app: 1, link: 1, user: 1, client: 1 };
const half = { app: 0.5, link: 0.5, user: 0.5, client: 0.5 };

describe("budget rules", () => {
  it("takes Linkdesk's share of each limit, floored, at least 1", () => {
    expect(shareOf({ limitPerMinute: 60 }, 0.5)).toBe(30);
    expect(shareOf({ limitPerMinute: 5 }, 0.5)).toBe(2);
    expect(shareOf({ limitPerMinute: 4 }, 0.01)).toBe(1);
    expect(shareOf({ limitPerMinute: 100 }, 0.29)).toBe(29);
    expect(shareOf({ limitPerMinute: 2000 }, 1)).toBe(2000);
    for (const bad of [0, -0.5, 1.5, Number.NaN])
      expect(() => shareOf({ limitPerMinute: 60 }, bad)).toThrow(RangeError);
    expect(shareLabel(0.5)).toBe("50 %");
    expect(shareLabel(0.125)).toBe("12.5 %");
  });

  it("gives a per-link endpoint its per-link and per-app keys, each with its own share, on a window a margin wider", () => {
    const keys = keysFor(
      "POST /links/{id}/transactions/{txn_id}/enrichment",
      { ...ids, linkId: "mk_1" },
      { ...full, link: 0.5, app: 0.25 },
    );
    expect(keys).toEqual([
      {
        endpoint: "POST /links/{id}/transactions/{txn_id}/enrichment",
        scope: "link",
        scopeId: "mk_1",
        limit: 30,
        upstreamLimit: 60,
        windowMs: BUDGET_WINDOW_MS,
      },
      {
        endpoint: "POST /links/{id}/transactions/{txn_id}/enrichment",
        scope: "app",
        scopeId: "app_1",
        limit: 500,
        upstreamLimit: 2000,
        windowMs: BUDGET_WINDOW_MS,
      },
    ]);
    expect(BUDGET_WINDOW_MS).toBe(RATE_LIMIT_WINDOW_MS + WINDOW_MARGIN_MS);
    expect(keysFor("PATCH /links/{id}", { ...ids, linkId: "mk_1" }, half).map((k) => [k.scope, k.limit])).toEqual([
      ["link", 2],
      ["app", 300],
    ]);
  });

  it("applies per-link rules only with a link id and per-user rules only with a user id", () => {
    expect(keysFor("GET /links/{id}", ids, full).map((k) => k.scope)).toEqual(["app"]);
    expect(keysFor("POST /auth/token", ids, full)).toEqual([
      {
        endpoint: "POST /auth/token",
        scope: "client",
        scopeId: "client_1",
        limit: 300,
        upstreamLimit: 300,
        windowMs: BUDGET_WINDOW_MS,
      },
    ]);
    expect(keysFor("POST /link-session", ids, full).map((k) => k.scope)).toEqual(["app"]);
    expect(keysFor("POST /link-session", { ...ids, userId: "user_1" }, full).map((k) => [k.scope, k.scopeId])).toEqual([
      ["user", "user_1"],
      ["app", "app_1"],
    ]);
  });

  it("counts POST /link-session per link only for relinks", () => {
    const session = (relink: boolean) =>
      keysFor("POST /link-session", { ...ids, userId: "user_1", linkId: "mk_1", relink }, half);
    expect(session(false).map((k) => k.scope)).toEqual(["user", "app"]);
    expect(session(true).map((k) => [k.scope, k.limit])).toEqual([
      ["user", 10],
      ["app", 600],
      ["link", 6],
    ]);
    // The relink rule is the only one of the table that counts part of its endpoint's calls.
    expect(RATE_LIMITS.filter((r) => r.note)).toEqual([
      expect.objectContaining({ endpoint: "POST /link-session", scope: "link", note: "relink only" }),
    ]);
  });

  it("gives every rule of the table a key when all ids are known, and none to an unlisted endpoint", () => {
    const all = { ...ids, linkId: "mk_1", userId: "user_1", relink: true };
    const endpoints = [...new Set(RATE_LIMITS.map((r) => r.endpoint))];
    expect(endpoints.flatMap((e) => keysFor(e, all, full)).map((k) => [k.endpoint, k.scope, k.upstreamLimit])).toEqual(
      RATE_LIMITS.map((r) => [r.endpoint, r.scope, r.limitPerMinute]).sort(
        (a, b) => endpoints.indexOf(a[0] as string) - endpoints.indexOf(b[0] as string),
      ),
    );
    expect(keysFor("GET /nowhere", all, full)).toEqual([]);
  });

  it("budgets the account and institution reads the dashboard makes, as the spec's table limits them", () => {
    const link = { ...ids, linkId: "mk_1" };
    expect(keysFor("GET /links/{id}/accounts", link, half).map((k) => [k.scope, k.upstreamLimit, k.limit])).toEqual([
      ["link", 30, 15],
      ["app", 600, 300],
    ]);
    expect(
      keysFor("GET /links/{id}/accounts/{account_id}", link, half).map((k) => [k.scope, k.upstreamLimit, k.limit]),
    ).toEqual([
      ["link", 30, 15],
      ["app", 600, 300],
    ]);
    expect(keysFor("GET /institutions", ids, half).map((k) => [k.scope, k.upstreamLimit, k.limit])).toEqual([
      ["app", 30, 15],
    ]);
    expect(
      keysFor("GET /institutions/{institution_id}", ids, half).map((k) => [k.scope, k.upstreamLimit, k.limit]),
    ).toEqual([["app", 400, 200]]);
  });

  it("budgets GET /users/{id}/links, /accounts and /transactions by Linkdesk's assumed per-app rule, as the spec's table has no row for them", () => {
    for (const endpoint of ["GET /users/{id}/links", "GET /users/{id}/accounts", "GET /users/{id}/transactions"]) {
      expect(RATE_LIMITS.some((rule) => rule.endpoint === endpoint)).toBe(false);
      expect(keysFor(endpoint, { ...ids, userId: "user_1" }, half)).toEqual([
        { endpoint, scope: "app", scopeId: "app_1", limit: 300, upstreamLimit: 600, windowMs: BUDGET_WINDOW_MS },
      ]);
    }
    // An assumption only fills a gap: no assumed rule shadows an endpoint the spec's table limits.
    expect(ASSUMED_RULES.filter((assumed) => RATE_LIMITS.some((rule) => rule.endpoint === assumed.endpoint))).toEqual(
      [],
    );
  });

  it("allows one refresh per product and link per refresh interval", () => {
    const keys = refreshKeysFor("mk_1", ["accounts", "transactions", "accounts"]);
    expect(keys).toEqual([
      {
        endpoint: refreshEndpoint("accounts"),
        scope: "link",
        scopeId: "mk_1",
        limit: 1,
        upstreamLimit: 1,
        windowMs: PRODUCT_REFRESH_INTERVAL_MS.accounts + WINDOW_MARGIN_MS,
      },
      {
        endpoint: refreshEndpoint("transactions"),
        scope: "link",
        scopeId: "mk_1",
        limit: 1,
        upstreamLimit: 1,
        windowMs: PRODUCT_REFRESH_INTERVAL_MS.transactions + WINDOW_MARGIN_MS,
      },
    ]);
    expect(keys[0]?.windowMs).toBe(60 * 60_000 + 1000);
    expect(keys[1]?.windowMs).toBe(24 * 60 * 60_000 + 1000);
  });
});

describe("budget keys", () => {
  it("round-trips through its string form, with a '|' in the scope id", () => {
    const key = { endpoint: "GET /links/{id}", scope: "link" as const, scopeId: "mk|odd" };
    expect(keyString(key)).toBe("GET /links/{id}|link|mk|odd");
    expect(parseKey(keyString(key))).toEqual(key);
    expect(parseKey(keyString({ ...key, endpoint: refreshEndpoint("identity") }))).toEqual({
      ...key,
      endpoint: "POST /links/{id}/products (identity)",
    });
    expect(() => parseKey("GET /links|planet|x")).toThrow("Not a budget key");
    expect(() => parseKey("nothing")).toThrow("Not a budget key");
  });
});
