import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limiter";
import {
  expectError,
  first,
  fixtures,
  startSandbox,
  TEST_CREDENTIALS,
  type Fixtures,
  type TestSandbox,
} from "./test-support";
import { rulesFor } from "./limits";
import { linkShape } from "./wire-shapes";

const limitOf = (endpoint: string, scope: string) =>
  rulesFor(endpoint).find((rule) => rule.scope === scope)?.limitPerMinute ?? NaN;

describe("RateLimiter (sliding log)", () => {
  it("counts over a rolling minute and names the wait until the oldest call leaves the window", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(() => now);
    const limit = limitOf("GET /links/{id}", "link");
    for (let i = 0; i < limit; i++) {
      expect(limiter.check("GET /links/{id}", { link: "mk_a" }).allowed).toBe(true);
      now += 1000;
    }
    // The first call was at 1_000_000; it leaves the window at 1_060_000.
    expect(limiter.check("GET /links/{id}", { link: "mk_a" })).toMatchObject({ allowed: false, retryAfterSeconds: 30 });
    now = 1_059_001;
    expect(limiter.check("GET /links/{id}", { link: "mk_a" })).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    now = 1_060_000;
    expect(limiter.check("GET /links/{id}", { link: "mk_a" }).allowed).toBe(true);
    expect(limiter.check("GET /links/{id}", { link: "mk_a" }).allowed).toBe(false);
    expect(limiter.check("GET /links/{id}", { link: "mk_b" }).allowed).toBe(true);
  });

  it("refuses without counting, and counts an allowed call in every scope at once", () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    for (let i = 0; i < 12; i++)
      expect(limiter.check("POST /link-session", { app: "app", user: "u", link: "mk_x" }).allowed).toBe(true);
    for (let i = 0; i < 5; i++)
      expect(limiter.check("POST /link-session", { app: "app", user: "u", link: "mk_x" }).allowed).toBe(false);
    expect(limiter.counter("POST /link-session", "app", "app")).toMatchObject({ inWindow: 12, total: 12 });
    expect(limiter.counter("POST /link-session", "link", "mk_x")).toMatchObject({ inWindow: 12, refused: 5 });
    now = 60_000;
    expect(limiter.counter("POST /link-session", "user", "u")?.inWindow).toBe(0);
  });

  it("keeps memory bounded: idle keys are dropped", () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    for (let i = 0; i < 5000; i++) limiter.check("GET /links/{id}", { link: `mk_${i}`, app: "app" });
    expect(limiter.size).toBe(5001);
    now = 61_000;
    for (let i = 0; i < 10_000; i++) limiter.check("GET /links/{id}", { link: "mk_hot", app: "app" });
    expect(limiter.size).toBeLessThan(10);
  });
});

