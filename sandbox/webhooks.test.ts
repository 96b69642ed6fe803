import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, verifyDelivery, type WebhookReceiver } from "./test-receiver";
import { expectError, first, fixtures, startSandbox, type Fixtures, type TestSandbox } from "./test-support";
import { linkShape } from "./wire-shapes";

interface DeliveryView {
  delivery_token: string;
  webhook_event: string;
  link_id: string;
  url: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  payload: Record<string, unknown>;
  attempt_log: { attempt: number; status: number | null; kid: string; duration_ms: number }[];
}

type Jwks = { keys: { kid: string; alg: string; use: string; kty: string; crv: string }[] };

async function jwks(t: TestSandbox): Promise<Jwks> {
  const response = await t.raw("GET", "/.well-known/jwks.json");
  expect(response.status).toBe(200);
  return response.json as Jwks;
}

async function deliveries(t: TestSandbox, linkId?: string): Promise<DeliveryView[]> {
  const response = await t.raw("GET", `/_sandbox/webhooks${linkId ? `?link_id=${linkId}` : ""}`);
  expect(response.status).toBe(200);
  return (response.json as { deliveries: DeliveryView[] }).deliveries;
}

async function settled(t: TestSandbox, linkId: string, count: number): Promise<DeliveryView[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const list = await deliveries(t, linkId);
    if (list.length >= count && list.every((delivery) => delivery.state !== "pending" && delivery.state !== "retrying"))
      return list;
    if (Date.now() > deadline)
      throw new Error(`deliveries of ${linkId} did not settle: ${JSON.stringify(list.map((d) => d.state))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function setWebhook(t: TestSandbox, linkId: string, webhook: string | null): Promise<void> {
  const response = await t.api("PATCH", `/links/${linkId}`, { body: { webhook } });
  expect(response.status).toBe(200);
  expect(linkShape.parse(response.json).webhook ?? null).toBe(webhook);
}

describe("webhook deliveries", () => {
  let t: TestSandbox;
  let seeded: Fixtures;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startSandbox({ links: 128, webhookRetryBaseMs: 20, refreshDelayMs: 0 });
    seeded = await fixtures(t);
    receiver = await startReceiver();
  });
  afterEach(() => {
    receiver.answer = () => 200;
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it("are signed: the JWT's kid is in the JWKS, its ES256 signature verifies and it hashes the exact body", async () => {
    const linkId = seeded.plain![0]!;
    await setWebhook(t, linkId, receiver.url("/signed"));
    const changed = await t.raw("POST", `/_sandbox/links/${linkId}/state`, {
      body: JSON.stringify({ state: "error", error_code: "auth_expired" }),
    });
    expect(changed.status).toBe(200);
    const [request] = await receiver.waitFor(1, "/signed");
    const keys = await jwks(t);
    expect(keys.keys).toHaveLength(1);
    expect(keys.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    const { header, claims } = verifyDelivery(request!, keys);
    expect(header.kid).toBe(keys.keys[0]!.kid);
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(60);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["moneykit-delivery-attempt"]).toBe("1");
    expect(request!.headers["moneykit-delivery-token"]).toBe(
      (changed.json as { delivery_token: string }).delivery_token,
    );
    expect(request!.body).toEqual({
      webhook_major_version: 1,
      webhook_minor_version: 0,
      webhook_idempotency_key: expect.any(String),
      webhook_timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      link_id: linkId,
      link_tags: expect.any(Array),
      webhook_event: "link.state_changed",
      state: "error",
      error: "auth_expired",
      error_message: expect.any(String),
    });
    // A body changed on the way no longer matches the signature's hash.
    expect(() => verifyDelivery({ ...request!, rawBody: request!.rawBody.replace("error", "errors") }, keys)).toThrow(
      /request_body_sha256/,
    );
    const [recorded] = await settled(t, linkId, 1);
    expect(recorded).toMatchObject({
      state: "delivered",
      attempts: 1,
      last_status: 200,
      webhook_event: "link.state_changed",
      url: receiver.url("/signed"),
    });
  });

  it("a receiver answering 500 gets the same body again, attempt 1 to 5, after growing waits, then the delivery fails", async () => {
    const linkId = seeded.plain![1]!;
    await setWebhook(t, linkId, receiver.url("/failing"));
    receiver.answer = (request) => (request.path === "/failing" ? 500 : 200);
    await t.raw("POST", `/_sandbox/links/${linkId}/state`, { body: JSON.stringify({ state: "connected" }) });
    const requests = await receiver.waitFor(5, "/failing");
    expect(requests.map((request) => request.headers["moneykit-delivery-attempt"])).toEqual(["1", "2", "3", "4", "5"]);
    expect(new Set(requests.map((request) => request.rawBody)).size).toBe(1);
    expect(new Set(requests.map((request) => request.headers["moneykit-delivery-token"])).size).toBe(1);
    const keys = await jwks(t);
    for (const request of requests) verifyDelivery(request, keys);
    // Exponential back-off from a 20 ms base: 20, 40, 80, 160 ms (timers may fire a little early, never much).
    const gaps = requests.slice(1).map((request, i) => request.receivedAt - requests[i]!.receivedAt);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(20 * 2 ** i - 5));
    const [recorded] = await settled(t, linkId, 1);
    expect(recorded).toMatchObject({ state: "failed", attempts: 5, last_status: 500 });
    expect(recorded!.attempt_log.map((attempt) => attempt.status)).toEqual([500, 500, 500, 500, 500]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received.filter((request) => request.path === "/failing")).toHaveLength(5);
  });

  it("a delivery that succeeds on a later attempt stops there; an unreachable receiver is retried too", async () => {
    const linkId = seeded.plain![2]!;
    await setWebhook(t, linkId, receiver.url("/flaky"));
    let calls = 0;
    receiver.answer = (request) => (request.path === "/flaky" && ++calls <= 2 ? 503 : 200);
    await t.raw("POST", `/_sandbox/links/${linkId}/state`, { body: JSON.stringify({ state: "connected" }) });
    const [recorded] = await settled(t, linkId, 1);
    expect(recorded).toMatchObject({ state: "delivered", attempts: 3, last_status: 200 });

    const closed = seeded.plain![3]!;
    // Port 9 (discard) on loopback: nothing listens, every attempt is a connection error.
    await setWebhook(t, closed, "http://127.0.0.1:9/hook");
    await t.raw("POST", `/_sandbox/links/${closed}/state`, { body: JSON.stringify({ state: "connected" }) });
    const [unreachable] = await settled(t, closed, 1);
    expect(unreachable).toMatchObject({ state: "failed", attempts: 5, last_status: null });
    expect(unreachable!.last_error).toBeTruthy();
  });

  it("go out after the answer that caused them, one link's in order even when the receiver is slow", async () => {
    const linkId = seeded.plain![4]!;
    await setWebhook(t, linkId, receiver.url("/slow"));
    receiver.answer = async (request) => {
      if (request.path === "/slow") await new Promise((resolve) => setTimeout(resolve, 400));
      return 200;
    };
    const keys = ["first", "second", "third"];
    for (const key of keys) {
      const started = Date.now();
      const response = await t.api("POST", `/webhooks/test/link/${linkId}`, {
        body: { webhook_event: "transactions.updates_available", webhook_idempotency_key: key },
      });
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(300);
    }
    const requests = await receiver.waitFor(3, "/slow");
    expect(requests.map((request) => request.body.webhook_idempotency_key)).toEqual(keys);
    // Each waited for the answer to the one before.
    for (let i = 1; i < requests.length; i++)
      expect(requests[i]!.receivedAt - requests[i - 1]!.receivedAt).toBeGreaterThanOrEqual(390);
    // Each attempt records how long the receiver took to answer.
    const recorded = await settled(t, linkId, 3);
    for (const delivery of recorded) {
      expect(delivery.attempt_log).toHaveLength(1);
      expect(delivery.attempt_log[0]!.duration_ms).toBeGreaterThanOrEqual(390);
      expect(delivery.attempt_log[0]!.duration_ms).toBeLessThan(5000);
    }
  });

  it("nothing goes to a link without a webhook; the seed's display webhooks (RFC 2606 names) are recorded as skipped", async () => {
    const before = receiver.received.length;
    const withoutWebhook = seeded.plain![5]!;
    await setWebhook(t, withoutWebhook, null);
    expect((await t.api("DELETE", `/links/${withoutWebhook}`)).status).toBe(204);
    expect(await deliveries(t, withoutWebhook)).toEqual([]);

    const seededWithWebhook = await findSeeded(t, seeded, (link) =>
      /^https:\/\/hooks\.acme\.example\//.test(link.webhook ?? ""),
    );
    expect((await t.api("DELETE", `/links/${seededWithWebhook.link_id}`)).status).toBe(204);
    const [skipped] = await deliveries(t, seededWithWebhook.link_id);
    expect(skipped).toMatchObject({ webhook_event: "link.state_changed", state: "skipped", attempts: 0 });
    expect(skipped!.payload).toMatchObject({ state: "deleted" });
    expect(receiver.received.length).toBe(before);
  });

  it("transactions.updates_available follows an import of transactions, not a correction", async () => {
    const hook = receiver.url("/imports");
    const imported = await t.api("POST", "/links/import", {
      body: {
        customer_user: { id: "webhook_user" },
        institution_id: "chase",
        webhook: hook,
        link_tags: ["team:ops"],
        accounts: [{ account_id: "a1", name: "Checking", type: "checking", balances: { current: 10 } }],
        transactions: [
          { account_id: "a1", transaction_id: "t1", amount: "-4.20", date: "2026-10-30", description: "Coffee" },
        ],
      },
    });
    expect(imported.status).toBe(200);
    const linkId = (imported.json as { link_id: string }).link_id;
    await receiver.waitFor(1, "/imports");
    const more = await t.api("POST", `/links/${linkId}/import/transactions`, {
      body: {
        transactions: [
          { account_id: "a1", transaction_id: "t2", amount: "-9.99", date: "2026-10-31", description: "Lunch" },
        ],
      },
    });
    expect(more.status).toBe(200);
    await receiver.waitFor(2, "/imports");
    const page = await t.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01`);
    const transactionId = (page.json as { transactions: { transaction_id: string }[] }).transactions[0]!.transaction_id;
    expect(
      (
        await t.api("POST", `/links/${linkId}/transactions/${transactionId}/enrichment`, {
          body: { category: "food_and_drink" },
        })
      ).status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const got = receiver.received.filter((request) => request.path === "/imports");
    expect(got.map((request) => request.body.webhook_event)).toEqual([
      "transactions.updates_available",
      "transactions.updates_available",
    ]);
    expect(got[0]!.body).toMatchObject({
      link_id: linkId,
      link_tags: ["team:ops"],
      webhook_major_version: 1,
      webhook_minor_version: 0,
    });
  });

  it("a finished link session and its token exchange each tell the session's webhook the new state", async () => {
    const hook = receiver.url("/sessions");
    const session = await t.api("POST", "/link-session", {
      body: { customer_user: { id: "webhook_user" }, webhook: hook, redirect_uri: "https://app.example/return" },
    });
    expect(session.status).toBe(201);
    const token = (session.json as { link_session_token: string }).link_session_token;
    const completed = await t.raw("POST", `/_sandbox/link-sessions/${token}/complete`, { body: "{}" });
    const { exchangeable_token: exchangeable, link_id: linkId } = completed.json as {
      exchangeable_token: string;
      link_id: string;
    };
    expect(
      (await t.api("POST", "/link-session/exchange-token", { body: { exchangeable_token: exchangeable } })).status,
    ).toBe(201);
    const list = await settled(t, linkId, 5);
    expect(
      list.map((delivery) => [delivery.webhook_event, delivery.payload.state, delivery.payload.product ?? null]),
    ).toEqual([
      ["link.state_changed", "awaiting_token_exchange", null],
      ["link.state_changed", "connected", null],
      ["link.product_refresh", "completed", "accounts"],
      ["link.product_refresh", "completed", "transactions"],
      ["link.product_refresh", "completed", "enrichment"],
    ]);
  });

  it("a product refresh step on demand: failed carries the product's error", async () => {
    const linkId = seeded.plain![6]!;
    await setWebhook(t, linkId, receiver.url("/steps"));
    const failed = await t.raw("POST", `/_sandbox/links/${linkId}/products/accounts/refresh`, {
      body: JSON.stringify({
        state: "failed",
        error_code: "timeout",
        error_message: "The institution did not answer.",
      }),
    });
    expect(failed.status).toBe(200);
    expect((failed.json as { link: { products: { accounts: unknown } } }).link.products.accounts).toMatchObject({
      error_code: "timeout",
      error_message: "The institution did not answer.",
    });
    const [request] = await receiver.waitFor(1, "/steps");
    expect(request!.body).toMatchObject({
      webhook_event: "link.product_refresh",
      product: "accounts",
      state: "failed",
      error_message: "The institution did not answer.",
      state_changed_at: expect.any(String),
    });
    expect(
      (
        await t.raw("POST", `/_sandbox/links/${linkId}/products/stocks/refresh`, {
          body: JSON.stringify({ state: "completed" }),
        })
      ).status,
    ).toBe(422);
  });
});

