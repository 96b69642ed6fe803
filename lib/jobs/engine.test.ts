import { randomUUID } from "node:crypto";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSandbox } from "../../sandbox/server";
import { withTestDatabases } from "../testing/databases";
import type { Db } from "../db/client";
import { auditLog, jobItems } from "../db/schema";
import { UpstreamApi, UpstreamClient } from "../upstream";
import { UpstreamError } from "../upstream/errors";
import { createCorrectionKind, startCorrectionJob, startUndoJob } from "./correction";
import { JobRunner } from "./engine";
import type { JobKind } from "./kind-contract";
import { type Actor, applyControl, claimItems, insertJob, markSent } from "./store";
import { readJobView } from "./view";

// The engine against a real (in-process) sandbox over HTTP, on the test database: every planned call made once,
// each audited once; a lost answer checked instead of resent; a dead instance's items taken over; the controls.

const databases = withTestDatabases();
const sandbox = createSandbox({ links: 40, transactionsPerLink: 50, rateLimits: false, importDelayMs: 0 });
let baseUrl = "";
let linkId = "";
const actor: Actor = { id: randomUUID(), email: "support@engine.test", role: "support" };

function api(timeoutMs = 2_000): UpstreamApi {
  return new UpstreamApi(
    new UpstreamClient({
      baseUrl,
      clientId: sandbox.state.options.clientId,
      clientSecret: sandbox.state.options.clientSecret,
      timeoutMs,
    }),
  );
}

async function setFaults(faults: Record<string, unknown> | null) {
  const response = await fetch(`${baseUrl}/_sandbox/faults`, {
    method: faults ? "POST" : "DELETE",
    headers: { "Content-Type": "application/json" },
    body: faults ? JSON.stringify(faults) : undefined,
  });
  expect(response.ok).toBe(true);
}

/** How often the sandbox applied a correction of each transaction of the link. */
function appliedCorrections(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [request, n] of Object.entries(sandbox.state.stats.snapshot().applied)) {
    const match = new RegExp(`^POST /links/${linkId}/transactions/([^/]+)/enrichment$`).exec(request);
    if (match) counts.set(decodeURIComponent(match[1]!), n);
  }
  return counts;
}

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

async function waitSettled(db: Db, jobId: string, timeoutMs?: number) {
  const job = await waitFor(
    "the job to finish",
    () => readJobView(db, jobId),
    (j) => j !== null && (j.state === "done" || (j.state === "cancelled" && j.finishedAt !== null)),
    timeoutMs,
  );
  return job!;
}

async function auditRowsOf(db: Db, jobId: string) {
  return db
    .select()
    .from(auditLog)
    .where(sql`${auditLog.input} ->> 'job' = ${jobId}`)
    .orderBy(auditLog.id);
}

/** Transactions of the link whose category differs from `category`, to correct. */
async function transactionsNotIn(category: string, count: number, skip = 0): Promise<string[]> {
  const page = await api().getTransactions(linkId, { size: 1000 });
  return page.transactions
    .filter((t) => t.enrichment?.category.value !== category)
    .slice(skip, skip + count)
    .map((t) => t.transaction_id);
}

// A check that finds a call not applied is believed at once here; the wait for a call that may still land (the settle
// window) is faults.test.ts's.
const correctionKind = createCorrectionKind({ settleMs: 0 });
const runners: JobRunner[] = [];
function startRunner(db: Db, opts: Partial<ConstructorParameters<typeof JobRunner>[0]> = {}): JobRunner {
  const runner = new JobRunner({
    db,
    api: api(600),
    kinds: new Map([[correctionKind.kind, correctionKind as JobKind]]),
    pollMs: 50,
    heartbeatMs: 200,
    ...opts,
  });
  runner.start();
  runners.push(runner);
  return runner;
}

