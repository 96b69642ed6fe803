import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startReceiver, type WebhookReceiver } from "./test-receiver";
import {
  expectError,
  first,
  fixtures,
  startSandbox,
  validationLocations,
  type Fixtures,
  type TestSandbox,
} from "./test-support";
import { type WireLink, linkShape } from "./wire-shapes";

let t: TestSandbox;
let seeded: Fixtures;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await startSandbox({ links: 128, rateLimits: true, clock: true, refreshDelayMs: 0 });
  seeded = await fixtures(t);
  receiver = await startReceiver();
});
beforeEach(async () => {
  await t.raw("POST", "/_sandbox/reset");
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const patch = (linkId: string, body: unknown) => t.api("PATCH", `/links/${linkId}`, { body });
/** Waits until the refresh started now has completed (it completes on a timer, after the 202). */
async function completed(linkId: string, product: "accounts" | "transactions"): Promise<void> {
  const now = new Date(t.clock.now).toISOString();
  for (let i = 0; i < 200; i++) {
    if ((await getLink(linkId)).products[product]?.refreshed_at === now) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`${product} of ${linkId} did not complete`);
}

const getLink = async (linkId: string): Promise<WireLink> =>
  linkShape.parse((await t.api("GET", `/links/${linkId}`)).json);

describe("PATCH /links/{id}", () => {
  it("sets the webhook and the tags, answers the whole link, and null removes the webhook", async () => {
    const linkId = first(seeded, "plain");
    const updated = await patch(linkId, {
      webhook: "https://hooks.example.org/links/1",
      link_tags: ["team:ops", "9lives"],
    });
    expect(updated.status).toBe(200);
    const link = linkShape.parse(updated.json);
    expect(link).toMatchObject({
      link_id: linkId,
      webhook: "https://hooks.example.org/links/1",
      link_tags: ["team:ops", "9lives"],
    });
    expect(await getLink(linkId)).toEqual(link);
    // Leaving a field out leaves it as it is.
    expect(linkShape.parse((await patch(linkId, { link_tags: [] })).json)).toMatchObject({
      webhook: "https://hooks.example.org/links/1",
      link_tags: [],
    });
    expect(linkShape.parse((await patch(linkId, { webhook: null })).json).webhook ?? null).toBeNull();
    expect((await getLink(linkId)).webhook ?? null).toBeNull();
  });

  it("refuses a tag not starting with a letter or digit or of 100 characters, and a webhook that is empty or not http(s)", async () => {
    const linkId = seeded.plain![1]!;
    const cases: [unknown, string[]][] = [
      [{ link_tags: ["ok", "-bad"] }, ["body.link_tags.1"]],
      [{ link_tags: ["x".repeat(100)] }, ["body.link_tags.0"]],
      [{ webhook: "" }, ["body.webhook"]],
      [{ webhook: "ftp://hooks.example.org/x" }, ["body.webhook"]],
      [{ webhook: `https://hooks.example.org/${"x".repeat(65_536)}` }, ["body.webhook"]],
    ];
    for (const [body, locations] of cases) {
      t.clock.advance(60_000);
      const response = await patch(linkId, body);
      expectError(response, 422, "api_error.request.validation_failed");
      expect(validationLocations(response)).toEqual(locations);
    }
    expect(linkShape.parse((await patch(linkId, { link_tags: ["x".repeat(99)] })).json).link_tags).toEqual([
      "x".repeat(99),
    ]);
  });

  it("answers 404 for an unknown link and 410 for a deleted one", async () => {
    expectError(await patch("mk_nope", { link_tags: [] }), 404, "link_error.not_found");
    expectError(await patch(first(seeded, "deleted"), { link_tags: [] }), 410, "link_error.deleted");
  });

  it("is limited to 4 calls a minute per link", async () => {
    const linkId = seeded.plain![2]!;
    for (let i = 0; i < 4; i++) expect((await patch(linkId, { link_tags: [`n${i}`] })).status).toBe(200);
    const refused = await patch(linkId, { link_tags: ["n4"] });
    expectError(refused, 429, "api_error.rate_limit_exceeded");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await patch(seeded.plain![3]!, { link_tags: ["other"] })).status).toBe(200);
  });
});

