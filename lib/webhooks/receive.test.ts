import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readModelVersion } from "../links/read-model-version";
import { SigningKeys } from "../../sandbox/webhook-signing";
import { startSandbox, type TestSandbox } from "../../sandbox/test-support";
import { links, webhookEvents } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { WebhookKeySource } from "./keys";
import { processWebhookBatch } from "./processor";
import { type ReceiveDeps, receiveWebhook } from "./receive";

// The receiver against signatures made exactly as the upstream makes them (the sandbox's signer, facts §11), and once
// end to end: the sandbox delivering to a local HTTP server that hands each request to the receiver.

// The processor's warnings, kept here instead of printed (the real logger needs the server's configuration).
const warned: string[] = [];
vi.mock("../logger", () => {
  const child = {
    info: () => undefined,
    debug: () => undefined,
    error: () => undefined,
    warn: (_: object, message: string) => void warned.push(message),
  };
  return { logger: () => ({ ...child, child: () => child }) };
});

const databases = withTestDatabases();
const NOW = new Date("2026-11-25T10:00:00Z");

let serial = 0;
function event(fields: Record<string, unknown> = {}) {
  serial++;
  return {
    webhook_major_version: 1,
    webhook_minor_version: 0,
    webhook_idempotency_key: `key-${serial}-${Math.random().toString(36).slice(2)}`,
    webhook_timestamp: NOW.toISOString(),
    link_id: `mk_hook_${serial}`,
    link_tags: [],
    webhook_event: "link.state_changed",
    state: "error",
    error: "auth_expired",
    ...fields,
  };
}

function headers(signature: string | null, extra: Record<string, string> = {}) {
  return new Headers({
    ...(signature ? { "MoneyKit-Signature": signature } : {}),
    "MoneyKit-Delivery-Token": "dt_1",
    "MoneyKit-Delivery-Attempt": "1",
    ...extra,
  });
}

