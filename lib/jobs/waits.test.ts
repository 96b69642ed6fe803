import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summary } from "@/components/jobs/job-progress";
import { createSandbox } from "../../sandbox/server";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import type { Db } from "../db/client";
import { jobItems } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { UpstreamApi, UpstreamClient } from "../upstream";
import { CORRECTION_KIND, createCorrectionKind, startCorrectionJob } from "./correction";
import { JobRunner } from "./engine";
import type { JobKind } from "./kind-contract";
import type { Actor } from "./store";
import { type JobView, readJobView } from "./view";
import { itemReasonNow, readWaitReason, waitReason } from "./waits";

// A job's calls waiting for rate-limit slots, end to end in one process: the budget tells a queued call which limit it
// waits for, the engine records it on the item, and the job's view names it with the time of the next slot, from the
// rows alone (as an instance that runs none of the job's calls reads it); once the calls go out, no wait is left.

describe("waitReason", () => {
  const at = new Date("2026-11-25T12:00:12.000Z");
  const now = Date.parse("2026-11-25T12:00:00.000Z");

  it("records the limit and the slot's time, and reads them back; nothing from any other reason", () => {
    const reason = waitReason({
      endpoint: "GET /links/{id}/transactions",
      scope: "link",
      reason: "full",
      nextSlotAt: at,
    });
    expect(reason).toBe(
      "Waiting for the per-link limit of GET /links/{id}/transactions until 2026-11-25T12:00:12.000Z.",
    );
    expect(readWaitReason(reason)).toEqual({ limit: "the per-link limit of GET /links/{id}/transactions", until: at });
    const closed = waitReason({ endpoint: "POST /links/import", scope: "app", reason: "closed", nextSlotAt: at });
    expect(readWaitReason(closed)?.limit).toBe(
      "the per-app limit of POST /links/import (closed after a 429 from the upstream)",
    );
    for (const other of [
      null,
      "",
      "Cancelled by support@demo.linkdesk.test",
      "Waiting for Godot.",
      "Waiting for the per-link limit of X until never.",
      "Not sent: the budget is away.",
    ]) {
      expect(readWaitReason(other)).toBeNull();
    }
  });

  it("words an item's wait while it lasts, and leaves any other reason as it is", () => {
    const reason = waitReason({
      endpoint: "GET /links/{id}/transactions",
      scope: "link",
      reason: "full",
      nextSlotAt: at,
    });
    expect(itemReasonNow(reason, true, now)).toBe("Waiting for the per-link limit of GET /links/{id}/transactions.");
    // The slot has come, or nobody holds the item any more: the wait is over, and no time in ISO form reaches a page.
    expect(itemReasonNow(reason, true, at.getTime() + 1)).toBeNull();
    expect(itemReasonNow(reason, false, now)).toBeNull();
    expect(itemReasonNow("Service unavailable. The upstream answered 503.", true, now)).toBe(
      "Service unavailable. The upstream answered 503.",
    );
    expect(itemReasonNow(null, true, now)).toBeNull();
  });
});

const databases = withTestDatabases();
const sandbox = createSandbox({ links: 60, transactionsPerLink: 30, rateLimits: false, importDelayMs: 0 });
const actor: Actor = { id: randomUUID(), email: "support@waits.test", role: "support" };
let baseUrl = "";
let links: string[] = [];

