import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { Db } from "../db/client";
import { jobItems, jobs, links, outboundDeliveries, reconnectRequests } from "../db/schema";
import { JobRunner } from "../jobs/engine";
import { RECONNECT_KIND, campaignRequestKey, createReconnectKind } from "../jobs/reconnect";
import { readJob } from "../jobs/store";
import { itemLabel } from "../jobs/view";
import { rememberLinkCustomers } from "../links/customers";
import { OutboundWorker } from "../outbound/worker";
import { withTestDatabases } from "../testing/databases";
import { type ProductReceiver, startProductReceiver } from "../testing/product-receiver";
import { campaignSummary, planCampaign, startCampaign } from "./campaign";
import { reconnectSetupFrom } from "./setup";
import { untilJobFinished } from "../testing/job-finished";

// A reconnect campaign on the real engine against the sandbox and a product receiver that verifies each message's
// signature: the view's links that need their user are each asked once, the others are skipped for a reason in the
// plan, an item tried again after a lost answer makes no second session, and the same view asked again at once asks
// nobody twice.

const databases = withTestDatabases();
const database = databases[databases.length - 1]!;
const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0 });
const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-campaign-"));
let receiver: ProductReceiver;
let sandboxUrl: string;

beforeAll(async () => {
  sandboxUrl = await sandbox.listen(0);
  receiver = await startProductReceiver();
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: sandboxUrl,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "reconnect-campaign-secret-0123456789abcdef01",
    LOG_LEVEL: "silent",
    LINKDESK_DATA_DIR: dataDir,
  });
});

const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop(100)));
});

