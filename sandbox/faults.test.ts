import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseFaultHeader } from "./faults";
import { roleOfSlot, seedSkeletons } from "./seed-links";
import { DEFAULT_ANCHOR_DATE } from "./server";
import { expectError, first, fixtures, startSandbox, type Fixtures, type TestSandbox } from "./test-support";
import { linkShape, linksPageShape } from "./wire-shapes";

let t: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  t = await startSandbox({ links: 64 });
  seeded = await fixtures(t);
});
beforeEach(async () => {
  expect((await t.raw("POST", "/_sandbox/reset")).status).toBe(200);
});
afterAll(() => t.close());

const setFaults = async (settings: Record<string, unknown>) => {
  const response = await t.raw("POST", "/_sandbox/faults", {
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(settings),
  });
  expect(response.status).toBe(200);
};
const withFault = (header: string) => ({ headers: { "X-Sandbox-Fault": header } });

describe("fault injection", () => {
  it("adds latency", async () => {
    const started = performance.now();
    expect((await t.api("GET", "/links?limit=500", withFault("latencyMs=150"))).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("handles a slow call even when the client gave up waiting (latencyMs), as a busy server would", async () => {
    await setFaults({ latencyMs: 400, paths: ["/enrichment"] });
    const link = first(seeded, "plain");
    const txn = (
      (await t.api("GET", `/links/${link}/transactions?size=1`)).json as { transactions: { transaction_id: string }[] }
    ).transactions[0]!;
    const path = `/links/${link}/transactions/${txn.transaction_id}/enrichment`;
    const headers = { ...(await t.authHeaders()), "Content-Type": "application/json" };
    const gaveUp = fetch(`${t.base}${path}`, {
      method: "POST",
      headers,
      body: JSON.stringify({ category: "charity" }),
      signal: AbortSignal.timeout(100),
    });
    await expect(gaveUp).rejects.toThrow();
    await expect
      .poll(
        async () =>
          ((await t.raw("GET", "/_sandbox/stats")).json as { applied: Record<string, number> }).applied[`POST ${path}`],
        { timeout: 5_000 },
      )
      .toBe(1);
  });

  it("answers a chosen 5xx with the api_error.internal envelope, until cleared", async () => {
    await setFaults({ status: 502 });
    expect((await t.raw("GET", "/_sandbox/faults")).json).toEqual({ settings: { status: 502 }, remaining: null });
    expectError(await t.api("GET", "/links"), 502, "api_error.internal");
    expect((await t.raw("DELETE", "/_sandbox/faults")).status).toBe(200);
    expect((await t.api("GET", "/links")).status).toBe(200);
    expectError(await t.api("GET", "/links", withFault("status=504")), 504, "api_error.internal");
  });

  it("fails a share of calls with 503 (failRate)", async () => {
    await setFaults({ failRate: 1 });
    expectError(await t.api("GET", "/links"), 503, "api_error.internal");
    await setFaults({ failRate: 0.5 });
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () => t.api("GET", `/links/${first(seeded, "plain")}`).then((r) => r.status)),
    );
    const failed = statuses.filter((status) => status === 503).length;
    expect(failed).toBeGreaterThan(60);
    expect(failed).toBeLessThan(140);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
  });

  it("sends a 200 whose body is not valid JSON (malformed)", async () => {
    const response = await t.api("GET", `/links/${first(seeded, "plain")}`, withFault("malformed"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(() => JSON.parse(response.text) as unknown).toThrow();
  });

  it("answers every call with 429 and Retry-After (rateLimitStorm), counted in the stats", async () => {
    await setFaults({ rateLimitStorm: true });
    const refused = await t.api("GET", "/links");
    expectError(refused, 429, "api_error.rate_limit_exceeded");
    expect(refused.headers.get("retry-after")).toBe("1");
    await t.raw("DELETE", "/_sandbox/faults");
    const storm = await t.api("GET", "/links", withFault("rateLimitStorm=7"));
    expect(storm.headers.get("retry-after")).toBe("7");
    expect(((await t.raw("GET", "/_sandbox/stats")).json as { rateLimited: number }).rateLimited).toBe(2);
  });

  it("sends the storm's Retry-After as an HTTP-date when asked (retryAfterDate), never earlier than the seconds", async () => {
    await setFaults({ rateLimitStorm: 3, retryAfterDate: true });
    const sentAt = Date.now();
    const refused = await t.api("GET", "/links");
    expectError(refused, 429, "api_error.rate_limit_exceeded");
    const header = refused.headers.get("retry-after")!;
    expect(header).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(Date.parse(header)).toBeGreaterThanOrEqual(sentAt + 3_000);
    expect(Date.parse(header) % 1_000).toBe(0);
    expect(parseFaultHeader("rateLimitStorm=2; retryAfterDate")).toEqual({ rateLimitStorm: 2, retryAfterDate: true });
  });

  it("expires the tokens in use (expireTokens): one fresh token and a retry succeed", async () => {
    const old = await t.token();
    await setFaults({ expireTokens: true });
    const expired = await t.raw("GET", "/links", { headers: await t.authHeaders(old) });
    expectError(expired, 401, "api_error.auth.expired_access_token");
    const fresh = await t.token();
    expect((await t.raw("GET", "/links", { headers: await t.authHeaders(fresh) })).status).toBe(200);
    expect((await t.raw("GET", "/links", { headers: await t.authHeaders(fresh) })).status).toBe(200);

    const perRequest = await t.token();
    const headers = { ...(await t.authHeaders(perRequest)), "X-Sandbox-Fault": "expireTokens" };
    expectError(await t.raw("GET", "/links", { headers }), 401, "api_error.auth.expired_access_token");
  });

  it("limits faults to matching paths; /auth/token only when a path names it", async () => {
    await setFaults({ status: 500, paths: ["/transactions"] });
    expect((await t.api("GET", `/links/${first(seeded, "plain")}`)).status).toBe(200);
    expectError(await t.api("GET", `/links/${first(seeded, "plain")}/transactions`), 500, "api_error.internal");

    await setFaults({ status: 503 });
    expect((await t.token()).length).toBeGreaterThan(0);
    await setFaults({ status: 503, paths: ["/auth/token"] });
    const refused = await t.raw("POST", "/auth/token", { body: "grant_type=client_credentials" });
    expectError(refused, 503, "api_error.internal");
  });

  it("applies to the next N matching calls only (count)", async () => {
    await setFaults({ status: 500, count: 2, paths: ["/links"] });
    expect((await t.api("GET", "/links")).status).toBe(500);
    expect(((await t.raw("GET", "/_sandbox/faults")).json as { remaining: number }).remaining).toBe(1);
    expect((await t.api("GET", "/links")).status).toBe(500);
    expect((await t.api("GET", "/links")).status).toBe(200);
    expect((await t.raw("GET", "/_sandbox/faults")).json).toEqual({ settings: null, remaining: null });
  });

  it("never faults /_sandbox routes", async () => {
    await setFaults({ status: 500, paths: ["/"] });
    expect((await t.raw("GET", "/_sandbox/stats")).status).toBe(200);
    expect((await t.raw("GET", "/_sandbox/fixtures", withFault("status=500"))).status).toBe(200);
  });

  it("refuses an unreadable fault header (400) and invalid settings (422)", async () => {
    expectError(await t.api("GET", "/links", withFault("explode")), 400, "api_error.request.invalid_fault_header");
    expectError(await t.api("GET", "/links", withFault("status=200")), 400, "api_error.request.invalid_fault_header");
    const invalid = await t.raw("POST", "/_sandbox/faults", {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ failRate: 2 }),
    });
    expectError(invalid, 422, "api_error.request.validation_failed");
  });

  it("parses the header syntax", () => {
    expect(parseFaultHeader("latencyMs=250, malformed; rateLimitStorm=5")).toEqual({
      latencyMs: 250,
      malformed: true,
      rateLimitStorm: 5,
    });
    expect(parseFaultHeader("status")).toEqual({ status: 503 });
    expect(parseFaultHeader('{"failRate":0.25}')).toEqual({ failRate: 0.25 });
    expect(() => parseFaultHeader("count=2")).toThrow(/count/);
  });
});

describe("POST /_sandbox/reset", () => {
  it("restores the seeded state and clears faults and rate counters", async () => {
    const id = first(seeded, "plain");
    expect((await t.api("DELETE", `/links/${id}`)).status).toBe(204);
    const imported = linkShape.parse(
      (await t.api("POST", "/links/import", { body: { customer_user: { id: "u" }, institution_id: "chase" } })).json,
    );
    await setFaults({ latencyMs: 1, paths: ["/nothing-matches"] });
    t.sandbox.state.limiter.check("GET /links/{id}", { link: id });

    const reset = await t.raw("POST", "/_sandbox/reset");
    expect(reset.json).toEqual({ reset: true, links: 64 });
    expect(linkShape.parse((await t.api("GET", `/links/${id}`)).json).state).toBe("connected");
    expectError(await t.api("GET", `/links/${imported.link_id}`), 404, "link_error.not_found");
    expect((await t.raw("GET", "/_sandbox/faults")).json).toEqual({ settings: null, remaining: null });
    expect(t.sandbox.state.limiter.counter("GET /links/{id}", "link", id)).toBeUndefined();
    // The seed's active links again (the listing leaves out links in error, connecting, awaiting exchange or deleted).
    const active = seedSkeletons(1, 64, Date.parse(`${DEFAULT_ANCHOR_DATE}T00:00:00Z`)).filter(
      (skeleton) =>
        !["error", "connecting", "awaiting_token_exchange", "deleted"].includes(roleOfSlot(skeleton.slot).kind),
    );
    expect(
      linksPageShape.parse((await t.api("GET", "/links?limit=500")).json).links.map((link) => link.link_id),
    ).toEqual(active.map((skeleton) => skeleton.id));
  });
});
