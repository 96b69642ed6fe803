import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { SignedInStaff } from "../auth/credentials";
import { type Database } from "../db/client";
import { auditLog, importedLinks, outboundDeliveries, reconnectRequests, staff } from "../db/schema";
import { openTestPglite } from "../testing/pglite";
import { type ProductReceiver, startProductReceiver } from "../testing/product-receiver";
import { type SmtpPeer, startSmtpPeer } from "../testing/smtp-peer";

// Asking an end user to reconnect, as a direct POST would call the action: against the sandbox (which relinks as the
// facts describe), an embedded database, a real receiver on loopback that verifies each message's Standard Webhooks
// signature, and a real mail server on loopback. What reaches the upstream, the product and the end user; what the
// request's row, the delivery log and the audit trail keep; and that the relink keeps the link's webhook and tags.

let signedIn: SignedInStaff | null = null;
let database: Database;

vi.mock("../auth", () => ({
  currentStaff: async () => signedIn,
  sessionAccount: async () => signedIn && { ...signedIn, authSource: "password", passwordChangeRequired: false },
  clientAddress: () => "203.0.113.36",
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0 });
const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-reconnect-"));
let receiver: ProductReceiver;
let smtp: SmtpPeer;
let sandboxUrl = "";
let fixtures: Record<string, string[]> = {};

const REDIRECT_URI = "https://app.product.example/oauth-return";
const RECONNECT_URL = "https://app.product.example/reconnect";

beforeAll(async () => {
  sandboxUrl = await sandbox.listen(0);
  receiver = await startProductReceiver();
  smtp = await startSmtpPeer();
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: sandboxUrl,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "reconnect-secret-0123456789abcdef0123456789",
    LOG_LEVEL: "silent",
    DATABASE_URL: "",
    LINKDESK_DATA_DIR: dataDir,
    PRODUCT_WEBHOOK_URL: receiver.url,
    PRODUCT_WEBHOOK_SECRET: receiver.secret,
    LINK_SESSION_REDIRECT_URI: REDIRECT_URI,
    PRODUCT_RECONNECT_URL: RECONNECT_URL,
    SMTP_URL: smtp.url,
    SMTP_FROM: "Example Support <support@product.example>",
  });
  database = await openTestPglite();
  // As the app wires it at start (lib/startup.ts): the door's answers keep the read model current, and the sender runs.
  (await import("../links/read-model")).recordUpstreamAnswers();
  await (await import("../outbound")).startOutboundWorker();
  const [row] = await database.db
    .insert(staff)
    .values({ email: "support@reconnect.test", role: "support" })
    .returning();
  signedIn = { id: row!.id, email: row!.email, name: null, role: "support" };
  fixtures = (await (await fetch(`${sandboxUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
}, 60_000);

afterAll(async () => {
  await (await import("../outbound")).stopOutboundWorker(1_000);
  await database?.close();
  await sandbox.close();
  await receiver?.close();
  await smtp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const { requestReconnect } = await import("./reconnect");
const { upstream } = await import("../upstream");
const { lookUpCustomerLinks } = await import("../links/discovery");
const { insertJob } = await import("../jobs/store");
const { linkReconnectRequests } = await import("../reconnect/view");

/** Requests the sandbox answered on one endpoint. */
async function requests(endpoint: string): Promise<number> {
  const stats = (await (await fetch(`${sandboxUrl}/_sandbox/stats`)).json()) as {
    byEndpoint: Record<string, { requests: number }>;
  };
  return stats.byEndpoint[endpoint]?.requests ?? 0;
}

async function auditRows(linkId: string) {
  return database.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.linkId, linkId))
    .orderBy(desc(auditLog.id))
    .then((rows) => rows.filter((r) => r.action === "link.request_reconnect"));
}

/** A link in error (auth_expired: imported without credentials) with a webhook and tags, made through the upstream. */
async function brokenLink(customerUserId: string) {
  const link = await upstream().importLink({
    customer_user: { id: customerUserId },
    institution_id: "ally",
    provider: "moneykit",
    webhook: "https://hooks.product.example/links",
    link_tags: ["plan:pro", "region:eu"],
  });
  expect(link).toMatchObject({ state: "error", error_code: "auth_expired" });
  return link;
}

/** Linkdesk learns whose link it is the way support would: a look-up of the customer's links. */
async function lookUp(customerUserId: string) {
  await lookUpCustomerLinks(database.db, upstream(), customerUserId);
}

describe("requestReconnect", () => {
  it("makes one relink session carrying the webhook and tags, hands it to the product signed, and the relink keeps both", async () => {
    const customer = `user_reconnect_${randomUUID().slice(0, 8)}`;
    const link = await brokenLink(customer);
    await lookUp(customer);
    const sessions = await requests("POST /link-session");

    const result = await requestReconnect({ linkId: link.link_id, requestKey: randomUUID() });
    expect(result?.serverError).toBeUndefined();
    expect(result?.data).toMatchObject({ state: "sent", replay: false, channels: ["webhook"] });
    expect(await requests("POST /link-session")).toBe(sessions + 1);

    // The product's back end gets one message it verifies with the Standard Webhooks library.
    const kept = (await receiver.waitForKept(receiver.kept().length + 1)).filter(
      (m) => m.body.data.link_id === link.link_id,
    );
    expect(kept).toHaveLength(1);
    const message = kept[0]!;
    expect(message.body.type).toBe("link.reconnect_requested");
    expect(message.body.data).toMatchObject({
      request_id: result!.data!.requestId,
      customer_user_id: customer,
      link_id: link.link_id,
      institution_id: "ally",
      institution_name: link.institution_name,
      reason: {
        error_code: "auth_expired",
        description: expect.stringMatching(/^Authorization expired \(auth_expired\): /),
        for_end_user: "Your bank's permission for us to read your account has expired.",
      },
    });
    const token = message.body.data.link_session_token as string;
    expect(token).toMatch(/^sandbox_/);
    // Nothing of Linkdesk's own credentials or tokens travels with it.
    expect(message.raw).not.toContain(sandbox.state.options.clientSecret);
    expect(message.raw).not.toMatch(/access_token|Bearer|client_secret/);

    // The end user finishes the relink (the sandbox plays them), the product exchanges the token: the link is back,
    // with the webhook and tags it had.
    const completed = await upstream().completeSandboxSession(token);
    expect(completed.link_id).toBe(link.link_id);
    const exchanged = await upstream().exchangeToken(completed.exchangeable_token);
    expect(exchanged.link).toMatchObject({
      link_id: link.link_id,
      state: "connected",
      webhook: "https://hooks.product.example/links",
      link_tags: ["plan:pro", "region:eu"],
    });
    expect(await upstream().getLink(link.link_id)).toMatchObject({
      webhook: "https://hooks.product.example/links",
      link_tags: ["plan:pro", "region:eu"],
    });

    // The request says so: delivered, and the link came back (the read model saw it connected).
    const [shown] = await linkReconnectRequests(database.db, link.link_id);
    expect(shown).toMatchObject({
      requestedBy: "support@reconnect.test",
      state: "sent",
      errorCode: "auth_expired",
      customerUserId: customer,
      customerSource: "a look-up of the customer's links",
      sessionTokenHint: `…${token.slice(-4)}`,
      keptWebhook: "https://hooks.product.example/links",
      keptTags: ["plan:pro", "region:eu"],
      reconnectedAt: expect.any(String),
    });
    expect(shown!.deliveries).toEqual([
      expect.objectContaining({
        channel: "webhook",
        state: "delivered",
        attempts: 1,
        recipient: new URL(receiver.url).host,
        tries: [expect.objectContaining({ attempt: 1, status: 204, outcome: "delivered" })],
      }),
    ]);

    // Audited, without the token.
    const [audit] = await auditRows(link.link_id);
    expect(audit).toMatchObject({
      outcome: "ok",
      actorEmail: "support@reconnect.test",
      targetType: "link",
      upstreamStatus: 201,
      input: { errorCode: "auth_expired", customerUserId: customer, customerSource: "customer_lookup" },
      before: { state: "error", webhook: "https://hooks.product.example/links", tags: ["plan:pro", "region:eu"] },
      after: { requestId: result!.data!.requestId, channels: ["webhook"] },
    });
    expect(JSON.stringify(audit)).not.toContain(token);
    // Neither does the delivery log, once the message is delivered.
    const [delivery] = await database.db
      .select()
      .from(outboundDeliveries)
      .where(eq(outboundDeliveries.messageId, message.id));
    expect(JSON.stringify(delivery!.body)).not.toContain(token);
  });

  it("makes one session and one message for one click, however often it arrives", async () => {
    const customer = `user_twice_${randomUUID().slice(0, 8)}`;
    const link = await brokenLink(customer);
    await lookUp(customer);
    const sessions = await requests("POST /link-session");
    const requestKey = randomUUID();
    const [a, b] = await Promise.all([
      requestReconnect({ linkId: link.link_id, requestKey }),
      requestReconnect({ linkId: link.link_id, requestKey }),
    ]);
    const again = await requestReconnect({ linkId: link.link_id, requestKey });
    expect(await requests("POST /link-session")).toBe(sessions + 1);
    const answers = [a, b, again].map((r) => r?.data);
    expect(new Set(answers.map((d) => d?.requestId)).size).toBe(1);
    expect(answers.filter((d) => d?.replay === false)).toHaveLength(1);
    await receiver.waitForKept(receiver.kept().length);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.tries.filter((t) => t.body.data.link_id === link.link_id)).toHaveLength(1);
    expect(
      await database.db.select().from(reconnectRequests).where(eq(reconnectRequests.linkId, link.link_id)),
    ).toHaveLength(1);
  });

  it("refuses a second request for the same link from another tab, in words, and sends nothing", async () => {
    const customer = `user_tabs_${randomUUID().slice(0, 8)}`;
    const link = await brokenLink(customer);
    await lookUp(customer);
    expect((await requestReconnect({ linkId: link.link_id, requestKey: randomUUID() }))?.data?.state).toBe("sent");
    const sessions = await requests("POST /link-session");
    const second = await requestReconnect({ linkId: link.link_id, requestKey: randomUUID() });
    expect(second?.serverError).toMatch(
      /^support@reconnect\.test asked this link's user to reconnect 1 min ago, and that request was sent .* Linkdesk does not ask twice within 10 minutes; ask again after \d\d:\d\d UTC if the link is still broken\. Nothing was sent\.$/,
    );
    expect(await requests("POST /link-session")).toBe(sessions);
    expect((await auditRows(link.link_id))[0]).toMatchObject({ outcome: "refused" });
  });

  it("emails the end user when their address is known (an import's file named it), with the product's page and the token", async () => {
    const customer = `user_mail_${randomUUID().slice(0, 8)}`;
    const link = await brokenLink(customer);
    // What Linkdesk's import keeps of the link: its identity and the import call's body, the customer's email in it.
    const job = await insertJob(database.db, {
      kind: "import",
      title: "legacy.json: 1 link",
      createdBy: { id: signedIn!.id, email: signedIn!.email, role: "ops" },
      items: [
        {
          input: {
            step: "link",
            position: 0,
            body: { customer_user: { id: customer, email: { address: "ada@example.com" } }, institution_id: "ally" },
          },
          linkId: link.link_id,
        },
      ],
    });
    await database.db.insert(importedLinks).values({
      identityKey: `test:${customer}`,
      tag: `ld-import:${customer}`,
      customerUserId: customer,
      institutionId: "ally",
      jobId: job.id,
      position: 0,
      linkId: link.link_id,
      state: "created",
    });

    const result = await requestReconnect({ linkId: link.link_id, requestKey: randomUUID() });
    expect(result?.data?.channels).toEqual(["webhook", "email"]);
    const deadline = Date.now() + 15_000;
    while (!smtp.received.some((m) => m.to.includes("ada@example.com")) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const mail = smtp.received.find((m) => m.to.includes("ada@example.com"))!;
    expect(mail).toMatchObject({ from: "support@product.example", subject: "Reconnect your Ally Bank account" });
    const webhook = (await receiver.waitForKept(receiver.kept().length)).find(
      (m) => m.body.data.link_id === link.link_id,
    )!;
    const token = webhook.body.data.link_session_token as string;
    expect(mail.text).toContain(`${RECONNECT_URL}?link_session_token=${token}`);
    expect(mail.text).toContain("Your bank's permission for us to read your account has expired.");
    const [shown] = await linkReconnectRequests(database.db, link.link_id);
    expect(shown!.customerSource).toBe("its import file");
    expect(shown!.deliveries.map((d) => [d.channel, d.recipient])).toEqual(
      expect.arrayContaining([
        ["webhook", new URL(receiver.url).host],
        ["email", "ada@example.com"],
      ]),
    );
  });

  it("refuses, in words and before any session, a link that does not need its user, a deleted one, and one whose customer is unknown", async () => {
    const sessions = await requests("POST /link-session");
    const connected = await requestReconnect({ linkId: fixtures.plain![0]!, requestKey: randomUUID() });
    expect(connected?.serverError).toBe(
      "The link does not need its user: its state is Connected, and it works. A reconnect request is for a link in error whose fix lies with the end user.",
    );

    const customer = `user_gone_${randomUUID().slice(0, 8)}`;
    const gone = await brokenLink(customer);
    await lookUp(customer);
    await upstream().deleteLink(gone.link_id);
    const deleted = await requestReconnect({ linkId: gone.link_id, requestKey: randomUUID() });
    expect(deleted?.serverError).toMatch(/^The link is deleted: it cannot be reconnected\./);

    const unknown = await brokenLink(`user_unknown_${randomUUID().slice(0, 8)}`);
    const nobody = await requestReconnect({ linkId: unknown.link_id, requestKey: randomUUID() });
    expect(nobody?.serverError).toMatch(
      /^Linkdesk does not know which customer user this link belongs to: .* look it up under Links → A customer's links, then ask again\. Nothing was sent\.$/,
    );
    expect(await requests("POST /link-session")).toBe(sessions);
    expect((await auditRows(unknown.link_id))[0]).toMatchObject({ outcome: "refused" });
  });

  it("records a session the upstream failed to make, and says so", async () => {
    const customer = `user_fail_${randomUUID().slice(0, 8)}`;
    const link = await brokenLink(customer);
    await lookUp(customer);
    await fetch(`${sandboxUrl}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ status: 503, paths: ["/link-session"], count: 1 }),
    });
    const result = await requestReconnect({ linkId: link.link_id, requestKey: randomUUID() });
    expect(result?.serverError).toMatch(/upstream/i);
    const [shown] = await linkReconnectRequests(database.db, link.link_id);
    expect(shown).toMatchObject({ state: "failed", deliveries: [] });
    expect(shown!.reason).toMatch(/^No link session was made: /);
    expect((await auditRows(link.link_id))[0]).toMatchObject({ outcome: "upstream_error", upstreamStatus: 503 });
    // A failed request does not hold the next one back.
    expect((await requestReconnect({ linkId: link.link_id, requestKey: randomUUID() }))?.data?.state).toBe("sent");
  });

  it("records a session the upstream's configuration forbids (403 forbidden_config) in words that name the setting", async () => {
    const customer = `user_forbidden_${randomUUID().slice(0, 8)}`;
    const link = await brokenLink(customer);
    await lookUp(customer);
    const register = (redirectUris: string[] | null) =>
      fetch(`${sandboxUrl}/_sandbox/settings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirectUris }),
      });
    await register(["https://registered.product.example/return"]);
    try {
      const before = await requests("POST /link-session");
      const result = await requestReconnect({ linkId: link.link_id, requestKey: randomUUID() });
      expect(result?.serverError).toMatch(/configuration for this app forbids this link session/);
      expect(result?.serverError).toContain("LINK_SESSION_REDIRECT_URI");
      expect(await requests("POST /link-session")).toBe(before + 1);
      const [shown] = await linkReconnectRequests(database.db, link.link_id);
      expect(shown).toMatchObject({ state: "failed", deliveries: [] });
      expect((await auditRows(link.link_id))[0]).toMatchObject({ outcome: "upstream_error", upstreamStatus: 403 });
    } finally {
      await register(null);
    }
  });

  it("refuses when delivery is not configured", async () => {
    const { askToReconnect } = await import("../reconnect/request");
    const { reconnectSetupFrom } = await import("../reconnect/setup");
    const setup = reconnectSetupFrom({ OUTBOUND_TIMEOUT_MS: 1000 });
    await expect(
      askToReconnect(
        { linkId: fixtures.plain![1]!, requestKey: randomUUID() },
        {
          db: database.db,
          api: upstream(),
          setup,
          staff: { id: signedIn!.id, email: signedIn!.email, role: "support" },
          correlationId: randomUUID(),
        },
      ),
    ).rejects.toThrow(
      "Reconnect requests are off on this Linkdesk: an administrator must set LINK_SESSION_REDIRECT_URI, PRODUCT_WEBHOOK_URL, PRODUCT_WEBHOOK_SECRET (docs/reconnect.md says what each is). Nothing was sent.",
    );
  });
});
