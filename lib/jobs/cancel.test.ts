import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { summary } from "@/components/jobs/job-progress";
import { createSandbox } from "../../sandbox/server";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import type { Db } from "../db/client";
import { jobItems, jobs } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { UpstreamApi, UpstreamClient } from "../upstream";
import { CORRECTION_ENDPOINT, CORRECTION_KIND, createCorrectionKind } from "./correction";
import { JobRunner } from "./engine";
import type { JobKind } from "./kind-contract";
import {
  type Actor,
  type NewJobItem,
  applyControl,
  claimItems,
  finishJobIfSettled,
  insertJob,
  markSent,
  releaseItem,
  renewLeases,
  settleItem,
} from "./store";
import { readJobView } from "./view";

// Cancelling a job while its items wait for rate-limit slots: an item an instance holds while it waits for its budget
// slot is cancelled like any pending one, stays cancelled when its holder gives it back, and is never sent.

const databases = withTestDatabases();
const sandbox = createSandbox({ links: 4, transactionsPerLink: 20, rateLimits: false, importDelayMs: 0 });
let baseUrl = "";
let linkId = "";
const actor: Actor = { id: randomUUID(), email: "support@cancel.test", role: "support" };
const runners: JobRunner[] = [];

const corrections = (ids: string[]): NewJobItem[] =>
  ids.map((transactionId) => ({
    input: { transactionId, before: null, after: { category: "taxes" } },
    targetId: transactionId,
  }));

async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const itemsOf = (db: Db, jobId: string) =>
  db.select().from(jobItems).where(eq(jobItems.jobId, jobId)).orderBy(jobItems.seq);

/** Corrections the sandbox applied, of any transaction. */
function enrichmentCalls(): number {
  return Object.entries(sandbox.state.stats.snapshot().applied)
    .filter(([request]) => request.endsWith("/enrichment"))
    .reduce((n, [, count]) => n + count, 0);
}

beforeAll(async () => {
  baseUrl = await sandbox.listen(0, "127.0.0.1");
  const fixtures = (await (await fetch(`${baseUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  linkId = fixtures.plain![0]!;
});

afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop(2_000)));
  sandbox.state.stats.reset();
});

afterAll(() => sandbox.close());

describe.each(databases)("$kind", (target) => {
  it("cancels an item its holder is waiting with, and its holder can then neither send it nor make it pending again", async () => {
    const db = target.database.db;
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "parked",
      linkId: `mk_${randomUUID()}`,
      createdBy: actor,
      items: corrections(["txn_a", "txn_b", "txn_c"]),
    });
    const [parked, inFlight] = await claimItems(db, job.id, "waiting-instance", 2);
    expect(await markSent(db, inFlight!.id, "waiting-instance", randomUUID())).toBe(true);

    expect(await applyControl(db, job.id, "cancel", actor.email)).toBe("cancelled");
    // The holder's wait ends (the budget's slot came, or it was stopped): it is told no, and gives the item back.
    expect(await markSent(db, parked!.id, "waiting-instance", randomUUID())).toBe(false);
    await releaseItem(db, parked!.id, "waiting-instance", { state: "pending", retryInMs: 0 });
    expect(await settleItem(db, parked!.id, "waiting-instance", { state: "skipped", reason: "too late" })).toBe(false);
    expect(await renewLeases(db, "waiting-instance", [parked!.id, inFlight!.id])).toEqual([inFlight!.id]);
    const items = await itemsOf(db, job.id);
    expect(items.map((i) => i.state)).toEqual(["cancelled", "sent", "cancelled"]);
    expect(items[0]).toMatchObject({
      reason: `Cancelled by ${actor.email}`,
      leaseUntil: null,
      notBefore: null,
      attempts: 0,
    });

    // The call in flight is answered; then the job is over, and its counts add up.
    expect(await settleItem(db, inFlight!.id, "waiting-instance", { state: "done", upstreamStatus: 200 })).toBe(true);
    await finishJobIfSettled(db, job.id);
    const view = (await readJobView(db, job.id, { budget: null }))!;
    expect(view).toMatchObject({
      state: "cancelled",
      total: 3,
      settled: 3,
      counts: { pending: 0, sent: 0, done: 1, cancelled: 2 },
    });
    expect(view.finishedAt).not.toBeNull();
    expect(summary(view)).toBe("Cancelled: 1 done, 2 cancelled of 3.");
  });

  it("cancels a running job's items while the engine waits for their per-link slots: none is sent, none is left pending", async () => {
    const db = target.database.db;
    const { clientId, clientSecret } = sandbox.state.options;
    const budget = new Budget({
      store: createMemoryStore(),
      clientId,
      appId: clientId,
      shares: { app: 0.5, link: 0.5, user: 0.5, client: 0.5 },
      interactiveMaxWaitMs: 0,
    });
    // Someone used the link's whole minute of corrections: the job's calls wait about a minute for their slots.
    for (let i = 0; i < 30; i++) await budget.reserve(CORRECTION_ENDPOINT, { linkId }, { mode: "interactive" });
    const page = await new UpstreamApi(new UpstreamClient({ baseUrl, clientId, clientSecret })).getTransactions(
      linkId,
      { size: 20 },
    );
    const ids = page.transactions
      .filter((t) => t.enrichment?.category.value !== "taxes")
      .slice(0, 4)
      .map((t) => t.transaction_id);
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "waits",
      linkId,
      createdBy: actor,
      concurrency: 2,
      items: corrections(ids),
    });

    const kind = createCorrectionKind({ settleMs: 0 });
    const api = new UpstreamApi(
      new UpstreamClient({ baseUrl, clientId, clientSecret, timeoutMs: 2_000, gate: budget }),
    );
    const runner = new JobRunner({
      db,
      api,
      kinds: new Map([[kind.kind, kind as JobKind]]),
      pollMs: 50,
      heartbeatMs: 100,
    });
    runners.push(runner);
    runner.start();
    await waitFor(
      "the engine to hold two items",
      async () => runner.busy,
      (busy) => busy === 2,
    );
    const waiting = (await readJobView(db, job.id, { budget }))!;
    expect(waiting).toMatchObject({
      state: "running",
      counts: { pending: 4, sent: 0 },
      waiting: { limit: "the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment" },
    });
    expect(summary(waiting)).toMatch(
      /^0 done of 4\. Waiting for the per-link limit of POST \/links\/\{id\}\/transactions\/\{txn_id\}\/enrichment, next slot in \d+ s; about .+ left\.$/,
    );

    expect(await applyControl(db, job.id, "cancel", actor.email)).toBe("cancelled");
    // Its next heartbeat finds the items no longer its own: it stops waiting and gives them back.
    await waitFor(
      "the engine to let go of the items",
      async () => runner.busy,
      (busy) => busy === 0,
    );
    const items = await itemsOf(db, job.id);
    expect(items.map((i) => i.state)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled"]);
    expect(items.map((i) => i.attempts)).toEqual([0, 0, 0, 0]);
    const [row] = await db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(row!.finishedAt).not.toBeNull();
    const view = (await readJobView(db, job.id, { budget }))!;
    expect(view).toMatchObject({
      state: "cancelled",
      settled: 4,
      waiting: null,
      counts: { cancelled: 4, pending: 0, sent: 0 },
    });
    expect(enrichmentCalls()).toBe(0);
  });
});