async function findSeeded(
  t: TestSandbox,
  seeded: Fixtures,
  wanted: (link: { link_id: string; webhook?: string | null }) => boolean,
) {
  for (const id of seeded.plain ?? []) {
    const link = linkShape.parse((await t.api("GET", `/links/${id}`)).json);
    if (wanted(link)) return link;
  }
  throw new Error("no seeded link fits");
}

describe("signing key rotation", () => {
  it("signs with a new kid from the rotation on, and lists the old one until its retention ends", async () => {
    const t = await startSandbox({ links: 64, clock: true, webhookKeyRetentionMs: 3_600_000 });
    const receiver = await startReceiver();
    try {
      const seeded = await fixtures(t);
      const linkId = first(seeded, "plain");
      await setWebhook(t, linkId, receiver.url());
      const before = await jwks(t);
      const rotated = await t.raw("POST", "/_sandbox/webhooks/rotate-key");
      expect(rotated.status).toBe(200);
      const { kid, retired } = rotated.json as { kid: string; retired: string };
      expect(retired).toBe(before.keys[0]!.kid);
      expect(kid).not.toBe(retired);
      const after = await jwks(t);
      expect(after.keys.map((key) => key.kid)).toEqual([kid, retired]);

      await t.api("POST", `/webhooks/test/link/${linkId}`, {
        body: { webhook_event: "link.state_changed", webhook_idempotency_key: "after-rotation" },
      });
      const [request] = await receiver.waitFor(1);
      expect(verifyDelivery(request!, after).header.kid).toBe(kid);
      // A receiver still holding the old set cannot verify it: it must fetch the JWKS again for the new kid.
      expect(() => verifyDelivery(request!, before)).toThrow(/not in the JWKS/);

      t.clock.advance(3_600_000 - 1);
      expect((await jwks(t)).keys.map((key) => key.kid)).toEqual([kid, retired]);
      t.clock.advance(1);
      expect((await jwks(t)).keys.map((key) => key.kid)).toEqual([kid]);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it("keeps the old key a day by default", async () => {
    const t = await startSandbox({ links: 10, clock: true });
    try {
      const { retired, retiredKeyListedUntil } = (await t.raw("POST", "/_sandbox/webhooks/rotate-key")).json as {
        retired: string;
        retiredKeyListedUntil: string;
      };
      expect(Date.parse(retiredKeyListedUntil) - t.clock.now).toBe(24 * 3_600_000);
      t.clock.advance(23 * 3_600_000);
      expect((await jwks(t)).keys.map((key) => key.kid)).toContain(retired);
    } finally {
      await t.close();
    }
  });
});

describe("POST /webhooks/test/link/{id}", () => {
  let t: TestSandbox;
  let seeded: Fixtures;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startSandbox({ links: 128, rateLimits: true, clock: true });
    seeded = await fixtures(t);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const trigger = (linkId: string, key: string, event = "link.state_changed") =>
    t.api("POST", `/webhooks/test/link/${linkId}`, { body: { webhook_event: event, webhook_idempotency_key: key } });

  it("is 400 link_error.bad_config for a link without a webhook, 404 / 410 for unknown and deleted links", async () => {
    const linkId = seeded.plain![10]!;
    await setWebhook(t, linkId, null);
    const refused = await trigger(linkId, "k");
    expectError(refused, 400, "link_error.bad_config");
    expectError(await trigger("mk_nope", "k"), 404, "link_error.not_found");
    expectError(await trigger(first(seeded, "deleted"), "k"), 410, "link_error.deleted");
    const invalid = await t.api("POST", `/webhooks/test/link/${linkId}`, {
      body: { webhook_event: "link.renamed", webhook_idempotency_key: "k" },
    });
    expectError(invalid, 422, "api_error.request.validation_failed");
  });

  it("sends the event asked for under the caller's idempotency key and answers its delivery token", async () => {
    const linkId = seeded.plain![11]!;
    await setWebhook(t, linkId, receiver.url("/test"));
    const events = [
      "link.state_changed",
      "transactions.updates_available",
      "link.product_refresh",
      "product.state_changed",
    ];
    const tokens: string[] = [];
    for (const [i, event] of events.entries()) {
      const response = await trigger(linkId, `key-${i}`, event);
      expect(response.status).toBe(200);
      tokens.push((response.json as { delivery_token: string }).delivery_token);
    }
    const requests = await receiver.waitFor(4, "/test");
    expect(
      requests.map((request) => [
        request.body.webhook_event,
        request.body.webhook_idempotency_key,
        request.headers["moneykit-delivery-token"],
      ]),
    ).toEqual(events.map((event, i) => [event, `key-${i}`, tokens[i]]));
    expect(requests[2]!.body).toMatchObject({ product: "accounts", state: "completed" });
  });

  it("is limited to 5 calls a minute per link and 20 per app", async () => {
    const links = seeded.plain!.slice(12, 18);
    for (const linkId of links) await setWebhook(t, linkId, receiver.url("/limits"));
    t.clock.advance(60_000);
    for (let i = 0; i < 5; i++) expect((await trigger(links[0]!, `a${i}`)).status).toBe(200);
    const perLink = await trigger(links[0]!, "a5");
    expectError(perLink, 429, "api_error.rate_limit_exceeded");
    expect(Number(perLink.headers.get("retry-after"))).toBeGreaterThan(0);
    for (const linkId of links.slice(1, 4))
      for (let i = 0; i < 5; i++) expect((await trigger(linkId, `b${i}`)).status).toBe(200);
    expectError(await trigger(links[4]!, "c"), 429, "api_error.rate_limit_exceeded");
    t.clock.advance(60_000);
    expect((await trigger(links[4]!, "d")).status).toBe(200);
  });
});