describe.each(databases)("webhook receiver on $kind", (target) => {
  let clock = NOW.getTime();
  const signer = new SigningKeys(() => clock, 24 * 60 * 60_000);
  let jwksReads = 0;
  const keySource = () =>
    new WebhookKeySource({
      fetchKeys: async () => {
        jwksReads++;
        return signer.jwks() as unknown as { keys: Record<string, unknown>[] };
      },
      now: () => clock,
    });
  let deps: ReceiveDeps;
  beforeAll(() => {
    deps = { db: target.database.db, keys: keySource(), maxAgeS: 300, ratePerSecond: 10_000 };
  });

  const receive = (
    body: string | Uint8Array,
    signature: string | null,
    at = new Date(clock),
    address = "203.0.113.7",
  ) =>
    receiveWebhook(
      {
        body: typeof body === "string" ? new TextEncoder().encode(body) : body,
        overLimit: false,
        headers: headers(signature),
        sourceAddress: address,
        receivedAt: at,
      },
      deps,
    );
  const rowsByKey = (key: string) =>
    target.database.db.select().from(webhookEvents).where(eq(webhookEvents.idempotencyKey, key));
  const refusedCount = async () =>
    (await target.database.db.select().from(webhookEvents).where(eq(webhookEvents.verification, "refused"))).length;

  it("stores a signed event before answering 2xx, and the processor applies it to the read model once", async () => {
    const body = JSON.stringify(event({ link_id: "mk_hook_learned" }));
    const answer = await receive(body, signer.signatureFor(body));
    expect(answer).toMatchObject({ status: 200, stored: true });
    const [stored] = await rowsByKey(JSON.parse(body).webhook_idempotency_key);
    expect(stored).toMatchObject({
      verification: "verified",
      outcome: "pending",
      event: "link.state_changed",
      linkId: "mk_hook_learned",
      deliveryToken: "dt_1",
      deliveryAttempt: 1,
    });

    const version = readModelVersion();
    const batch = await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    expect(batch.processed).toBeGreaterThanOrEqual(1);
    // Kept views of the links list from before the batch are not used again (lib/links/read-model-version.ts).
    expect(readModelVersion()).toBeGreaterThan(version);
    const [link] = await target.database.db.select().from(links).where(eq(links.linkId, "mk_hook_learned"));
    expect(link).toMatchObject({ state: "error", errorCode: "auth_expired", learnedFrom: "webhook", seenAt: null });
    const [after] = await rowsByKey(JSON.parse(body).webhook_idempotency_key);
    expect(after).toMatchObject({ outcome: "processed", processAttempts: 1 });
    expect(after!.detail).toContain("New link learned");
  });

  it("answers a redelivery (same idempotency key) 2xx and never processes it again", async () => {
    const payload = event({ link_id: "mk_hook_redelivered", state: "connected", error: null });
    const body = JSON.stringify(payload);
    expect((await receive(body, signer.signatureFor(body))).status).toBe(200);
    await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    clock += 2000;
    const again = await receive(body, signer.signatureFor(body));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true });
    expect(again.stored).toBe(false);
    await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    const rows = await rowsByKey(payload.webhook_idempotency_key);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ outcome: "processed", processAttempts: 1, redeliveries: 1 });
  });

  describe("refuses, in words, and records the refusal without the body", () => {
    const expectRefused = async (
      answer: Awaited<ReturnType<typeof receive>>,
      status: number,
      words: RegExp,
      before: number,
    ) => {
      expect(answer.status).toBe(status);
      expect(String(answer.body.error)).toMatch(words);
      expect(await refusedCount()).toBe(before + 1);
      const [row] = await target.database.db
        .select()
        .from(webhookEvents)
        .where(and(eq(webhookEvents.verification, "refused"), eq(webhookEvents.refusal, String(answer.body.error))));
      expect(row).toMatchObject({ outcome: "refused", body: null, idempotencyKey: null, sourceAddress: "203.0.113.7" });
    };

    it("no signature", async () => {
      const before = await refusedCount();
      await expectRefused(await receive(JSON.stringify(event()), null), 401, /No MoneyKit-Signature/, before);
    });

    it("a signature by a key that is not the upstream's, under a kid it lists", async () => {
      const impostor = new SigningKeys(() => clock, 1000);
      const body = JSON.stringify(event());
      const forged = impostor.signatureFor(body).split(".");
      const header = Buffer.from(JSON.stringify({ alg: "ES256", typ: "JWT", kid: signer.currentKid })).toString(
        "base64url",
      );
      const before = await refusedCount();
      await expectRefused(await receive(body, `${header}.${forged[1]}.${forged[2]}`), 401, /does not verify/, before);
    });

    it("an unknown kid, after reading the key set once more", async () => {
      const impostor = new SigningKeys(() => clock, 1000);
      const body = JSON.stringify(event());
      const readsBefore = jwksReads;
      const before = await refusedCount();
      await expectRefused(await receive(body, impostor.signatureFor(body)), 401, /does not list/, before);
      expect(jwksReads).toBe(readsBefore + 1);
    });

    it("a tampered body", async () => {
      const body = JSON.stringify(event({ state: "connected", error: null }));
      const signature = signer.signatureFor(body);
      const before = await refusedCount();
      await expectRefused(
        await receive(body.replace('"connected"', '"deleted"'), signature),
        401,
        /not the one that was signed/,
        before,
      );
    });

    it("a tampered body under a signature older than the window (late is no excuse)", async () => {
      const body = JSON.stringify(event({ state: "connected", error: null }));
      const signature = signer.signatureFor(body);
      const before = await refusedCount();
      await expectRefused(
        await receive(body.replace('"connected"', '"deleted"'), signature, new Date(clock + 10 * 60_000)),
        401,
        /not the one that was signed/,
        before,
      );
    });

    it("a signed body that is not JSON, or not a webhook", async () => {
      let before = await refusedCount();
      await expectRefused(await receive("{not json", signer.signatureFor("{not json")), 400, /not JSON/, before);
      const noKey = JSON.stringify({ ...event(), webhook_idempotency_key: undefined });
      before = await refusedCount();
      await expectRefused(
        await receive(noKey, signer.signatureFor(noKey)),
        400,
        /webhook_idempotency_key is missing/,
        before,
      );
    });

    it("a body over 1 MB", async () => {
      const before = await refusedCount();
      const answer = await receiveWebhook(
        {
          body: new Uint8Array(),
          overLimit: true,
          headers: headers("x.y.z"),
          sourceAddress: "203.0.113.7",
          receivedAt: new Date(clock),
        },
        deps,
      );
      await expectRefused(answer, 413, /over 1 MB/, before);
    });
  });

  it("accepts events signed after a key rotation (one more read of the key set), and the old key while it is listed", async () => {
    // Past the cooldown the unknown-kid test above started: a rotation is not a flood of made-up kids.
    clock += 11_000;
    const oldBody = JSON.stringify(event());
    const oldSignature = signer.signatureFor(oldBody);
    signer.rotate();
    const readsBefore = jwksReads;
    const body = JSON.stringify(event());
    expect((await receive(body, signer.signatureFor(body))).status).toBe(200);
    expect(jwksReads).toBe(readsBefore + 1);
    expect((await receive(oldBody, oldSignature)).status).toBe(200);
    expect(jwksReads).toBe(readsBefore + 1);
  });

  it("never turns a link back: an event older than the one applied changes nothing", async () => {
    const newer = event({
      link_id: "mk_hook_order",
      state: "connected",
      error: null,
      webhook_timestamp: new Date(clock).toISOString(),
    });
    const older = event({
      link_id: "mk_hook_order",
      state: "error",
      error: "institution_error",
      webhook_timestamp: new Date(clock - 60_000).toISOString(),
    });
    for (const payload of [newer, older]) {
      const body = JSON.stringify(payload);
      expect((await receive(body, signer.signatureFor(body))).status).toBe(200);
      await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    }
    const [link] = await target.database.db.select().from(links).where(eq(links.linkId, "mk_hook_order"));
    expect(link).toMatchObject({ state: "connected", errorCode: null });
    const [olderRow] = await rowsByKey(older.webhook_idempotency_key);
    expect(olderRow!.detail).toMatch(/older than what Linkdesk already knew/);
  });

  it("applies one batch holding several events of one link in their order, as if each came alone", async () => {
    const at = (offsetS: number) => new Date(clock + offsetS * 1000).toISOString();
    const first = event({ link_id: "mk_hook_waves", state: "connected", error: null, webhook_timestamp: at(-50) });
    let body = JSON.stringify(first);
    await receive(body, signer.signatureFor(body));
    await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    // Then, in one batch: one older than what was applied, a transactions marker, a newer state, and another link.
    const older = event({ link_id: "mk_hook_waves", state: "deleted", error: null, webhook_timestamp: at(-60) });
    const marker = event({
      link_id: "mk_hook_waves",
      webhook_event: "transactions.updates_available",
      webhook_timestamp: at(-40),
    });
    const newer = event({
      link_id: "mk_hook_waves",
      state: "error",
      error: "institution_error",
      webhook_timestamp: at(-30),
    });
    const other = event({
      link_id: "mk_hook_waves_other",
      state: "connecting",
      error: null,
      webhook_timestamp: at(-30),
    });
    for (const payload of [newer, other, marker, older]) {
      body = JSON.stringify(payload);
      expect((await receive(body, signer.signatureFor(body))).status).toBe(200);
    }
    const batch = await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    expect(batch.processed).toBeGreaterThanOrEqual(4);
    const detailOf = async (payload: { webhook_idempotency_key: string }) =>
      (await rowsByKey(payload.webhook_idempotency_key))[0]!.detail;
    expect(await detailOf(older)).toMatch(/older than what Linkdesk already knew/);
    expect(await detailOf(marker)).toBe("Transactions changed: the link's pages read them again.");
    expect(await detailOf(newer)).toMatch(/^Link now in error \(institution/);
    expect(await detailOf(other)).toBe("New link learned, connecting.");
    const [link] = await target.database.db.select().from(links).where(eq(links.linkId, "mk_hook_waves"));
    expect(link).toMatchObject({
      state: "error",
      errorCode: "institution_error",
      eventAt: new Date(at(-30)),
      transactionsChangedAt: new Date(at(-40)),
      deletedSeenAt: null,
    });
  });

  it("takes a genuine delivery signed before the window as late: stored and answered 2xx, never applied as an event, its link to be read", async () => {
    const payload = event({ link_id: "mk_hook_late", state: "deleted", error: null });
    const body = JSON.stringify(payload);
    const signature = signer.signatureFor(body);
    // The upstream retried it after seven minutes of back-off, with the signature of the first delivery.
    const answer = await receive(body, signature, new Date(clock + 7 * 60_000));
    expect(answer).toMatchObject({ status: 200, stored: true, body: { received: true, late: true } });
    const [stored] = await rowsByKey(payload.webhook_idempotency_key);
    expect(stored).toMatchObject({ verification: "late", outcome: "pending", signedAt: new Date(clock) });
    await processWebhookBatch(target.database.db, { now: () => new Date(clock + 7 * 60_000) });
    const [after] = await rowsByKey(payload.webhook_idempotency_key);
    expect(after).toMatchObject({ outcome: "read_again", processAttempts: 1 });
    expect(after!.detail).toBe(
      "Signed 420 s before it arrived (a retry after the upstream's back-off, or a replay). Not applied as an event: new link learned; it is read from the upstream.",
    );
    // Nothing of what it says is applied (it says deleted); the link is known, waiting for its read.
    const [link] = await target.database.db.select().from(links).where(eq(links.linkId, "mk_hook_late"));
    expect(link).toMatchObject({ state: null, learnedFrom: "webhook", readRequestedAt: NOW, seenAt: null });
  });

  it("takes a genuine signature dated ahead of the clock by more than the window as late too, not as an event", async () => {
    const payload = event({ link_id: "mk_hook_ahead" });
    const body = JSON.stringify(payload);
    const answer = await receive(body, signer.signatureFor(body), new Date(clock - 6 * 60_000));
    expect(answer).toMatchObject({ status: 200, body: { late: true } });
    await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    const [row] = await rowsByKey(payload.webhook_idempotency_key);
    expect(row).toMatchObject({ verification: "late", outcome: "read_again" });
    expect(row!.detail).toMatch(/^Signed 360 s ahead of Linkdesk's clock\. Not applied as an event/);
  });

  it("stores an unknown kind of event as sent, applies nothing, and asks for its link to be read", async () => {
    const payload = event({ webhook_event: "link.products_changed", link_id: "mk_hook_unknown", state: "deleted" });
    const body = JSON.stringify(payload);
    expect((await receive(body, signer.signatureFor(body))).status).toBe(200);
    await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    const [row] = await rowsByKey(payload.webhook_idempotency_key);
    expect(row).toMatchObject({ outcome: "unknown_kind", event: "link.products_changed" });
    expect(row!.detail).toBe(
      "A kind not known to this version of Linkdesk (link.products_changed): kept as received, nothing applied; new link learned; it is read from the upstream.",
    );
    const [link] = await target.database.db.select().from(links).where(eq(links.linkId, "mk_hook_unknown"));
    expect(link).toMatchObject({ state: null, learnedFrom: "webhook", readRequestedAt: NOW });
  });

  it("applies a state or an error code outside today's lists as sent, marked in words as not known", async () => {
    const newState = event({
      link_id: "mk_hook_new_state",
      state: "paused_by_institution",
      error: "institution_paused",
    });
    const newCode = event({ link_id: "mk_hook_new_code", state: "error", error: "provider_sunset" });
    const newProduct = event({
      link_id: "mk_hook_new_code",
      webhook_event: "link.product_refresh",
      product: "payment_initiation",
      state: "queued",
      state_changed_at: NOW.toISOString(),
      webhook_timestamp: new Date(clock + 1000).toISOString(),
    });
    for (const payload of [newState, newCode, newProduct]) {
      const body = JSON.stringify(payload);
      expect((await receive(body, signer.signatureFor(body))).status).toBe(200);
    }
    await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    const byId = async (linkId: string) =>
      (await target.database.db.select().from(links).where(eq(links.linkId, linkId)))[0];
    expect(await byId("mk_hook_new_state")).toMatchObject({
      state: "paused_by_institution",
      errorCode: "institution_paused",
    });
    expect(await byId("mk_hook_new_code")).toMatchObject({ state: "error", errorCode: "provider_sunset" });
    const detailOf = async (payload: { webhook_idempotency_key: string }) =>
      (await rowsByKey(payload.webhook_idempotency_key))[0]!;
    expect(await detailOf(newState)).toMatchObject({
      outcome: "processed",
      detail:
        'New link learned, in state "paused_by_institution" (not known to this version of Linkdesk), with error code "institution_paused" (not known to this version of Linkdesk).',
    });
    expect((await detailOf(newCode)).detail).toBe(
      'New link learned, in error, with error code "provider_sunset" (not known to this version of Linkdesk).',
    );
    expect(await detailOf(newProduct)).toMatchObject({
      outcome: "processed",
      detail:
        'Product "payment_initiation" (not known to this version of Linkdesk) refresh state "queued" (not known to this version of Linkdesk).',
    });
  });

  it("marks a link's transactions changed, and a product refresh on its products", async () => {
    const tx = event({ webhook_event: "transactions.updates_available", link_id: "mk_hook_tx" });
    const body = JSON.stringify(tx);
    await receive(body, signer.signatureFor(body));
    await processWebhookBatch(target.database.db, { now: () => new Date(clock) });
    const [link] = await target.database.db.select().from(links).where(eq(links.linkId, "mk_hook_tx"));
    expect(link!.transactionsChangedAt).toEqual(NOW);
  });

  it("stores a burst of deliveries arriving together each once, and counts copies of one key as redeliveries", async () => {
    const distinct = Array.from({ length: 40 }, (_, i) => JSON.stringify(event({ link_id: `mk_hook_burst_${i}` })));
    const copied = JSON.stringify(event({ link_id: "mk_hook_burst_copied" }));
    const bodies = [...distinct, copied, copied, copied, copied];
    // All at once: the writer puts what arrives while one INSERT runs into the next.
    const answers = await Promise.all(bodies.map((body) => receive(body, signer.signatureFor(body))));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(answers.slice(0, 40).every((answer) => answer.stored === true)).toBe(true);
    expect(answers.slice(40).filter((answer) => answer.stored === true)).toHaveLength(1);
    for (const body of distinct) expect(await rowsByKey(JSON.parse(body).webhook_idempotency_key)).toHaveLength(1);
    const [copy, ...more] = await rowsByKey(JSON.parse(copied).webhook_idempotency_key);
    expect(more).toHaveLength(0);
    expect(copy).toMatchObject({ verification: "verified", redeliveries: 3 });
  });

  it("keeps one event's database failure its own: the rest of the batch is processed, that one is tried again", async () => {
    const { db } = target.database;
    // A stand-in for any failure inside the database while applying one event.
    await db.execute(
      sql`create or replace function refuse_mk_hook_boom() returns trigger language plpgsql as $$ begin raise exception 'boom'; end $$`,
    );
    await db.execute(
      sql`create trigger refuse_mk_hook_boom before insert or update on links for each row when (new.link_id = 'mk_hook_boom') execute function refuse_mk_hook_boom()`,
    );
    try {
      const bodies = ["mk_hook_before_boom", "mk_hook_boom", "mk_hook_after_boom"].map((linkId) =>
        JSON.stringify(event({ link_id: linkId, state: "connected", error: null })),
      );
      for (const body of bodies) expect((await receive(body, signer.signatureFor(body))).status).toBe(200);
      let batch;
      do batch = await processWebhookBatch(db, { now: () => new Date(clock) });
      while (batch.claimed > batch.failed);
      const [before, boom, after] = await Promise.all(
        bodies.map(async (body) => (await rowsByKey(JSON.parse(body).webhook_idempotency_key))[0]!),
      );
      expect(before).toMatchObject({ outcome: "processed", processAttempts: 1 });
      expect(after).toMatchObject({ outcome: "processed", processAttempts: 1 });
      expect(boom).toMatchObject({
        outcome: "pending",
        processAttempts: 1,
        detail: "Processing failed (see the server log). Tried 1 time; trying again.",
      });
      expect(boom!.nextAttemptAt!.getTime()).toBeGreaterThan(clock);
      expect(warned).toContain("processing a webhook event failed");
      const learned = await db
        .select({ linkId: links.linkId, state: links.state })
        .from(links)
        .where(inArray(links.linkId, ["mk_hook_before_boom", "mk_hook_boom", "mk_hook_after_boom"]));
      expect(learned.map((link) => link.linkId).sort()).toEqual(["mk_hook_after_boom", "mk_hook_before_boom"]);
    } finally {
      await db.execute(sql`drop trigger refuse_mk_hook_boom on links`);
      await db.execute(sql`drop function refuse_mk_hook_boom()`);
    }
  });
});

