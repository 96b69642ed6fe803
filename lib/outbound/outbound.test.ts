import { createServer } from "node:net";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { outboundAttempts, outboundDeliveries } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { type ProductReceiver, newWebhookSecret, startProductReceiver } from "../testing/product-receiver";
import { type SmtpPeer, startSmtpPeer } from "../testing/smtp-peer";
import type { OutboundConfig } from "./config";
import { deliver, messageIdFor } from "./index";
import type { OutboundMessage } from "./message";
import { deliveryLogs } from "./store";
import { OutboundWorker } from "./worker";

// Outbound delivery against real peers on loopback: an HTTP receiver that verifies every request's Standard Webhooks
// signature with the scheme's library, and an SMTP server. What arrives, how often, and what the delivery log says.

const databases = withTestDatabases();

let receiver: ProductReceiver;
let smtp: SmtpPeer;
/** A port nothing listens on: taken, then let go. */
let deadPort = 0;

beforeAll(async () => {
  receiver = await startProductReceiver();
  smtp = await startSmtpPeer();
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  deadPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  await receiver?.close();
  await smtp?.close();
});

const TOKEN = "sandbox_lst_0123456789abcdefWXYZ";

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id: messageIdFor(),
    type: "link.reconnect_requested",
    at: new Date("2026-11-28T10:00:00.000Z"),
    data: { link_id: "mk_outboundTest0000000001", customer_user_id: "user_42", link_session_token: TOKEN },
    withheld: [TOKEN],
    ...overrides,
  };
}

function config(overrides: Partial<OutboundConfig> = {}): OutboundConfig {
  return {
    webhook: { url: receiver.url, secret: receiver.secret },
    mail: { server: smtp.url, from: "Example Support <support@example.com>" },
    timeoutMs: 2_000,
    ...overrides,
  };
}

interface Logged {
  obj: object;
  msg: string;
}

function worker(db: Db, cfg: OutboundConfig, options: { retryDelaysMs?: number[]; owner?: string } = {}) {
  const lines: Logged[] = [];
  const push = (obj: object, msg: string) => void lines.push({ obj, msg });
  const log = { info: push, warn: push };
  return {
    lines,
    worker: new OutboundWorker({ db, config: () => cfg, log, retryDelaysMs: [0, 0], ...options }),
  };
}

/** Tries until every delivery of the message is settled (each round waits for the ones it leased). */
async function settle(w: OutboundWorker, db: Db, messageId: string, rounds = 10) {
  for (let i = 0; i < rounds; i++) {
    const rows = await db.select().from(outboundDeliveries).where(eq(outboundDeliveries.messageId, messageId));
    if (rows.length > 0 && rows.every((r) => r.state !== "pending")) return rows;
    await w.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`message ${messageId} not settled after ${rounds} rounds`);
}

async function logOf(db: Db, messageId: string) {
  return (await deliveryLogs(db, [messageId])).get(messageId) ?? [];
}

