import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { Db } from "../db/client";
import { importedLinks, linkCustomers, links, reconnectRequests } from "../db/schema";
import { insertJob } from "../jobs/store";
import { knownCustomerOf, rememberLinkCustomers } from "../links/customers";
import { withTestDatabases } from "../testing/databases";
import { type ProductReceiver, startProductReceiver } from "../testing/product-receiver";
import { END_USER_REASONS, RECONNECT_ERROR_CODES, whyNoReconnect } from "./reasons";
import { askToReconnect, isReconnectRefused } from "./request";
import { reconnectSetupFrom } from "./setup";

// What reconnect requests keep in the database, on PGlite and on PostgreSQL: whose link it is, the trigger that marks
// a request reconnected when the read model sees its link connected again, and two requests for one link at once
// (two tabs, two instances) making one session.

const databases = withTestDatabases();
const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0 });
const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-reconnect-store-"));
let receiver: ProductReceiver;
let sandboxUrl = "";

beforeAll(async () => {
  sandboxUrl = await sandbox.listen(0);
  receiver = await startProductReceiver();
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: sandboxUrl,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "reconnect-store-secret-0123456789abcdef0123",
    LOG_LEVEL: "silent",
    LINKDESK_DATA_DIR: dataDir,
  });
});

afterAll(async () => {
  await sandbox.close();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const { upstream } = await import("../upstream");

const staff = { id: randomUUID(), email: "support@store.test", role: "support" };

async function brokenLink(customerUserId: string) {
  return upstream().importLink({
    customer_user: { id: customerUserId },
    institution_id: "ally",
    provider: "moneykit",
    link_tags: ["plan:basic"],
  });
}

describe("the words", () => {
  it("has words for the end user for every code the end user must fix, and only those codes are asked for", () => {
    expect(Object.keys(END_USER_REASONS).sort()).toEqual([...RECONNECT_ERROR_CODES].sort());
    for (const code of RECONNECT_ERROR_CODES) expect(whyNoReconnect({ state: "error", error_code: code })).toBeNull();
    expect(whyNoReconnect({ state: "error", error_code: "institution_error" })).toMatch(
      /^The link does not need its user: Institution outage \(institution_error\) is an outage that clears by itself\./,
    );
    expect(whyNoReconnect({ state: "error", error_code: "system_error" })).toMatch(/is the service's fault/);
    expect(whyNoReconnect({ state: "error", error_code: "brand_new_code" })).toMatch(/does not know/);
    expect(whyNoReconnect({ state: "connecting" })).toMatch(
      /^The link does not need its user: its state is Connecting\./,
    );
  });
});

describe.each(databases)("$kind", (target) => {
  const db = (): Db => target.database.db;

  it("knows a link's customer from its import (with the file's email) before a look-up, and nothing otherwise", async () => {
    const linkId = `mk_store${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    expect(await knownCustomerOf(db(), linkId)).toBeNull();
    await rememberLinkCustomers(db(), "user_looked_up", [linkId], "customer_lookup");
    expect(await knownCustomerOf(db(), linkId)).toEqual({
      customerUserId: "user_looked_up",
      source: "customer_lookup",
      email: null,
    });
    const job = await insertJob(db(), {
      kind: "import",
      title: "store test",
      createdBy: staff,
      items: [
        {
          input: {
            step: "link",
            position: 3,
            body: { customer_user: { id: "user_imported", email: { address: " ada@example.com " } } },
          },
        },
      ],
    });
    await db()
      .insert(importedLinks)
      .values({
        identityKey: `store:${linkId}`,
        tag: "ld:x",
        customerUserId: "user_imported",
        jobId: job.id,
        position: 3,
        linkId,
        state: "created",
      });
    expect(await knownCustomerOf(db(), linkId)).toEqual({
      customerUserId: "user_imported",
      source: "import",
      email: "ada@example.com",
    });
    // An import undone since (its link deleted) is no longer a source.
    await db().update(importedLinks).set({ state: "deleted" }).where(eq(importedLinks.linkId, linkId));
    expect((await knownCustomerOf(db(), linkId))?.source).toBe("customer_lookup");
    await db().delete(linkCustomers).where(eq(linkCustomers.linkId, linkId));
  });

  it("marks a sent request reconnected when the read model first sees its link connected, and no other", async () => {
    const linkId = `mk_trig${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    await db().insert(links).values({ linkId, state: "error", errorCode: "auth_expired" });
    const request = (state: "sent" | "failed") => ({
      requestKey: randomUUID(),
      linkId,
      customerUserId: "user_trigger",
      customerSource: "customer_lookup",
      requestedBy: staff.id,
      requestedByEmail: staff.email,
      requestedByRole: staff.role,
      state,
      correlationId: randomUUID(),
    });
    const [sent] = await db().insert(reconnectRequests).values(request("sent")).returning();
    const [failed] = await db().insert(reconnectRequests).values(request("failed")).returning();
    await db().update(links).set({ errorCode: "invalid_credentials" }).where(eq(links.linkId, linkId));
    await db().update(links).set({ state: "awaiting_token_exchange", errorCode: null }).where(eq(links.linkId, linkId));
    const unchanged = await db().select().from(reconnectRequests).where(eq(reconnectRequests.linkId, linkId));
    expect(unchanged.map((r) => r.reconnectedAt)).toEqual([null, null]);
    await db().update(links).set({ state: "connected" }).where(eq(links.linkId, linkId));
    const after = new Map(
      (await db().select().from(reconnectRequests).where(eq(reconnectRequests.linkId, linkId))).map((r) => [r.id, r]),
    );
    expect(after.get(sent!.id)!.reconnectedAt).toBeInstanceOf(Date);
    expect(after.get(failed!.id)!.reconnectedAt).toBeNull();
    // Seen connected again later: the first time stands.
    const first = after.get(sent!.id)!.reconnectedAt!;
    await db().update(links).set({ state: "error" }).where(eq(links.linkId, linkId));
    await db().update(links).set({ state: "connected" }).where(eq(links.linkId, linkId));
    const [again] = await db().select().from(reconnectRequests).where(eq(reconnectRequests.id, sent!.id));
    expect(again!.reconnectedAt).toEqual(first);
  });

  it("makes one session when two people ask for one link at once, and tells the other in words", async () => {
    const customer = `user_race_${randomUUID().slice(0, 8)}`;
    const link = await brokenLink(customer);
    await rememberLinkCustomers(db(), customer, [link.link_id], "customer_lookup");
    const setup = reconnectSetupFrom({
      PRODUCT_WEBHOOK_URL: receiver.url,
      PRODUCT_WEBHOOK_SECRET: receiver.secret,
      LINK_SESSION_REDIRECT_URI: "https://app.product.example/return",
      OUTBOUND_TIMEOUT_MS: 2_000,
    });
    const ask = () =>
      askToReconnect(
        { linkId: link.link_id, requestKey: randomUUID() },
        { db: db(), api: upstream(), setup, staff, correlationId: randomUUID() },
      );
    const outcomes = await Promise.allSettled([ask(), ask(), ask()]);
    const made = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(made).toHaveLength(1);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(isReconnectRefused((r as PromiseRejectedResult).reason)).toBe(true);
      expect(String((r as PromiseRejectedResult).reason.message)).toMatch(/asked this link's user to reconnect/);
    }
    const rows = await db().select().from(reconnectRequests).where(eq(reconnectRequests.linkId, link.link_id));
    expect(rows.map((r) => r.state)).toEqual(["sent"]);
  });
});