describe("rate limits over HTTP", () => {
  let t: TestSandbox;
  let seeded: Fixtures;
  beforeAll(async () => {
    t = await startSandbox({ links: 64, rateLimits: true, clock: true });
    seeded = await fixtures(t);
  });
  beforeEach(async () => {
    await t.raw("POST", "/_sandbox/reset");
  });
  afterAll(() => t.close());

  it("answers the call past a per-link limit with 429 and an exact Retry-After, and lets it in after the window", async () => {
    const id = first(seeded, "plain");
    const limit = limitOf("GET /links/{id}", "link");
    for (let i = 0; i < limit; i++) expect((await t.api("GET", `/links/${id}`)).status).toBe(200);
    t.clock.advance(10_000);
    const refused = await t.api("GET", `/links/${id}`);
    const body = expectError(refused, 429, "api_error.rate_limit_exceeded");
    expect(body.error_message).toBe("Rate limit exceeded. Use the Retry-After header value to decide when to retry.");
    expect(refused.headers.get("retry-after")).toBe("50");
    // Another link has its own allowance.
    expect((await t.api("GET", `/links/${seeded.plain?.[1]}`)).status).toBe(200);

    t.clock.advance(49_999);
    expectError(await t.api("GET", `/links/${id}`), 429, "api_error.rate_limit_exceeded");
    t.clock.advance(1);
    // Refused calls were not counted: a full allowance is available again.
    for (let i = 0; i < limit; i++) expect((await t.api("GET", `/links/${id}`)).status).toBe(200);
    linkShape.parse((await t.api("GET", `/links/${seeded.plain?.[2]}`)).json);

    const counter = t.sandbox.state.limiter.counter("GET /links/{id}", "link", id);
    expect(counter).toMatchObject({ inWindow: limit, limitPerMinute: limit, refused: 2 });
    const stats = (await t.raw("GET", "/_sandbox/stats")).json as {
      rateLimited: number;
      byEndpoint: Record<string, { requests: number; rateLimited: number }>;
    };
    expect(stats.rateLimited).toBe(2);
    expect(stats.byEndpoint["GET /links/{id}"]).toMatchObject({ requests: 2 * limit + 4, rateLimited: 2 });
  });

  it("counts POST /link-session per user, and per link for relinks only", async () => {
    const session = (user: string, existing?: string) =>
      t.api("POST", "/link-session", {
        body: {
          customer_user: { id: user },
          redirect_uri: "https://x.example/cb",
          ...(existing ? { existing_link_id: existing } : {}),
        },
      });
    for (let i = 0; i < limitOf("POST /link-session", "user"); i++)
      expect((await session("user_busy")).status).toBe(201);
    expectError(await session("user_busy"), 429, "api_error.rate_limit_exceeded");
    expect((await session("user_other")).status).toBe(201);

    const relinked = first(seeded, "error:auth_expired");
    for (let i = 0; i < limitOf("POST /link-session", "link"); i++)
      expect((await session(`user_relink_${i}`, relinked)).status).toBe(201);
    const refused = await session("user_relink_last", relinked);
    expectError(refused, 429, "api_error.rate_limit_exceeded");
    expect(Number(refused.headers.get("retry-after"))).toBe(60);
  });

  it("counts POST /auth/token per client", async () => {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: TEST_CREDENTIALS.clientId,
      client_secret: TEST_CREDENTIALS.clientSecret,
    }).toString();
    const mint = () =>
      t.raw("POST", "/auth/token", { headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: form });
    const limit = limitOf("POST /auth/token", "client");
    const statuses = await Promise.all(Array.from({ length: limit }, mint));
    expect(statuses.every((response) => response.status === 201)).toBe(true);
    expectError(await mint(), 429, "api_error.rate_limit_exceeded");
  });

  it("counts over a shorter window when told to (benchmarks), with Retry-After in that window", async () => {
    const fast = await startSandbox({ links: 64, rateLimits: true, rateLimitWindowMs: 6_000, clock: true });
    try {
      const id = first(await fixtures(fast), "plain");
      const limit = limitOf("GET /links/{id}", "link");
      for (let i = 0; i < limit; i++) expect((await fast.api("GET", `/links/${id}`)).status).toBe(200);
      const refused = await fast.api("GET", `/links/${id}`);
      expectError(refused, 429, "api_error.rate_limit_exceeded");
      expect(refused.headers.get("retry-after")).toBe("6");
      fast.clock.advance(6_000);
      expect((await fast.api("GET", `/links/${id}`)).status).toBe(200);
    } finally {
      await fast.close();
    }
  });

  it("is off with rateLimits: false", async () => {
    const open = await startSandbox({ links: 64 });
    try {
      const id = first(seeded, "plain");
      const statuses = await Promise.all(
        Array.from({ length: limitOf("GET /links/{id}", "link") + 10 }, () => open.api("GET", `/links/${id}`)),
      );
      expect(statuses.every((response) => response.status === 200)).toBe(true);
      expect(((await open.raw("GET", "/_sandbox/stats")).json as { rateLimited: number }).rateLimited).toBe(0);
    } finally {
      await open.close();
    }
  });
});