describe.each(databases)("$kind", (target) => {
  const db = () => target.database.db;

  it("signs a webhook the product verifies with the scheme's library, and logs the try", async () => {
    const cfg = config({ mail: null });
    const sent = message();
    expect(await deliver(db(), sent, cfg)).toEqual({ messageId: sent.id, channels: ["webhook"], fresh: true });
    const { worker: w, lines } = worker(db(), cfg);
    const [row] = await settle(w, db(), sent.id);
    expect(row).toMatchObject({ state: "delivered", attempts: 1, recipient: receiver.url });

    const arrived = receiver.tries.filter((t) => t.id === sent.id);
    expect(arrived).toHaveLength(1);
    expect(arrived[0]!.body).toEqual({
      type: "link.reconnect_requested",
      timestamp: "2026-11-28T10:00:00.000Z",
      data: sent.data,
    });
    // Anyone can check it again, with the secret alone.
    const again = new Webhook(receiver.secret).verify(arrived[0]!.raw, {
      "webhook-id": sent.id,
      "webhook-timestamp": String(arrived[0]!.timestamp),
      "webhook-signature": new Webhook(receiver.secret).sign(
        sent.id,
        new Date(arrived[0]!.timestamp * 1000),
        arrived[0]!.raw,
      ),
    });
    expect(again).toEqual(arrived[0]!.body);

    const [log] = await logOf(db(), sent.id);
    expect(log!.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: 204,
        outcome: "delivered",
        detail: "Delivered: HTTP 204 (No Content).",
      }),
    ]);
    expect(log!.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    // Settled: the token it carried is no longer kept whole.
    expect(JSON.stringify(row!.body)).not.toContain(TOKEN);
    expect((row!.body as { data: { link_session_token: string } }).data.link_session_token).toBe(
      "…WXYZ (withheld once sent)",
    );
    expect(row!.withheld).toEqual([]);
    // The log names the message, never what it carried or the secret.
    const logged = JSON.stringify(lines);
    expect(logged).toContain(sent.id);
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain(receiver.secret);
  });

  it("tries again after a 500 under the same webhook-id, and the receiver keeps the message once", async () => {
    const cfg = config({ mail: null });
    const sent = message();
    await deliver(db(), sent, cfg);
    receiver.answerNext(500);
    const { worker: w } = worker(db(), cfg);
    await w.runOnce();
    const [pending] = await db().select().from(outboundDeliveries).where(eq(outboundDeliveries.messageId, sent.id));
    expect(pending).toMatchObject({ state: "pending", attempts: 1 });
    expect(pending!.lastOutcome).toMatch(
      /^The product's webhook \(127\.0\.0\.1:\d+\) answered HTTP 500 \(Internal Server Error\)\. Trying again at \d\d:\d\d:\d\d UTC\.$/,
    );
    await settle(w, db(), sent.id);

    const arrived = receiver.tries.filter((t) => t.id === sent.id);
    expect(arrived.map((t) => t.answered)).toEqual([500, 204]);
    // The same message: same id and body; each try signed afresh.
    expect(new Set(arrived.map((t) => t.raw)).size).toBe(1);
    expect(receiver.kept().filter((t) => t.id === sent.id)).toHaveLength(1);
    const [log] = await logOf(db(), sent.id);
    expect(log!.attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 500, "retry"],
      [2, 204, "delivered"],
    ]);
  });

  it("records a receiver that never answers in words, and gives up after the last try", async () => {
    const cfg = config({ mail: null, timeoutMs: 300 });
    const sent = message();
    await deliver(db(), sent, cfg);
    receiver.answerNext("nothing", "nothing");
    const { worker: w } = worker(db(), cfg, { retryDelaysMs: [0] });
    const [row] = await settle(w, db(), sent.id);
    expect(row).toMatchObject({ state: "failed", attempts: 2 });
    const [log] = await logOf(db(), sent.id);
    const words = /^No answer from the product's webhook \(127\.0\.0\.1:\d+\) within 0\.3 s\.$/;
    expect(log!.attempts.map((a) => [a.status, a.outcome])).toEqual([
      [null, "retry"],
      [null, "failed"],
    ]);
    for (const attempt of log!.attempts) expect(attempt.detail).toMatch(words);
    expect(row!.lastOutcome).toMatch(/within 0\.3 s\. Gave up after 2 tries\.$/);
    expect(log!.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(250);
  });

  it("says a refused connection in words and tries again", async () => {
    const cfg = config({ mail: null, webhook: { url: `http://127.0.0.1:${deadPort}/hooks`, secret: receiver.secret } });
    const sent = message();
    await deliver(db(), sent, cfg);
    const { worker: w } = worker(db(), cfg, { retryDelaysMs: [0] });
    const [row] = await settle(w, db(), sent.id);
    expect(row).toMatchObject({ state: "failed", attempts: 2 });
    const [log] = await logOf(db(), sent.id);
    expect(log!.attempts[0]!.detail).toBe(
      `The product's webhook (127.0.0.1:${deadPort}) refused the connection (nothing listens there, or a firewall says no).`,
    );
  });

  it("fails at once when the receiver refuses the message (its signature check, here)", async () => {
    const cfg = config({ mail: null, webhook: { url: receiver.url, secret: newWebhookSecret() } });
    const sent = message();
    await deliver(db(), sent, cfg);
    const refusedBefore = receiver.refused.length;
    const { worker: w } = worker(db(), cfg);
    const [row] = await settle(w, db(), sent.id);
    expect(row).toMatchObject({ state: "failed", attempts: 1 });
    expect(row!.lastOutcome).toMatch(/refused the message: HTTP 401 \(Unauthorized\)\./);
    expect(receiver.refused.length).toBe(refusedBefore + 1);
    expect(receiver.kept().some((t) => t.id === sent.id)).toBe(false);
  });

  it("queues a message once per id, however often it is handed in, and two senders send it once", async () => {
    const cfg = config({ mail: null });
    const sent = message();
    const first = await deliver(db(), sent, cfg);
    const second = await deliver(db(), { ...sent, data: { ...sent.data, other: true } }, cfg);
    expect([first.fresh, second.fresh]).toEqual([true, false]);
    const a = worker(db(), cfg, { owner: "instance-a" }).worker;
    const b = worker(db(), cfg, { owner: "instance-b" }).worker;
    await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
    await settle(a, db(), sent.id);
    expect(receiver.tries.filter((t) => t.id === sent.id)).toHaveLength(1);
    expect(receiver.tries.find((t) => t.id === sent.id)!.body.data).toEqual(sent.data);
  });

  it("emails the end user through the mail server, the token whole in the mail and withheld from the log", async () => {
    const cfg = config();
    const sent = message({
      email: {
        to: "ada@example.com",
        subject: "Reconnect your bank",
        text: `Open https://app.example.com/reconnect?link_session_token=${TOKEN} to reconnect.`,
      },
    });
    expect((await deliver(db(), sent, cfg)).channels).toEqual(["webhook", "email"]);
    const { worker: w } = worker(db(), cfg);
    const rows = await settle(w, db(), sent.id);
    expect(rows.map((r) => [r.channel, r.state])).toEqual(
      expect.arrayContaining([
        ["webhook", "delivered"],
        ["email", "delivered"],
      ]),
    );
    const mail = smtp.received.find((m) => m.messageId === `<${sent.id}@linkdesk>`);
    expect(mail).toMatchObject({
      from: "support@example.com",
      to: ["ada@example.com"],
      subject: "Reconnect your bank",
    });
    expect(mail!.text).toContain(`link_session_token=${TOKEN}`);
    const email = rows.find((r) => r.channel === "email")!;
    expect(email.recipient).toBe("ada@example.com");
    expect(JSON.stringify(email.body)).not.toContain(TOKEN);
    const [attempt] = await db().select().from(outboundAttempts).where(eq(outboundAttempts.deliveryId, email.id));
    expect(attempt).toMatchObject({ status: 250, outcome: "delivered" });
    expect(attempt!.detail).toMatch(/^Accepted by the mail server \(127\.0\.0\.1:\d+\): 250 /);
  });

  it("fails an email the mail server refuses (5xx) at once, and tries one it defers (4xx) again", async () => {
    const cfg = config({ webhook: null });
    const refusedMail = message({ email: { to: "nobody@example.com", subject: "s", text: "t" } });
    const deferredMail = message({ email: { to: "later@example.com", subject: "s", text: "t" } });
    smtp.answerNext({ code: 550, message: "No such user here" }, { code: 451, message: "Try again later" });
    const { worker: w } = worker(db(), cfg, { retryDelaysMs: [0] });
    await deliver(db(), refusedMail, cfg);
    await settle(w, db(), refusedMail.id);
    await deliver(db(), deferredMail, cfg);
    await settle(w, db(), deferredMail.id);
    const [refused] = await logOf(db(), refusedMail.id);
    expect(refused!.delivery).toMatchObject({ channel: "email", state: "failed", attempts: 1 });
    expect(refused!.attempts[0]).toMatchObject({ status: 550, outcome: "failed" });
    expect(refused!.attempts[0]!.detail).toMatch(
      /^The mail server \(127\.0\.0\.1:\d+\) refused the message: 550 No such user here\.$/,
    );
    const [deferred] = await logOf(db(), deferredMail.id);
    expect(deferred!.delivery).toMatchObject({ state: "delivered", attempts: 2 });
    expect(deferred!.attempts.map((a) => [a.status, a.outcome])).toEqual([
      [451, "retry"],
      [250, "delivered"],
    ]);
  });

  it("records a mail server that never answers, or is not there, in words", async () => {
    const silent = message({ email: { to: "slow@example.com", subject: "s", text: "t" } });
    smtp.answerNext("nothing");
    const cfg = config({ webhook: null, timeoutMs: 400 });
    const { worker: w } = worker(db(), cfg, { retryDelaysMs: [] });
    await deliver(db(), silent, cfg);
    const [row] = await settle(w, db(), silent.id);
    expect(row).toMatchObject({ state: "failed", attempts: 1 });
    expect(row!.lastOutcome).toMatch(
      /^No answer from the mail server \(127\.0\.0\.1:\d+\) within 0\.4 s\. Gave up after 1 try\.$/,
    );

    const away = message({ email: { to: "away@example.com", subject: "s", text: "t" } });
    const down = config({ webhook: null, mail: { server: `smtp://127.0.0.1:${deadPort}`, from: "a@example.com" } });
    await deliver(db(), away, down);
    const [gone] = await settle(worker(db(), down, { retryDelaysMs: [] }).worker, db(), away.id);
    expect(gone!.lastOutcome).toMatch(/^The mail server \(127\.0\.0\.1:\d+\) refused the connection/);
  });

  it("queues nothing where nothing is configured", async () => {
    const sent = message({ email: { to: "ada@example.com", subject: "s", text: "t" } });
    expect(await deliver(db(), sent, config({ webhook: null, mail: null }))).toEqual({
      messageId: sent.id,
      channels: [],
      fresh: false,
    });
    expect(await db().select().from(outboundDeliveries).where(eq(outboundDeliveries.messageId, sent.id))).toEqual([]);
  });
});