beforeAll(async () => {
  baseUrl = await sandbox.listen(0, "127.0.0.1");
  const fixtures = (await (await fetch(`${baseUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  links = fixtures.plain!;
  // One link per database target, so the two runs' corrections never meet.
  expect(links.length).toBeGreaterThanOrEqual(2);
});

afterAll(() => sandbox.close());

/**
 * The upstream behind a budget of one correction per link per window: 2 % of the spec's 60 a minute is one. The window
 * is 3 s instead of a minute (as benchmarks shorten it), so a job waits a few seconds, not a minute.
 */
function gatedApi(): UpstreamApi {
  const budget = new Budget({
    store: createMemoryStore(),
    clientId: sandbox.state.options.clientId,
    appId: sandbox.state.options.clientId,
    shares: { app: 1, link: 0.02, user: 1, client: 1 },
    interactiveMaxWaitMs: 0,
    windowMs: 3_000,
  });
  return new UpstreamApi(
    new UpstreamClient({
      baseUrl,
      clientId: sandbox.state.options.clientId,
      clientSecret: sandbox.state.options.clientSecret,
      timeoutMs: 2_000,
      gate: budget,
    }),
  );
}

async function viewUntil(db: Db, jobId: string, what: string, done: (view: JobView) => boolean): Promise<JobView> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const view = await readJobView(db, jobId, { budget: null });
    if (view && done(view)) return view;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(databases)("$kind", (target) => {
  it("says a job waits for the per-link limit of the correction endpoint, with its next slot, then finishes with no wait left", async () => {
    const db = target.database.db;
    const linkId = links[target.kind === "pglite" ? 0 : 1]!;
    const api = gatedApi();
    const { transactions } = await new UpstreamApi(
      new UpstreamClient({
        baseUrl,
        clientId: sandbox.state.options.clientId,
        clientSecret: sandbox.state.options.clientSecret,
      }),
    ).getTransactions(linkId, { size: 100 });
    const ids = transactions
      .filter((t) => t.enrichment?.category.value !== "charity")
      .slice(0, 3)
      .map((t) => t.transaction_id);
    expect(ids).toHaveLength(3);
    const job = await startCorrectionJob(
      db,
      api,
      actor,
      linkId,
      ids.map((transactionId) => ({ transactionId, category: "charity", subcategory: "other_charity" })),
    );
    const kind = createCorrectionKind({ settleMs: 0 });
    const runner = new JobRunner({
      db,
      api,
      kinds: new Map([[CORRECTION_KIND, kind as JobKind]]),
      pollMs: 50,
      heartbeatMs: 200,
    });
    runner.start();
    try {
      const waiting = await viewUntil(db, job.id, "the job to wait for a slot", (v) => v.waiting !== null);
      expect(waiting.waiting!.limit).toBe("the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment");
      expect(waiting.waiting!.nextSlotInS).toBeGreaterThanOrEqual(1);
      expect(waiting.waiting!.nextSlotInS).toBeLessThanOrEqual(3);
      expect(waiting.etaSeconds).not.toBeNull();
      expect(waiting.etaSeconds!).toBeGreaterThanOrEqual(waiting.waiting!.nextSlotInS);
      expect(summary(waiting)).toMatch(
        /Waiting for the per-link limit of POST \/links\/\{id\}\/transactions\/\{txn_id\}\/enrichment, next slot in [1-3] s; a few seconds left\.$/,
      );
      // The waiting item's row says so; no id of the link, client or app is in the words.
      const reasons = (
        await db.select({ reason: jobItems.reason }).from(jobItems).where(eq(jobItems.jobId, job.id))
      ).map((r) => r.reason);
      expect(reasons.map((r) => readWaitReason(r)?.limit)).toContain(
        "the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment",
      );
      expect(reasons.join(" ")).not.toContain(linkId);
      expect(reasons.join(" ")).not.toContain(sandbox.state.options.clientId);

      const done = await viewUntil(db, job.id, "the job to finish", (v) => v.state === "done");
      expect(done).toMatchObject({ waiting: null, etaSeconds: null, counts: { done: 3, pending: 0, sent: 0 } });
      // No wait left on any item, nor a time to hold a later holder back.
      const after = await db
        .select({ reason: jobItems.reason, notBefore: jobItems.notBefore })
        .from(jobItems)
        .where(eq(jobItems.jobId, job.id));
      expect(after).toEqual(ids.map(() => ({ reason: null, notBefore: null })));
    } finally {
      await runner.stop(2_000);
    }
  }, 30_000);
});