describe.each(databases)("two processors on one $kind database", (target) => {
  it("process each stored event exactly once", async () => {
    const signer = new SigningKeys(() => NOW.getTime(), 1000);
    const deps: ReceiveDeps = {
      db: target.database.db,
      keys: new WebhookKeySource({
        fetchKeys: async () => signer.jwks() as unknown as { keys: Record<string, unknown>[] },
        now: () => NOW.getTime(),
      }),
      maxAgeS: 300,
      ratePerSecond: 10_000,
    };
    const keys: string[] = [];
    for (let i = 0; i < 120; i++) {
      const payload = event({
        link_id: `mk_pair_${i % 7}`,
        webhook_timestamp: new Date(NOW.getTime() + i).toISOString(),
      });
      keys.push(payload.webhook_idempotency_key);
      const body = JSON.stringify(payload);
      // Each event arrives twice, as if delivered to two instances.
      for (let copy = 0; copy < 2; copy++) {
        const answer = await receiveWebhook(
          {
            body: new TextEncoder().encode(body),
            overLimit: false,
            headers: headers(signer.signatureFor(body)),
            sourceAddress: "198.51.100.1",
            receivedAt: NOW,
          },
          deps,
        );
        expect(answer.status).toBe(200);
      }
    }
    // A second connection for the second processor where the database has more than one (PostgreSQL).
    const { createDatabase } = await import("../db/client");
    const second = target.url ? await createDatabase({ url: target.url }) : target.database;
    try {
      const drainWith = async (db: typeof target.database.db) => {
        let processed = 0;
        for (;;) {
          const batch = await processWebhookBatch(db, { batchSize: 10, now: () => NOW });
          processed += batch.processed;
          if (batch.claimed === 0) return processed;
        }
      };
      const [a, b] = await Promise.all([drainWith(target.database.db), drainWith(second.db)]);
      const rows = (await target.database.db.select().from(webhookEvents)).filter((row) =>
        keys.includes(row.idempotencyKey ?? ""),
      );
      expect(rows).toHaveLength(120);
      expect(
        rows.every((row) => row.outcome === "processed" && row.processAttempts === 1 && row.redeliveries === 1),
      ).toBe(true);
      expect(a + b).toBeGreaterThanOrEqual(120);
      if (target.url) expect(Math.min(a, b)).toBeGreaterThan(0);
    } finally {
      if (second !== target.database) await second.close();
    }
  });
});

