import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { SigningKeys } from "../../sandbox/webhook-signing";
import { startSandbox, type TestSandbox } from "../../sandbox/test-support";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import type { Db } from "../db/client";
import { links, syncState, webhookEvents } from "../db/schema";
import { readLearnedLinks, runSync, type SyncDeps } from "../sync/engine";
import { requestedLinkIds } from "../sync/queries";
import { withTestDatabases } from "../testing/databases";
import { UpstreamClient } from "../upstream/client";
import { UpstreamApi } from "../upstream/index";
import { WebhookKeySource } from "./keys";
import { processWebhookBatch } from "./processor";
import { receiveWebhook } from "./receive";

// What cannot be applied as an event still lands, against the sandbox: a retry the upstream signed minutes ago (facts
// §11: a retry keeps its idempotency key and webhook_timestamp, and its signature may be older than the window) and an
// event of a kind Linkdesk does not know are stored, never applied, and have their link read again by the sync's
// reader (through the door and the rate budget), once however many arrive. A late delivery whose signature or body is
// not the upstream's changes nothing and costs nothing upstream.

vi.mock("../logger", () => {
  const quiet = { info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined };
  return { logger: () => ({ ...quiet, child: () => quiet }) };
});

const databases = withTestDatabases();
let upstream: TestSandbox;
beforeAll(async () => {
  upstream = await startSandbox({ links: 64 });
});
afterAll(async () => {
  await upstream?.close();
});

const UNPACED = { limit: 1_000_000, windowMs: 1000 };
const MAX_AGE_S = 300;

/** The sync's reader over the sandbox, through a fresh budget, remembering which links it read. */
function syncDeps(db: Db): { deps: SyncDeps; reads: string[] } {
  const { clientId, clientSecret } = upstream.sandbox.state.options;
  const budget = new Budget({
    store: createMemoryStore(),
    clientId,
    appId: clientId,
    shares: { app: 1, link: 1, user: 1, client: 1 },
    interactiveMaxWaitMs: 0,
  });
  const api = new UpstreamApi(new UpstreamClient({ baseUrl: upstream.base, clientId, clientSecret, gate: budget }));
  const reads: string[] = [];
  return {
    reads,
    deps: {
      db,
      budget,
      share: 0.8,
      pace: UNPACED,
      pageSize: 500,
      api: {
        listLinks: api.listLinks.bind(api),
        getLink: (linkId, opts) => {
          reads.push(linkId);
          return api.getLink(linkId, opts);
        },
      },
    },
  };
}

const detailReads = async () =>
  ((await upstream.raw("GET", "/_sandbox/stats")).json as { byEndpoint: Record<string, { requests: number }> })
    .byEndpoint["GET /links/{id}"]?.requests ?? 0;

let serial = 0;
function event(linkId: string, at: Date, fields: Record<string, unknown> = {}) {
  serial++;
  return {
    webhook_major_version: 1,
    webhook_minor_version: 0,
    webhook_idempotency_key: `late-${serial}-${Math.random().toString(36).slice(2)}`,
    webhook_timestamp: at.toISOString(),
    link_id: linkId,
    link_tags: [],
    webhook_event: "link.state_changed",
    state: "error",
    error: "institution_error",
    ...fields,
  };
}