beforeAll(async () => {
  baseUrl = await sandbox.listen(0, "127.0.0.1");
  const fixtures = (await (await fetch(`${baseUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  linkId = fixtures.plain![0]!;
});

afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop(2_000)));
  await setFaults(null);
  sandbox.state.stats.reset();
});

afterAll(() => sandbox.close());

describe.each(databases)("$kind", (target) => {
  it("makes every planned call once, audits each, and records what each transaction had before", async () => {
    const db = target.database.db;
    const ids = await transactionsNotIn("charity", 8);
    const before = new Map(
      (await api().getTransactions(linkId, { size: 1000 })).transactions.map((t) => [
        t.transaction_id,
        t.enrichment?.category.value,
      ]),
    );
    const job = await startCorrectionJob(
      db,
      api(),
      actor,
      linkId,
      ids.map((transactionId) => ({ transactionId, category: "charity", subcategory: "other_charity" })),
    );
    startRunner(db);
    const done = await waitSettled(db, job.id);
    expect(done.counts).toMatchObject({ done: 8, failed: 0, pending: 0, sent: 0 });
    const applied = appliedCorrections();
    expect(ids.map((id) => applied.get(id))).toEqual(ids.map(() => 1));
    const rows = await auditRowsOf(db, job.id);
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      expect(row).toMatchObject({
        action: "transaction.correct",
        outcome: "ok",
        actorEmail: actor.email,
        linkId,
        upstreamStatus: 200,
      });
      expect((row.before as { category: string }).category).toBe(before.get(row.targetId!));
    }
    // Each item's correlation id names its audit row.
    const items = await db.select().from(jobItems).where(eq(jobItems.jobId, job.id));
    expect(new Set(items.map((i) => i.correlationId))).toEqual(new Set(rows.map((r) => r.correlationId)));
  });

  it("checks a call whose answer was lost after the upstream applied it, and does not send it again", async () => {
    const db = target.database.db;
    const ids = await transactionsNotIn("education", 3);
    // The first correction is applied, then its answer is held past the client's 600 ms timeout.
    await setFaults({ answerDelayMs: 1_500, paths: ["/enrichment"], count: 1 });
    const job = await startCorrectionJob(
      db,
      api(),
      actor,
      linkId,
      ids.map((transactionId) => ({ transactionId, category: "education" })),
    );
    startRunner(db);
    const done = await waitSettled(db, job.id);
    expect(done.counts).toMatchObject({ done: 3, failed: 0 });
    expect(ids.map((id) => appliedCorrections().get(id))).toEqual([1, 1, 1]);
    const rows = await auditRowsOf(db, job.id);
    expect(rows).toHaveLength(3);
    const verified = rows.filter((r) =>
      String((r.input as { verified?: string }).verified ?? "").startsWith("applied"),
    );
    expect(verified).toHaveLength(1);
    const [item] = await db
      .select()
      .from(jobItems)
      .where(and(eq(jobItems.jobId, job.id), eq(jobItems.targetId, verified[0]!.targetId!)));
    expect(item).toMatchObject({ state: "done", attempts: 1 });
  });

  it("takes over the items of an instance that died: a call marked sent is checked first, then sent once", async () => {
    const db = target.database.db;
    const [lost, appliedBeforeDeath, untouched] = await transactionsNotIn("gambling_and_lotteries", 3);
    const job = await startCorrectionJob(
      db,
      api(),
      actor,
      linkId,
      [lost!, appliedBeforeDeath!, untouched!].map((transactionId) => ({
        transactionId,
        category: "gambling_and_lotteries",
      })),
    );
    // A dead instance: it claimed two items with a short lease and marked both sent; one call reached the upstream.
    const claimed = await claimItems(db, job.id, "dead-instance", 2, 300);
    expect(claimed.map((i) => i.targetId)).toEqual([lost, appliedBeforeDeath]);
    for (const item of claimed) expect(await markSent(db, item.id, "dead-instance", randomUUID())).toBe(true);
    await api().correctEnrichment(linkId, appliedBeforeDeath!, { category: "gambling_and_lotteries" });
    sandbox.state.stats.reset();

    startRunner(db);
    await waitSettled(db, job.id);
    const applied = appliedCorrections();
    // The call that had gone through is not repeated; the one that had not, and the untouched one, are made once.
    expect(applied.get(appliedBeforeDeath!) ?? 0).toBe(0);
    expect(applied.get(lost!)).toBe(1);
    expect(applied.get(untouched!)).toBe(1);
    const rows = await auditRowsOf(db, job.id);
    const verdicts = rows.map((r) => [
      r.targetId,
      r.outcome,
      (r.input as { verified?: string }).verified?.split(":")[0] ?? null,
    ]);
    expect(verdicts).toEqual(
      expect.arrayContaining([
        [appliedBeforeDeath, "ok", "applied"],
        [lost, "error", "not applied"],
        [lost, "ok", null],
        [untouched, "ok", null],
      ]),
    );
    expect(rows).toHaveLength(4);
  });

  it("pauses (no new calls), resumes, cancels what is left, and retries what failed", async () => {
    const db = target.database.db;
    const ids = await transactionsNotIn("taxes", 6);
    await setFaults({ latencyMs: 150, paths: ["/enrichment"] });
    const job = await insertJob(db, {
      kind: "correction",
      title: "controls",
      linkId,
      createdBy: actor,
      items: [
        // Not on the link: the upstream refuses it (404), a definite failure.
        {
          input: { transactionId: "txn_missing", before: null, after: { category: "taxes" } },
          targetId: "txn_missing",
        },
        ...ids.map((transactionId) => ({
          input: { transactionId, before: null, after: { category: "taxes" } },
          targetId: transactionId,
        })),
      ],
    });
    startRunner(db);
    await waitFor(
      "two items settled",
      () => readJobView(db, job.id),
      (j) => j!.settled >= 2,
    );
    expect(await applyControl(db, job.id, "pause", actor.email)).toBe("paused");
    // Calls already in flight finish (once paused, no call is marked sent any more); after that nothing moves. A call
    // whose answer is lost (the client's 2 s timeout on a loaded machine) stays "sent", its lease given up, to be
    // checked once the job runs again: it is no longer in flight either.
    await waitFor(
      "the calls in flight to settle",
      () =>
        db
          .select({ id: jobItems.id })
          .from(jobItems)
          .where(and(eq(jobItems.jobId, job.id), isNotNull(jobItems.leaseUntil))),
      (held) => held.length === 0,
    );
    const paused = (await readJobView(db, job.id))!;
    await new Promise((r) => setTimeout(r, 800));
    expect((await readJobView(db, job.id))!.settled).toBe(paused.settled);
    expect(paused.counts.pending).toBeGreaterThan(0);

    expect(await applyControl(db, job.id, "resume", actor.email)).toBe("running");
    await waitFor(
      "a call after resuming",
      () => readJobView(db, job.id),
      (j) => j!.settled > paused.settled,
    );
    expect(await applyControl(db, job.id, "cancel", actor.email)).toBe("cancelled");
    const cancelled = await waitSettled(db, job.id);
    expect(cancelled.state).toBe("cancelled");
    expect(cancelled.counts.failed).toBe(1);
    expect(cancelled.counts.done + cancelled.counts.failed + cancelled.counts.cancelled).toBe(7);
    // A cancelled job is over: no retry. Controls that do not apply are refused (null).
    expect(await applyControl(db, job.id, "retry", actor.email)).toBeNull();
    expect(await applyControl(db, job.id, "resume", actor.email)).toBeNull();

    // Retry on a finished job with a failure: the failed item runs again (and fails again: it is not on the link).
    await setFaults(null);
    const retried = await insertJob(db, {
      kind: "correction",
      title: "retry",
      linkId,
      createdBy: actor,
      items: [{ input: { transactionId: "txn_missing", before: null, after: { category: "taxes" } } }],
    });
    const first = await waitSettled(db, retried.id);
    expect(first.counts.failed).toBe(1);
    const [failed] = await db.select().from(jobItems).where(eq(jobItems.jobId, retried.id));
    expect(failed).toMatchObject({ upstreamStatus: 404, attempts: 1 });
    expect(failed!.reason).toMatch(/not found|does not exist/i);
    expect(await applyControl(db, retried.id, "retry", actor.email)).toBe("running");
    await waitFor(
      "the retried item to fail again",
      () => db.select().from(jobItems).where(eq(jobItems.jobId, retried.id)),
      (rows) => rows[0]!.attempts === 2 && rows[0]!.state === "failed",
    );
  });

  it("undoes a finished job as a job, leaving alone what was changed again since", async () => {
    const db = target.database.db;
    const ids = await transactionsNotIn("travel", 3);
    const originals = new Map(
      (await api().getTransactions(linkId, { size: 1000 })).transactions.map((t) => [
        t.transaction_id,
        t.enrichment?.category.value,
      ]),
    );
    const job = await startCorrectionJob(
      db,
      api(),
      actor,
      linkId,
      ids.map((transactionId) => ({ transactionId, category: "travel" })),
    );
    startRunner(db);
    await waitSettled(db, job.id);
    // Someone changes the second one again before the undo.
    await api().correctEnrichment(linkId, ids[1]!, { category: "home" });
    const undo = await startUndoJob(db, api(), actor, job.id);
    const done = await waitSettled(db, undo.id);
    expect(done.counts).toMatchObject({ done: 2, skipped: 1 });
    const now = new Map(
      (await api().getTransactions(linkId, { size: 1000 })).transactions.map((t) => [
        t.transaction_id,
        t.enrichment?.category.value,
      ]),
    );
    expect(now.get(ids[0]!)).toBe(originals.get(ids[0]!));
    expect(now.get(ids[1]!)).toBe("home");
    expect(now.get(ids[2]!)).toBe(originals.get(ids[2]!));
    const skipped = await db
      .select()
      .from(jobItems)
      .where(and(eq(jobItems.jobId, undo.id), eq(jobItems.state, "skipped")));
    expect(skipped[0]!.reason).toMatch(/^Changed since: it is now Home/);
    const rows = await auditRowsOf(db, undo.id);
    expect(rows.map((r) => r.action)).toEqual(["transaction.undo_correction", "transaction.undo_correction"]);
    // Undone once: Undo is no longer offered, the job names its undo, and a second undo is refused in words.
    expect(await readJobView(db, job.id)).toMatchObject({ undoable: false, undoneBy: undo.id });
    await expect(startUndoJob(db, api(), actor, job.id)).rejects.toThrow(`That job is undone already (job ${undo.id})`);
  });

  it("runs a group's items in order, and skips the rest of a group after a definite failure", async () => {
    const db = target.database.db;
    const order: string[] = [];
    const steps: JobKind<{ name: string; fail?: boolean }, string> = {
      kind: "steps",
      label: "Steps",
      permission: "import",
      concurrency: 4,
      endpoint: "POST /links/import",
      inputSchema: z.object({ name: z.string(), fail: z.boolean().optional() }),
      async execute(input, ctx) {
        await ctx.callOptions.beforeSend();
        const previous = await ctx.groupResults();
        order.push(`${input.name}<${previous.join(",")}>`);
        if (input.fail)
          throw new UpstreamError({
            kind: "http",
            endpoint: "POST /links/import",
            status: 400,
            errorCode: "api_error.request.validation_failed",
          });
        return input.name;
      },
      async verify() {
        return { applied: false };
      },
      audit: (input) => ({ action: "link.import", targetType: "import", targetId: input.name }),
    };
    const job = await insertJob(db, {
      kind: "steps",
      title: "groups",
      createdBy: actor,
      concurrency: 4,
      items: [
        { input: { name: "a1" }, groupKey: "a" },
        { input: { name: "b1", fail: true }, groupKey: "b" },
        { input: { name: "a2" }, groupKey: "a" },
        { input: { name: "b2" }, groupKey: "b" },
        { input: { name: "a3" }, groupKey: "a" },
      ],
    });
    startRunner(db, { kinds: new Map([["steps", steps as JobKind]]) });
    const done = await waitSettled(db, job.id);
    expect(done.counts).toMatchObject({ done: 3, failed: 1, skipped: 1 });
    expect(order.filter((o) => o.startsWith("a"))).toEqual(["a1<>", "a2<a1>", "a3<a1,a2>"]);
    expect(order).not.toContain("b2<>");
    const [b2] = await db
      .select()
      .from(jobItems)
      .where(and(eq(jobItems.jobId, job.id), eq(jobItems.seq, 3)));
    expect(b2).toMatchObject({ state: "skipped", reason: "Not run: an earlier step for the same link failed." });
  });
});
