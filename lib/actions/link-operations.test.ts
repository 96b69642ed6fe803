import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { SignedInStaff } from "../auth/credentials";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { auditLog, staff } from "../db/schema";
import { updateLinkDefaults } from "../schemas/link-operations";

// The link page's three operations as a direct POST would call them, against the sandbox and an embedded database:
// what reaches the upstream, what the read model and the audit trail keep, and what the person reads when it fails.

let signedIn: SignedInStaff | null = null;
let database: Database;

vi.mock("../auth", () => ({
  currentStaff: async () => signedIn,
  sessionAccount: async () => signedIn && { ...signedIn, authSource: "password", passwordChangeRequired: false },
  clientAddress: () => "203.0.113.9",
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

// Seeded a month back, so every seeded product was refreshed long enough ago to be refreshed now.
const anchorDate = new Date(Date.now() - 30 * 24 * 60 * 60_000).toISOString().slice(0, 10);
const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0, refreshDelayMs: 0, anchorDate });
const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-link-operations-"));
let sandboxUrl = "";
let fixtures: Record<string, string[]> = {};

beforeAll(async () => {
  sandboxUrl = await sandbox.listen(0);
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: sandboxUrl,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "link-operations-secret-0123456789abcdef",
    LOG_LEVEL: "silent",
    DATABASE_URL: "",
    LINKDESK_DATA_DIR: dataDir,
  });
  database = await openTestPglite();
  // As the app wires it at start (lib/startup.ts): the door's answers keep the read model current.
  (await import("../links/read-model")).recordUpstreamAnswers();
  const [row] = await database.db
    .insert(staff)
    .values({ email: "support@operations.test", role: "support" })
    .returning();
  signedIn = { id: row!.id, email: row!.email, name: null, role: "support" };
  fixtures = (await (await fetch(`${sandboxUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
}, 60_000);

afterAll(async () => {
  await database?.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const { refreshProducts, sendTestWebhook, updateLink } = await import("./link-operations");
const { upstream } = await import("../upstream");
const { storedLink } = await import("../links/stored-link");

/** Requests the sandbox answered on one endpoint. */
async function requests(endpoint: string): Promise<number> {
  const stats = (await (await fetch(`${sandboxUrl}/_sandbox/stats`)).json()) as {
    byEndpoint: Record<string, { requests: number }>;
  };
  return stats.byEndpoint[endpoint]?.requests ?? 0;
}

async function lastAudit(action: string) {
  const [row] = await database.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.action, action))
    .orderBy(desc(auditLog.id))
    .limit(1);
  return row;
}

/** The form's starting values for a link as the upstream has it now (what the page would show). */
async function formOf(linkId: string) {
  return updateLinkDefaults(await upstream().getLink(linkId));
}

describe("updateLink", () => {
  it("sets the webhook and tags upstream, keeps them in the read model, and audits before and after", async () => {
    const linkId = fixtures.plain![2]!;
    const form = await formOf(linkId);
    const result = await updateLink({
      ...form,
      webhook: " https://hooks.linkdesk.example/ops ",
      tags: "team:ops\n\nregion:eu\nteam:ops\n",
    });
    expect(result?.serverError).toBeUndefined();
    expect(result?.data?.after).toEqual({
      webhook: "https://hooks.linkdesk.example/ops",
      tags: ["team:ops", "region:eu"],
    });
    const upstreamLink = await upstream().getLink(linkId);
    expect(upstreamLink).toMatchObject({
      webhook: "https://hooks.linkdesk.example/ops",
      link_tags: ["team:ops", "region:eu"],
    });
    const stored = await storedLink(database.db, linkId);
    expect(stored?.link).toMatchObject({
      webhook: "https://hooks.linkdesk.example/ops",
      link_tags: ["team:ops", "region:eu"],
    });
    expect(await lastAudit("link.update")).toMatchObject({
      outcome: "ok",
      linkId,
      upstreamStatus: 200,
      before: { webhook: form.seen.webhook, tags: form.seen.tags },
      after: { webhook: "https://hooks.linkdesk.example/ops", tags: ["team:ops", "region:eu"] },
    });
  });

  it("removes the webhook when the address is left empty, sending only what changed", async () => {
    const linkId = fixtures.plain![2]!;
    const form = await formOf(linkId);
    expect(form.seen.webhook).not.toBeNull();
    const result = await updateLink({ ...form, webhook: "" });
    expect(result?.data).toMatchObject({ changed: ["webhook"], after: { webhook: null, tags: form.seen.tags } });
    expect((await upstream().getLink(linkId)).webhook ?? null).toBeNull();
  });

  it("sends nothing when the link changed upstream since the page showed it, and says what it has now", async () => {
    const linkId = fixtures.plain![3]!;
    const form = await formOf(linkId);
    await upstream().updateLink(linkId, { link_tags: ["changed:elsewhere"] });
    const patches = await requests("PATCH /links/{id}");
    const result = await updateLink({ ...form, tags: "mine:too" });
    expect(result?.serverError).toMatch(/changed since the page showed them .*“changed:elsewhere”.* reload the page/);
    expect(await requests("PATCH /links/{id}")).toBe(patches);
    expect(await lastAudit("link.update")).toMatchObject({
      outcome: "refused",
      before: { tags: ["changed:elsewhere"] },
    });
  });

  it("refuses an address that is not http(s), one with a password in it, and tags the upstream would refuse, before any call", async () => {
    const linkId = fixtures.plain![3]!;
    const form = await formOf(linkId);
    const reads = await requests("GET /links/{id}");
    for (const webhook of [
      "javascript:alert(1)",
      "ftp://files.example/hook",
      "hooks.example/relative",
      "https://user:secret@hooks.example/x",
    ]) {
      const result = await updateLink({ ...form, webhook });
      expect(result?.validationErrors?.fieldErrors?.webhook?.[0], webhook).toMatch(
        /web address|user name and password/,
      );
    }
    const tags = await updateLink({ ...form, tags: "ok:1\n-starts-with-dash\n" + "x".repeat(100) });
    expect(tags?.validationErrors?.fieldErrors?.tags?.[0]).toMatch(
      /“-starts-with-dash” must start with a letter or digit; “x+…” is 100 characters long/,
    );
    expect(await requests("GET /links/{id}")).toBe(reads);
    expect(await lastAudit("link.update")).toMatchObject({ outcome: "invalid" });
  });

  it("says there is nothing to save when nothing differs", async () => {
    const linkId = fixtures.plain![3]!;
    const result = await updateLink(await formOf(linkId));
    expect(result?.serverError).toBe("Nothing to save: the tags and webhook are already as given.");
  });
});

describe("sendTestWebhook", () => {
  it("has the upstream send the chosen event under a fresh idempotency key, and answers the delivery's token", async () => {
    const linkId = fixtures.plain![4]!;
    const form = await formOf(linkId);
    await updateLink({ ...form, webhook: "https://hooks.linkdesk.example/test" });
    const result = await sendTestWebhook({ linkId, event: "transactions.updates_available" });
    const token = result?.data?.deliveryToken;
    expect(token).toEqual(expect.any(String));
    const { deliveries } = (await (await fetch(`${sandboxUrl}/_sandbox/webhooks?link_id=${linkId}`)).json()) as {
      deliveries: {
        delivery_token: string;
        webhook_event: string;
        url: string;
        payload: { webhook_idempotency_key: string };
      }[];
    };
    const delivery = deliveries.find((d) => d.delivery_token === token);
    expect(delivery).toMatchObject({
      webhook_event: "transactions.updates_available",
      url: "https://hooks.linkdesk.example/test",
    });
    expect(delivery?.payload.webhook_idempotency_key).toBe(result?.data?.idempotencyKey);
    expect(await lastAudit("link.test_webhook")).toMatchObject({
      outcome: "ok",
      upstreamStatus: 200,
      input: { event: "transactions.updates_available", idempotencyKey: result?.data?.idempotencyKey },
      after: { deliveryToken: token },
    });
    // A second test gets a key of its own: the receiver must not take it for a retry of the first.
    const again = await sendTestWebhook({ linkId, event: "link.state_changed" });
    expect(again?.data?.idempotencyKey).not.toBe(result?.data?.idempotencyKey);
  });

  it("says in words that a link without a webhook has nowhere to send a test", async () => {
    const linkId = fixtures.plain![2]!;
    const result = await sendTestWebhook({ linkId, event: "link.state_changed" });
    expect(result?.serverError).toBe(
      "The link has no webhook, so the upstream has nowhere to send a test. Set the link's webhook address first (under Tags and webhook).",
    );
    expect(await lastAudit("link.test_webhook")).toMatchObject({
      upstreamStatus: 400,
      upstreamErrorCode: "link_error.bad_config",
    });
  });

  it("offers only the three events the upstream sends for real", async () => {
    const result = await sendTestWebhook({ linkId: fixtures.plain![4]!, event: "product.state_changed" } as never);
    expect(result?.validationErrors?.fieldErrors?.event).toEqual(["Choose one of the events offered"]);
  });
});

describe("refreshProducts", () => {
  it("starts the refresh, keeps the answer in the read model, and then holds the product for its interval without a call", async () => {
    const linkId = fixtures.plain![5]!;
    await upstream().getLink(linkId);
    const started = Date.now();
    const result = await refreshProducts({ linkId, products: ["accounts"] });
    expect(result?.serverError).toBeUndefined();
    const slot = result?.data?.slots.find((s) => s.product === "accounts");
    // Held for an hour from now: by the link's last attempt and by Linkdesk's own budget.
    expect(Date.parse(slot!.nextAt!)).toBeGreaterThanOrEqual(started + 60 * 60_000);
    expect(Date.parse(slot!.nextAt!)).toBeLessThan(Date.now() + 60 * 60_000 + 5_000);
    const stored = await storedLink(database.db, linkId);
    expect(Date.parse(stored!.link!.products.accounts!.last_attempted_at!)).toBeGreaterThanOrEqual(started - 1000);
    expect(await lastAudit("link.refresh_products")).toMatchObject({
      outcome: "ok",
      upstreamStatus: 202,
      input: { products: ["accounts"] },
    });

    const calls = await requests("POST /links/{id}/products");
    const again = await refreshProducts({ linkId, products: ["accounts"] });
    expect(again?.serverError).toMatch(
      /^Not sent\. Accounts: may be refreshed again at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(/,
    );
    expect(await requests("POST /links/{id}/products")).toBe(calls);
    // Another product of the same link is not held.
    expect((await refreshProducts({ linkId, products: ["transactions"] }))?.serverError).toBeUndefined();
  });

  it("tells when the upstream allows another try after its 429, and holds the product only until then", async () => {
    const linkId = fixtures.plain![6]!;
    // The upstream's answer when an institution refreshes only at certain hours: 429 with a short Retry-After.
    await fetch(`${sandboxUrl}/_sandbox/faults`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ rateLimitStorm: 120, paths: ["/products"], count: 1 }),
    });
    const result = await refreshProducts({ linkId, products: ["transactions"] });
    expect(result?.serverError).toMatch(
      /^The upstream will not refresh Transactions yet: .* It allows another try at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in about 2 min\)\.$/,
    );
    expect(await lastAudit("link.refresh_products")).toMatchObject({ upstreamStatus: 429 });
    const { refreshSchedule } = await import("../links/operations");
    const slot = (await refreshSchedule(await upstream().getLink(linkId))).find((s) => s.product === "transactions");
    expect(slot?.waitFor).toBe("upstream");
    // Until the Retry-After, not for the day a refresh would hold it: the declined refresh gave its slot back.
    expect(Date.parse(slot!.nextAt!)).toBeLessThan(Date.now() + 130_000);
  });

  it("says why a link in error cannot be refreshed", async () => {
    const linkId = fixtures["error:auth_expired"]![0]!;
    const result = await refreshProducts({ linkId, products: ["transactions"] });
    expect(result?.serverError).toMatch(
      /^The upstream refused: the link is in error \(Authorization expired\)\. User must reconnect/,
    );
    // Once Linkdesk has read the link, it says so without asking.
    await upstream().getLink(linkId);
    const calls = await requests("POST /links/{id}/products");
    const known = await refreshProducts({ linkId, products: ["transactions"] });
    expect(known?.serverError).toMatch(
      /^Not sent\. Transactions: cannot be refreshed now\. The link is in error \(Authorization expired\)/,
    );
    expect(await requests("POST /links/{id}/products")).toBe(calls);
  });

  it("refuses a product the link does not have, naming it", async () => {
    const linkId = fixtures.no_transactions_product![0]!;
    await upstream().getLink(linkId);
    const result = await refreshProducts({ linkId, products: ["transactions"] });
    expect(result?.serverError).toBe("The link has no Transactions product to refresh.");
  });

  it("refuses an empty list or a product named twice", async () => {
    const linkId = fixtures.plain![5]!;
    expect((await refreshProducts({ linkId, products: [] }))?.validationErrors?.fieldErrors?.products).toEqual([
      "Choose a product to refresh",
    ]);
    expect(
      (await refreshProducts({ linkId, products: ["identity", "identity"] }))?.validationErrors?.fieldErrors?.products,
    ).toEqual(["Name each product once"]);
  });
});

describe("who may", () => {
  it("refuses a viewer before anything is sent, and audits the refusal", async () => {
    const [row] = await database.db
      .insert(staff)
      .values({ email: "viewer@operations.test", role: "viewer" })
      .returning();
    const support = signedIn;
    signedIn = { id: row!.id, email: row!.email, name: null, role: "viewer" };
    try {
      const calls = await requests("POST /webhooks/test/link/{id}");
      const result = await sendTestWebhook({ linkId: fixtures.plain![4]!, event: "link.state_changed" });
      expect(result?.serverError).toMatch(/^Your role \(Viewer\) may not send test webhooks/);
      expect(await requests("POST /webhooks/test/link/{id}")).toBe(calls);
      const [audit] = await database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "link.test_webhook"), eq(auditLog.actorEmail, "viewer@operations.test")));
      expect(audit?.outcome).toBe("refused");
    } finally {
      signedIn = support;
    }
  });
});