describe.each(databases)("webhooks that cannot be applied as events, on $kind", (target) => {
  const db = () => target.database.db;
  // The upstream's signing clock: set to when each delivery was first signed.
  let signingAt = Date.now();
  const signer = new SigningKeys(() => signingAt, 24 * 60 * 60_000);
  const keys = new WebhookKeySource({
    fetchKeys: async () => signer.jwks() as unknown as { keys: Record<string, unknown>[] },
  });
  const deliver = (body: string, signature: string) =>
    receiveWebhook(
      {
        body: new TextEncoder().encode(body),
        overLimit: false,
        headers: new Headers({ "MoneyKit-Signature": signature, "MoneyKit-Delivery-Attempt": "4" }),
        sourceAddress: "203.0.113.9",
        receivedAt: new Date(),
      },
      { db: db(), keys, maxAgeS: MAX_AGE_S, ratePerSecond: 10_000 },
    );
  /** Signed `minutesAgo` minutes ago, as the upstream signed the first delivery of a retry. */
  const signedAgo = (body: string, minutesAgo: number) => {
    signingAt = Date.now() - minutesAgo * 60_000;
    return signer.signatureFor(body);
  };
  const processAll = async () => {
    while ((await processWebhookBatch(db())).claimed > 0);
  };
  const linkRow = async (linkId: string) => (await db().select().from(links).where(eq(links.linkId, linkId)))[0]!;
  const rowOf = async (payload: { webhook_idempotency_key: string }) =>
    (
      await db().select().from(webhookEvents).where(eq(webhookEvents.idempotencyKey, payload.webhook_idempotency_key))
    )[0]!;

  let linkId = "";
  beforeEach(async () => {
    await upstream.raw("POST", "/_sandbox/reset");
    await db().delete(webhookEvents);
    await db().delete(links);
    await db().delete(syncState);
    // The read model as the sync left it an hour ago: every listed link connected.
    expect(await runSync(syncDeps(db()).deps)).toMatchObject({ outcome: "completed" });
    await db()
      .update(links)
      .set({ seenAt: sql`now() - interval '1 hour'` });
    linkId = (await db().select({ linkId: links.linkId }).from(links).limit(1))[0]!.linkId;
    expect(await linkRow(linkId)).toMatchObject({ state: "connected", errorCode: null });
  });

  it("a retry signed minutes ago has its link read from the upstream, so the change lands; a flood of them costs one read", async () => {
    // Seven minutes ago the link broke upstream, and the first delivery of its event did not get a 2xx.
    expect(
      (
        await upstream.api("POST", `/_sandbox/links/${linkId}/state`, {
          body: { state: "error", error_code: "institution_error" },
        })
      ).status,
    ).toBe(200);
    const brokeAt = new Date(Date.now() - 7 * 60_000);
    const original = event(linkId, brokeAt);
    const body = JSON.stringify(original);
    const signature = signedAgo(body, 7);
    // The upstream's retries keep the first delivery's signature and key; other late events of the link come too.
    const others = [
      event(linkId, new Date(brokeAt.getTime() - 60_000), { state: "connected", error: null }),
      event(linkId, new Date(brokeAt.getTime() - 30_000), { webhook_event: "transactions.updates_available" }),
      event(linkId, brokeAt, { state: "deleted", error: null }),
    ];
    const answers = [];
    for (let retry = 0; retry < 3; retry++) answers.push(await deliver(body, signature));
    for (const other of others) {
      const otherBody = JSON.stringify(other);
      answers.push(await deliver(otherBody, signedAgo(otherBody, 6)));
    }
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(answers[0]!.body).toMatchObject({ late: true });
    expect(answers.slice(1, 3).every((answer) => answer.body.duplicate === true)).toBe(true);
    const readsBefore = await detailReads();

    await processAll();
    // None of them is applied: not the error, not the deleted state a replay could carry.
    expect(await linkRow(linkId)).toMatchObject({ state: "connected", errorCode: null });
    expect(await rowOf(original)).toMatchObject({ verification: "late", outcome: "read_again", redeliveries: 2 });
    expect((await rowOf(original)).detail).toMatch(
      /Not applied as an event: the link is read again from the upstream\.$/,
    );

    // The sync's reader reads the link once, and the read model shows what the upstream says now.
    const { deps, reads } = syncDeps(db());
    expect(await readLearnedLinks(deps)).toEqual({ outcome: "read", fetched: 1, failed: [] });
    expect(reads).toEqual([linkId]);
    expect(await detailReads()).toBe(readsBefore + 1);
    expect(await linkRow(linkId)).toMatchObject({ state: "error", errorCode: "institution_error" });

    // More late retries of events from before that read ask for nothing more, and nothing more is read.
    const after = event(linkId, brokeAt, { webhook_event: "transactions.updates_available" });
    const afterBody = JSON.stringify(after);
    expect((await deliver(afterBody, signedAgo(afterBody, 7))).status).toBe(200);
    await processAll();
    expect((await rowOf(after)).detail).toMatch(/Linkdesk's copy of the link was read after the event/);
    const again = syncDeps(db());
    expect(await readLearnedLinks(again.deps)).toEqual({ outcome: "nothing" });
    expect(again.reads).toEqual([]);
  });

  it("a late delivery whose signature or body is not the upstream's changes nothing and reads nothing", async () => {
    const readsBefore = await detailReads();
    const payload = event(linkId, new Date(Date.now() - 7 * 60_000), { state: "deleted", error: null });
    const body = JSON.stringify(payload);
    // Signed by a key that is not the upstream's, under the kid the upstream's key set lists.
    const impostor = new SigningKeys(() => Date.now() - 7 * 60_000, 1000);
    const [, claims, forgedSignature] = impostor.signatureFor(body).split(".");
    const header = Buffer.from(JSON.stringify({ alg: "ES256", typ: "JWT", kid: signer.currentKid })).toString(
      "base64url",
    );
    const forged = await deliver(body, `${header}.${claims}.${forgedSignature}`);
    expect(forged.status).toBe(401);
    expect(String(forged.body.error)).toMatch(/does not verify/);
    // The upstream's signature, on a body altered on the way.
    const tampered = await deliver(body.replace('"deleted"', '"connecting"'), signedAgo(body, 7));
    expect(tampered.status).toBe(401);
    expect(String(tampered.body.error)).toMatch(/not the one that was signed/);

    await processAll();
    const stored = await db().select().from(webhookEvents);
    expect(stored.map((row) => [row.verification, row.body])).toEqual([
      ["refused", null],
      ["refused", null],
    ]);
    expect(await linkRow(linkId)).toMatchObject({ state: "connected", readRequestedAt: null });
    const { deps, reads } = syncDeps(db());
    expect(await readLearnedLinks(deps)).toEqual({ outcome: "nothing" });
    expect(reads).toEqual([]);
    expect(await detailReads()).toBe(readsBefore);
  });

  it("an event of a kind Linkdesk does not know is kept as sent and has its link read once", async () => {
    const readsBefore = await detailReads();
    const now = new Date();
    const unknown = event(linkId, now, { webhook_event: "link.products_changed", products: ["payment_initiation"] });
    const body = JSON.stringify(unknown);
    signingAt = Date.now();
    expect(await deliver(body, signer.signatureFor(body))).toMatchObject({ status: 200, body: { received: true } });
    // Another one for the same link at the same moment (a new kind often comes in pairs): still one read.
    const twin = event(linkId, now, { webhook_event: "link.products_changed" });
    const twinBody = JSON.stringify(twin);
    expect((await deliver(twinBody, signer.signatureFor(twinBody))).status).toBe(200);
    await processAll();
    expect(await rowOf(unknown)).toMatchObject({
      verification: "verified",
      outcome: "unknown_kind",
      event: "link.products_changed",
      body: unknown,
    });
    expect(await linkRow(linkId)).toMatchObject({ state: "connected" });

    const { deps, reads } = syncDeps(db());
    expect(await readLearnedLinks(deps)).toEqual({ outcome: "read", fetched: 1, failed: [] });
    expect(reads).toEqual([linkId]);
    expect(await detailReads()).toBe(readsBefore + 1);
    const read = await linkRow(linkId);
    expect(read.seenAt!.getTime()).toBeGreaterThanOrEqual(now.getTime() - 1000);
    // Served: nothing is waiting for a read any more.
    expect(await requestedLinkIds(db(), { gapMs: 0 })).toEqual([]);
  });
});