afterAll(async () => {
  await sandbox.close();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const { upstream } = await import("../upstream");
const db = (): Db => database.database.db;
const ops = { id: randomUUID(), email: "ops@campaign.test", role: "ops" };
const setup = () =>
  reconnectSetupFrom({
    PRODUCT_WEBHOOK_URL: receiver.url,
    PRODUCT_WEBHOOK_SECRET: receiver.secret,
    LINK_SESSION_REDIRECT_URI: "https://app.product.example/return",
    OUTBOUND_TIMEOUT_MS: 2_000,
  });

/** A link the sandbox holds in error (imported without credentials), in the read model with this test's tag. */
async function brokenLink(customerUserId: string, tag: string, institutionId = "ally"): Promise<string> {
  const link = await upstream().importLink({
    customer_user: { id: customerUserId },
    institution_id: institutionId,
    link_tags: [tag, "plan:basic"],
  });
  await db()
    .insert(links)
    .values({
      linkId: link.link_id,
      state: link.state,
      errorCode: link.error_code ?? null,
      institutionId,
      linkTags: [tag, "plan:basic"],
    })
    .onConflictDoUpdate({ target: links.linkId, set: { linkTags: [tag, "plan:basic"] } });
  return link.link_id;
}

function run(jobId: string) {
  startRunner();
  return untilJobFinished(db(), jobId);
}

function startRunner(outageRecheckMs = 60_000) {
  const runner = new JobRunner({
    db: db(),
    api: upstream(),
    kinds: new Map([[RECONNECT_KIND, createReconnectKind({ setup, outageRecheckMs })]]),
    pollMs: 50,
    leaseMs: 5_000,
    heartbeatMs: 1_000,
  });
  runners.push(runner);
  runner.start();
}

const sessions = () => sandbox.state.stats.snapshot().applied["POST /link-session"] ?? 0;

describe(`a reconnect campaign, on ${database.kind}`, () => {
  it("asks each link of the view that needs its user once, skips the rest for a reason, and never twice", async () => {
    const tag = `campaign:${randomUUID().slice(0, 8)}`;
    const customers = ["user_c1", "user_c2", "user_c3"].map((c) => `${c}_${randomUUID().slice(0, 6)}`);
    const asked = await Promise.all(customers.map((c) => brokenLink(c, tag)));
    const unknown = await brokenLink(`user_nobody_${randomUUID().slice(0, 6)}`, tag);
    for (const [i, linkId] of asked.entries())
      await rememberLinkCustomers(db(), customers[i]!, [linkId], "customer_lookup");
    // A link of the view that works: not asked.
    const working = `mk_ok${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    await db()
      .insert(links)
      .values({ linkId: working, state: "connected", institutionId: "ally", linkTags: [tag] });

    const plan = await planCampaign(db(), { tag }, { askedWithinDays: 7 });
    expect(plan.links).toBe(5);
    expect(plan.targets.map((t) => t.linkId).sort()).toEqual([...asked].sort());
    expect(plan.skipped).toMatchObject({ no_customer: 1, not_user_error: 1, asked_recently: 0 });
    expect(plan.users).toBe(3);
    expect(plan.targets.map((t) => t.linkId)).not.toContain(unknown);

    const before = sessions();
    const keptBefore = receiver.kept().length;
    const job = await startCampaign(db(), ops, { tag }, plan, 7);
    // Each item is its link, named on the job's page by why it is asked.
    const planned = await db().select().from(jobItems).where(eq(jobItems.jobId, job.id));
    expect(planned.map((i) => i.targetId).sort()).toEqual([...asked].sort());
    expect(itemLabel(RECONNECT_KIND, planned[0]!)).toBe("Authorization expired at ally");
    expect((await run(job.id)).state).toBe("done");
    expect(sessions() - before).toBe(3);
    // The dashboard's outbound worker hands the queued messages to the product.
    const outbound = new OutboundWorker({ db: db(), config: () => setup().outbound, pollMs: 50 });
    outbound.start();
    try {
      await receiver.waitForKept(keptBefore + 3, 15_000);
    } finally {
      await outbound.stop(1_000);
    }
    const messages = receiver.kept().filter((m) => asked.includes(String(m.body.data.link_id)));
    expect(messages.map((m) => m.body.data.link_id).sort()).toEqual([...asked].sort());
    // The message carries the session's token, never the client's credentials.
    for (const m of messages) {
      expect(m.body.data.link_session_token).toEqual(expect.any(String));
      expect(m.raw).not.toContain(sandbox.state.options.clientSecret);
    }
    const summary = await campaignSummary(db(), job.id);
    expect(summary).toMatchObject({ requested: 3, sent: 3, failed: 0, delivered: 3, reconnected: 0, stillBroken: 3 });

    // An item whose answer was lost is checked, not asked again: its request is found by the campaign's key.
    const [item] = await db()
      .select()
      .from(jobItems)
      .where(and(eq(jobItems.jobId, job.id), eq(jobItems.linkId, asked[0]!)));
    const [request] = await db()
      .select()
      .from(reconnectRequests)
      .where(eq(reconnectRequests.requestKey, campaignRequestKey(job.id, asked[0]!)));
    expect(request?.jobId).toBe(job.id);
    await db()
      .update(jobItems)
      .set({ state: "sent", sentAt: new Date(), leaseOwner: null, leaseUntil: null, finishedAt: null })
      .where(eq(jobItems.id, item!.id));
    await db().update(jobs).set({ state: "running", finishedAt: null }).where(eq(jobs.id, job.id));
    expect((await run(job.id)).state).toBe("done");
    expect(sessions() - before).toBe(3);

    // The same view at once: every link was just asked, so nobody is asked again.
    const again = await planCampaign(db(), { tag }, { askedWithinDays: 7 });
    expect(again.targets).toEqual([]);
    expect(again.skipped.asked_recently).toBe(3);
    // Even a campaign planned before the first's requests existed asks nobody twice: each link is refused in words.
    const second = await startCampaign(db(), ops, { tag }, plan, 0);
    expect((await run(second.id)).state).toBe("done");
    expect(sessions() - before).toBe(3);
    const reasons = await db()
      .select({ reason: jobItems.reason, state: jobItems.state })
      .from(jobItems)
      .where(eq(jobItems.jobId, second.id));
    expect(reasons.map((r) => r.state)).toEqual(["skipped", "skipped", "skipped"]);
    for (const r of reasons) expect(r.reason).toMatch(/asked this link's user to reconnect \d+ min ago/);

    // A link comes back (the read model sees it connected): the campaign counts it reconnected.
    await db().update(links).set({ state: "connected", errorCode: null }).where(eq(links.linkId, asked[1]!));
    expect(await campaignSummary(db(), job.id)).toMatchObject({
      reconnected: 1,
      stillBroken: 2,
      byDay: [{ day: 0, reconnected: 1 }],
      failures: [],
    });
    // A delivery that failed for good is counted, with its last outcome in words.
    const [third] = await db()
      .select({ messageId: reconnectRequests.messageId })
      .from(reconnectRequests)
      .where(eq(reconnectRequests.requestKey, campaignRequestKey(job.id, asked[2]!)));
    await db()
      .update(outboundDeliveries)
      .set({ state: "failed", lastOutcome: "The product answered HTTP 500" })
      .where(eq(outboundDeliveries.messageId, third!.messageId!));
    expect(await campaignSummary(db(), job.id)).toMatchObject({
      deliveryFailed: 1,
      failures: [{ outcome: "The product answered HTTP 500", count: 1 }],
    });

    // Asking the still broken again is a campaign over the view of the campaign's links not back: the two others. Not
    // within ten minutes of their request, even with "never skip": the preview counts what would be sent.
    const tooSoon = await planCampaign(db(), { campaign: job.id }, { askedWithinDays: 0 });
    expect(tooSoon).toMatchObject({ links: 2, targets: [], skipped: { asked_recently: 2 } });
    await db()
      .update(reconnectRequests)
      .set({ requestedAt: new Date(Date.now() - 60 * 60_000) })
      .where(eq(reconnectRequests.jobId, job.id));
    const stillBroken = await planCampaign(db(), { campaign: job.id }, { askedWithinDays: 0 });
    expect(stillBroken.links).toBe(2);
    expect(stillBroken.targets.map((t) => t.linkId).sort()).toEqual([asked[0]!, asked[2]!].sort());
    // With the usual skip they were all asked within the week, so nobody would be.
    const skippedAll = await planCampaign(db(), { campaign: job.id }, { askedWithinDays: 7 });
    expect(skippedAll).toMatchObject({ links: 2, targets: [], skipped: { asked_recently: 2 } });
  });

  it("holds a link's request while it, or its institution, is in an outage, and asks it once the outage clears", async () => {
    const tag = `outage:${randomUUID().slice(0, 8)}`;
    const customer = `user_outage_${randomUUID().slice(0, 6)}`;
    // Two links needing their user at Chase, and a third in Chase's outage itself; two other Chase links, not in the
    // view, are in the outage too.
    const [first, second, inOutage] = await Promise.all([0, 1, 2].map(() => brokenLink(customer, tag, "chase")));
    await rememberLinkCustomers(db(), customer, [first!, second!, inOutage!], "customer_lookup");
    const setState = async (linkId: string, state: string, errorCode: string | null) => {
      const answer = await fetch(`${sandboxUrl}/_sandbox/links/${linkId}/state`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(errorCode ? { state, error_code: errorCode } : { state }),
      });
      expect(answer.status).toBe(200);
      await db().update(links).set({ state, errorCode }).where(eq(links.linkId, linkId));
    };
    await setState(inOutage!, "error", "institution_error");
    const elsewhere = [0, 1].map(() => `mk_out${randomUUID().replace(/-/g, "").slice(0, 16)}`);
    await db()
      .insert(links)
      .values(
        elsewhere.map((linkId) => ({ linkId, state: "error", errorCode: "institution_error", institutionId: "chase" })),
      );

    const plan = await planCampaign(db(), { tag }, { askedWithinDays: 7 });
    expect(plan.targets).toHaveLength(3);
    expect(plan.waiting).toBe(3);
    expect(plan.targets.find((t) => t.linkId === inOutage)!.held).toMatch(/the link itself is in .*'s outage/);
    expect(plan.targets.find((t) => t.linkId === first)!.held).toMatch(/is in an outage \(3 of 5 links there/);

    const before = sessions();
    const job = await startCampaign(db(), ops, { tag }, plan, 7);
    startRunner(200);
    // Held: nothing is sent while the outage lasts, and the campaign's page counts them waiting.
    await expectSoon(async () => expect((await campaignSummary(db(), job.id)).waiting).toBe(3));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(sessions() - before).toBe(0);
    expect((await readJob(db(), job.id))?.state).toBe("running");

    // The outage clears: the other link is back, and the one in the outage came back by itself.
    await db().update(links).set({ state: "connected", errorCode: null }).where(inArray(links.linkId, elsewhere));
    await setState(inOutage!, "connected", null);
    const done = await untilJobFinished(db(), job.id);
    expect(done.state).toBe("done");
    expect(sessions() - before).toBe(2);
    const items = await db()
      .select({ linkId: jobItems.linkId, state: jobItems.state, reason: jobItems.reason })
      .from(jobItems)
      .where(eq(jobItems.jobId, job.id));
    expect(
      items
        .filter((i) => i.state === "done")
        .map((i) => i.linkId)
        .sort(),
    ).toEqual([first, second].sort());
    expect(items.find((i) => i.linkId === inOutage)).toMatchObject({ state: "skipped" });
    expect(items.find((i) => i.linkId === inOutage)!.reason).toMatch(/does not need its user/);
    expect((await campaignSummary(db(), job.id)).waiting).toBe(0);
    await db().delete(links).where(inArray(links.linkId, elsewhere));
  });
});

describe(`what counts as an outage, on ${database.kind}`, () => {
  it("is a tenth or more of an institution's links in Institution outage, not one link left in it", async () => {
    const { outageHolding } = await import("./outage");
    const institutionId = `bank_${randomUUID().slice(0, 6)}`;
    const id = () => `mk_t${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    const broken = id();
    const lone = id();
    await db()
      .insert(links)
      .values([
        { linkId: broken, state: "error", errorCode: "auth_expired", institutionId },
        { linkId: lone, state: "error", errorCode: "institution_error", institutionId },
        ...Array.from({ length: 18 }, () => ({ linkId: id(), state: "connected", institutionId })),
      ]);
    // 1 of 20: that link's own trouble. Its own request waits; the others' do not.
    expect(await outageHolding(db(), broken)).toBeNull();
    expect(await outageHolding(db(), lone)).toMatch(/the link itself is in/);
    // Two more make it 3 of 22, over a tenth: an outage.
    await db()
      .insert(links)
      .values([0, 1].map(() => ({ linkId: id(), state: "error", errorCode: "institution_error", institutionId })));
    expect(await outageHolding(db(), broken)).toMatch(/is in an outage \(3 of 22 links there in Institution outage\)/);
  });
});

async function expectSoon(check: () => Promise<void>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
