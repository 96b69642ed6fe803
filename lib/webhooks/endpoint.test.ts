import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { SigningKeys } from "../../sandbox/webhook-signing";
import type { Database } from "../db/client";
import { webhookEvents } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { WebhookKeySource } from "./keys";

// The receiver as the upstream reaches it in a running dashboard: POST /api/webhooks/upstream on the server Next.js
// listens with, answered beside Next.js (endpoint.ts, lib/http/direct-routes.ts). Every other request still reaches
// the server's own handler; the door's refusals that apply to this path come in the door's words; the sender's address
// is the connection's unless trusted proxies are configured.

const env = {
  WEBHOOK_MAX_AGE_S: 300,
  WEBHOOK_RATE_PER_SECOND: 10_000,
  TRUSTED_PROXY_HOPS: 0,
  AUTH_URL: undefined as string | undefined,
};
let database: Database;
let clock = Date.now();
const signer = new SigningKeys(() => clock, 24 * 60 * 60_000);
const kicked = vi.fn();

vi.mock("../env", async (importOriginal) => ({ ...(await importOriginal<object>()), getEnv: () => env }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));
vi.mock("./processor", () => ({ kickWebhookProcessor: kicked }));
vi.mock("./keys-instance", () => {
  const source = new WebhookKeySource({
    fetchKeys: async () => signer.jwks() as unknown as { keys: Record<string, unknown>[] },
  });
  return { webhookKeys: () => source };
});
vi.mock("../logger", () => {
  const child = { info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined };
  return { logger: () => ({ ...child, child: () => child }) };
});

const { WEBHOOK_PATH, serveWebhooksDirectly } = await import("./endpoint");
const [target] = withTestDatabases();

let serial = 0;
function signedEvent(fields: Record<string, unknown> = {}) {
  serial++;
  const body = JSON.stringify({
    webhook_major_version: 1,
    webhook_minor_version: 0,
    webhook_idempotency_key: `direct-${serial}-${Math.random().toString(36).slice(2)}`,
    webhook_timestamp: new Date(clock).toISOString(),
    link_id: `mk_direct_${serial}`,
    link_tags: [],
    webhook_event: "link.state_changed",
    state: "connected",
    error: null,
    ...fields,
  });
  return {
    body,
    key: (JSON.parse(body) as { webhook_idempotency_key: string }).webhook_idempotency_key,
    signature: signer.signatureFor(body),
  };
}

describe("the webhook receiver beside Next.js", () => {
  let server: Server;
  let base = "";
  const reachedNext: string[] = [];
  beforeAll(async () => {
    database = target!.database;
    serveWebhooksDirectly();
    // Stands for Next.js's request handler: it answers whatever reaches it, and says so.
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      reachedNext.push(`${request.method} ${request.url}`);
      request.resume();
      response.writeHead(299, { "Content-Type": "text/plain" }).end("next");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    clock = Date.now();
    reachedNext.length = 0;
    env.TRUSTED_PROXY_HOPS = 0;
    kicked.mockClear();
  });

  const post = (body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}, path = WEBHOOK_PATH) =>
    fetch(`${base}${path}`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });
  const stored = (key: string) => database.db.select().from(webhookEvents).where(eq(webhookEvents.idempotencyKey, key));

  it("verifies and stores a signed event itself, answers 200 in JSON and wakes the processor; Next.js never sees it", async () => {
    const { body, key, signature } = signedEvent();
    const answer = await post(body, { "MoneyKit-Signature": signature, "MoneyKit-Delivery-Attempt": "2" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(await answer.json()).toEqual({ received: true });
    expect(reachedNext).toEqual([]);
    expect(kicked).toHaveBeenCalledTimes(1);
    expect(await stored(key)).toMatchObject([
      { verification: "verified", outcome: "pending", deliveryAttempt: 2, sourceAddress: "127.0.0.1" },
    ]);
  });

  it("answers a redelivery 200 as already received, without waking the processor again", async () => {
    const { body, key, signature } = signedEvent();
    expect((await post(body, { "MoneyKit-Signature": signature })).status).toBe(200);
    const again = await post(body, { "MoneyKit-Signature": signature });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ received: true, duplicate: true });
    expect(kicked).toHaveBeenCalledTimes(1);
    expect(await stored(key)).toMatchObject([{ redeliveries: 1 }]);
  });

  it("refuses an unsigned body in words, with nothing recorded as verified", async () => {
    const { body, key } = signedEvent();
    const answer = await post(body);
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { error: string }).error).toMatch(/signature/i);
    expect(await stored(key)).toEqual([]);
  });

  it("refuses a declared body over 1 MB in the door's words, before reading it", async () => {
    const answer = await post(new Uint8Array(2 * 1024 * 1024).fill(32));
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { error: string }).error).toMatch(/more than the 1 MB limit/);
    expect(reachedNext).toEqual([]);
  });

  it("hands every other request to the server's own handler: another method, another path, a longer path", async () => {
    expect((await fetch(`${base}${WEBHOOK_PATH}`)).status).toBe(299);
    expect((await post("{}", {}, "/api/links/register")).status).toBe(299);
    expect((await post("{}", {}, `${WEBHOOK_PATH}/more`)).status).toBe(299);
    expect(reachedNext).toEqual([`GET ${WEBHOOK_PATH}`, "POST /api/links/register", `POST ${WEBHOOK_PATH}/more`]);
  });

  it("records the connection's address, and a forwarded one only from as many trusted proxies as configured", async () => {
    const first = signedEvent();
    await post(first.body, { "MoneyKit-Signature": first.signature, "X-Forwarded-For": "198.51.100.9" });
    expect(await stored(first.key)).toMatchObject([{ sourceAddress: "127.0.0.1" }]);

    env.TRUSTED_PROXY_HOPS = 1;
    const second = signedEvent();
    await post(second.body, { "MoneyKit-Signature": second.signature, "X-Forwarded-For": "203.0.113.5, 198.51.100.9" });
    expect(await stored(second.key)).toMatchObject([{ sourceAddress: "198.51.100.9" }]);
  });
});