describe("the sandbox delivering to the receiver over HTTP", () => {
  const [target] = databases;
  let sandbox: TestSandbox;
  let server: ReturnType<typeof createServer>;
  let url = "";
  beforeAll(async () => {
    sandbox = await startSandbox({ webhookRetryBaseMs: 10 });
    const keys = new WebhookKeySource({
      fetchKeys: async () =>
        (await fetch(`${sandbox.base}/.well-known/jwks.json`)).json() as Promise<{ keys: Record<string, unknown>[] }>,
    });
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const headersOf = new Headers(
          Object.entries(request.headers).flatMap(([k, v]) =>
            typeof v === "string" ? [[k, v] as [string, string]] : [],
          ),
        );
        receiveWebhook(
          {
            body: Buffer.concat(chunks),
            overLimit: false,
            headers: headersOf,
            sourceAddress: "127.0.0.1",
            receivedAt: new Date(),
          },
          { db: target!.database.db, keys, maxAgeS: 300, ratePerSecond: 10_000 },
        ).then(
          (answer) =>
            response.writeHead(answer.status, { "Content-Type": "application/json" }).end(JSON.stringify(answer.body)),
          () => response.writeHead(503).end(),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/upstream`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await sandbox.close();
  });

  it("verifies a state change the sandbox sends, and the read model shows it", async () => {
    const fixtures = (await sandbox.api("GET", "/_sandbox/fixtures")).json as Record<string, string[]>;
    const linkId = fixtures.plain![0]!;
    expect((await sandbox.api("PATCH", `/links/${linkId}`, { body: { webhook: url } })).status).toBe(200);
    expect(
      (
        await sandbox.api("POST", `/_sandbox/links/${linkId}/state`, {
          body: { state: "error", error_code: "institution_error" },
        })
      ).status,
    ).toBe(200);
    let delivered: { state: string; last_status: number | null }[] = [];
    for (let i = 0; i < 200 && !delivered.some((d) => d.state === "delivered"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      delivered = (
        (await sandbox.api("GET", `/_sandbox/webhooks?link_id=${linkId}&event=link.state_changed`)).json as {
          deliveries: typeof delivered;
        }
      ).deliveries;
    }
    expect(delivered.at(-1)).toMatchObject({ state: "delivered", last_status: 200 });
    await processWebhookBatch(target!.database.db);
    const [link] = await target!.database.db.select().from(links).where(eq(links.linkId, linkId));
    expect(link).toMatchObject({ state: "error", errorCode: "institution_error" });
  });
});