describe("POST /links/{id}/products", () => {
  const refresh = (linkId: string, products: unknown) =>
    t.api("POST", `/links/${linkId}/products`, { body: { products } });

  it("answers 202 with the link, and the webhook hears pending then completed for each product", async () => {
    const linkId = first(seeded, "plain");
    expect((await patch(linkId, { webhook: receiver.url("/refresh") })).status).toBe(200);
    const started = await refresh(linkId, ["accounts", "transactions"]);
    expect(started.status).toBe(202);
    const now = new Date(t.clock.now).toISOString();
    expect(linkShape.parse(started.json).products.accounts).toMatchObject({ last_attempted_at: now });
    const requests = await receiver.waitFor(4, "/refresh");
    expect(requests.map((request) => [request.body.webhook_event, request.body.product, request.body.state])).toEqual([
      ["link.product_refresh", "accounts", "pending"],
      ["link.product_refresh", "transactions", "pending"],
      ["link.product_refresh", "accounts", "completed"],
      ["link.product_refresh", "transactions", "completed"],
    ]);
    expect(requests[0]!.body.state_changed_at).toBe(now);
    const link = await getLink(linkId);
    expect(link.products.accounts).toMatchObject({ refreshed_at: now, last_attempted_at: now });
    expect(link.products.transactions).toMatchObject({ refreshed_at: now, last_enriched: now });
  });

  it("refuses a product refreshed too recently with 429 and the Retry-After of the last one allowed again", async () => {
    const linkId = seeded.plain![1]!;
    expect((await refresh(linkId, ["accounts"])).status).toBe(202);
    await completed(linkId, "accounts");
    const again = await refresh(linkId, ["accounts"]);
    expectError(again, 429, "api_error.rate_limit_exceeded");
    expect(again.headers.get("retry-after")).toBe("3600");
    expect((again.json as { error_message: string }).error_message).toMatch(/accounts/);

    t.clock.advance(3_600_000 - 1000);
    expect((await refresh(linkId, ["accounts"])).headers.get("retry-after")).toBe("1");
    t.clock.advance(1000);
    expect((await refresh(linkId, ["accounts"])).status).toBe(202);
    await completed(linkId, "accounts");

    // Every other product: once a day. Asked together, the wait is the longest of them.
    expect((await refresh(linkId, ["transactions"])).status).toBe(202);
    await completed(linkId, "transactions");
    t.clock.advance(3_600_000);
    const both = await refresh(linkId, ["accounts", "transactions"]);
    expectError(both, 429, "api_error.rate_limit_exceeded");
    expect(both.headers.get("retry-after")).toBe(String(23 * 3600));
  });

  it("answers 403 for a product the link lacks, 422 for a link not ready or in error, and 422 for an empty or unknown list", async () => {
    expectError(
      await refresh(first(seeded, "no_transactions_product"), ["transactions"]),
      403,
      "link_error.forbidden_action",
    );
    const connecting = await refresh(first(seeded, "connecting"), ["accounts"]);
    expectError(connecting, 422, "link_error.bad_state");
    expect(connecting.json).toMatchObject({ link_error_code: "link_not_ready" });
    const broken = await refresh(first(seeded, "error:auth_expired"), ["accounts"]);
    expectError(broken, 422, "link_error.bad_state");
    expect(broken.json).toMatchObject({ link_error_code: "auth_expired" });
    expectError(await refresh(first(seeded, "deleted"), ["accounts"]), 410, "link_error.deleted");
    expectError(await refresh("mk_nope", ["accounts"]), 404, "link_error.not_found");
    for (const products of [[], ["stocks"]]) {
      const response = await refresh(first(seeded, "plain"), products);
      expectError(response, 422, "api_error.request.validation_failed");
      expect(validationLocations(response)[0]).toMatch(/^body\.products/);
    }
  });
});
