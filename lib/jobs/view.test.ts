import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { summary } from "@/components/jobs/job-progress";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import { importFileRows, jobItems } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { parseCsv } from "../http/csv";
import { CORRECTION_ENDPOINT, CORRECTION_KIND } from "./correction";
import { IMPORT_ENDPOINT, IMPORT_KIND } from "./import-items";
import { eq } from "drizzle-orm";
import { type Actor, type NewJobItem, applyControl, claimItems, insertJob, markSent, recordWait } from "./store";
import { ITEMS_PAGE_SIZE, type JobView, listJobItems, listJobs, readJobView, streamJobItemsCsv } from "./view";
import { waitReason } from "./waits";

// A job as its page reads it: whether its next calls wait for rate-limit slots and on which limit, a time left that
// counts the wait from the first moment, and counts that add up however many items the job has.

const databases = withTestDatabases();
const actor: Actor = { id: randomUUID(), email: "support@view.test", role: "support" };
const shares = { app: 0.5, link: 0.5, user: 0.5, client: 0.5 };

/** A budget on a clock of the test's own: slots are taken at one moment, the job is read at another. */
function budgetAt(start = 1_000_000) {
  const clock = { t: start };
  const now = () => clock.t;
  const budget = new Budget({
    store: createMemoryStore({ now }),
    clientId: "client_1",
    appId: "client_1",
    shares,
    interactiveMaxWaitMs: 0,
    now,
  });
  return { budget, clock };
}

async function fill(budget: Budget, endpoint: string, ids: { linkId?: string }, calls: number) {
  for (let i = 0; i < calls; i++) await budget.reserve(endpoint, ids, { mode: "interactive" });
}

const corrections = (n: number): NewJobItem[] =>
  Array.from({ length: n }, (_, i) => ({
    input: { transactionId: `txn_${i}`, before: null, after: { category: "travel" } },
    targetId: `txn_${i}`,
  }));

/** Every figure a person reads is a number. */
function expectFigures(view: JobView) {
  for (const n of [view.total, view.settled, view.perMinute, ...Object.values(view.counts)])
    expect(Number.isFinite(n)).toBe(true);
  if (view.etaSeconds !== null) expect(Number.isInteger(view.etaSeconds)).toBe(true);
  if (view.waiting) expect(Number.isInteger(view.waiting.nextSlotInS)).toBe(true);
  expect(summary(view)).not.toMatch(/NaN|undefined|null|Infinity/);
}

describe.each(databases)("$kind", (target) => {
  it("says a job waits for the per-link limit's next slot, and counts the wait in the time left", async () => {
    const db = target.database.db;
    const linkId = `mk_${randomUUID()}`;
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "waits",
      linkId,
      createdBy: actor,
      items: corrections(20),
    });
    const { budget, clock } = budgetAt();
    // 30 corrections a minute on one link at half the upstream's 60: all taken 49 s ago, so the next frees in 12 s.
    await fill(budget, CORRECTION_ENDPOINT, { linkId }, 30);
    clock.t += 49_000;
    const view = (await readJobView(db, job.id, { budget }))!;
    expect(view.waiting?.limit).toBe("the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment");
    expect(view.waiting?.nextSlotInS).toBeGreaterThanOrEqual(12);
    expect(view.waiting?.nextSlotInS).toBeLessThanOrEqual(13);
    // Nothing has moved yet: the time left is the budget's, the 20 calls going out as the next slots free.
    expect(view.perMinute).toBe(0);
    expect(view.etaSeconds).toBe(view.waiting!.nextSlotInS);
    expect(summary(view)).toBe(
      `0 done of 20. Waiting for the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment, next slot in ${view.waiting!.nextSlotInS} s; about 15 s left.`,
    );
    expectFigures(view);

    // More than a window's worth left: a whole window more for each further 30.
    const longer = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "waits longer",
      linkId,
      createdBy: actor,
      items: corrections(45),
    });
    const later = (await readJobView(db, longer.id, { budget }))!;
    expect(later.etaSeconds).toBe(later.waiting!.nextSlotInS + 61);
  });

  it("names the limit an item's call says it waits for, on any instance, until the call goes out", async () => {
    const db = target.database.db;
    const linkId = `mk_${randomUUID()}`;
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "a read waits",
      linkId,
      createdBy: actor,
      items: corrections(3),
    });
    const [held] = await claimItems(db, job.id, "instance-a", 1);
    // The correction first reads the transaction: that read waits on its own endpoint's per-link limit.
    const wait = {
      endpoint: "GET /links/{id}/transactions",
      scope: "link",
      reason: "full",
      nextSlotAt: new Date(Date.now() + 12_000),
    } as const;
    await recordWait(db, held!.id, "instance-a", waitReason(wait));
    // An instance that does not hold the item writes nothing on it.
    await recordWait(
      db,
      held!.id,
      "instance-b",
      waitReason({ ...wait, scope: "app", nextSlotAt: new Date(Date.now() + 40_000) }),
    );
    // Read with no budget at all: what the item recorded is enough, whichever instance serves the page.
    const view = (await readJobView(db, job.id, { budget: null }))!;
    expect(view.waiting?.limit).toBe("the per-link limit of GET /links/{id}/transactions");
    expect(view.waiting!.nextSlotInS).toBeGreaterThanOrEqual(11);
    expect(view.waiting!.nextSlotInS).toBeLessThanOrEqual(12);
    // The time left counts the wait, though nothing has moved yet.
    expect(view.etaSeconds).toBe(view.waiting!.nextSlotInS);
    expect(summary(view)).toBe(
      `0 done of 3. Waiting for the per-link limit of GET /links/{id}/transactions, next slot in ${view.waiting!.nextSlotInS} s; about 15 s left.`,
    );
    expectFigures(view);
    const [listed] = (await listJobs(db, { linkId, limit: 1 }, { budget: null })).jobs;
    expect(listed!.waiting).toEqual(view.waiting);
    // The items table says why that item has not gone yet.
    const reasons = (await listJobItems(db, job)).map((i) => i.reason);
    expect(reasons).toEqual(["Waiting for the per-link limit of GET /links/{id}/transactions.", null, null]);

    // The slot came and the call went out: no wait left, on the job or on the item.
    expect(await markSent(db, held!.id, "instance-a", randomUUID())).toBe(true);
    expect((await readJobView(db, job.id, { budget: null }))!).toMatchObject({ waiting: null, etaSeconds: null });
    expect((await listJobItems(db, job))[0]!.reason).toBeNull();
  });

  it("says a limit the upstream closed with a 429 is closed, and forgets a wait whose holder is gone", async () => {
    const db = target.database.db;
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "closed",
      linkId: `mk_${randomUUID()}`,
      createdBy: actor,
      items: corrections(2),
    });
    const [held] = await claimItems(db, job.id, "instance-a", 1);
    await recordWait(
      db,
      held!.id,
      "instance-a",
      waitReason({
        endpoint: CORRECTION_ENDPOINT,
        scope: "link",
        reason: "closed",
        nextSlotAt: new Date(Date.now() + 30_000),
      }),
    );
    const view = (await readJobView(db, job.id, { budget: null }))!;
    expect(view.waiting?.limit).toBe(
      "the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment (closed after a 429 from the upstream)",
    );
    expect(summary(view)).toMatch(
      /^0 done of 2\. Waiting for the per-link limit of .+ \(closed after a 429 from the upstream\), next slot in (29|30) s; about 30 s left\.$/,
    );
    // Its holder died (its lease lapsed): the wait is nobody's now, and neither the job nor the item claims it.
    await db
      .update(jobItems)
      .set({ leaseUntil: new Date(Date.now() - 1_000) })
      .where(eq(jobItems.id, held!.id));
    expect((await readJobView(db, job.id, { budget: null }))!.waiting).toBeNull();
    expect((await listJobItems(db, job))[0]!.reason).toBeNull();
    // Another instance takes it over and waits in turn; a slot that has come is no wait any more.
    const [again] = await claimItems(db, job.id, "instance-c", 1);
    const full = (inMs: number) =>
      waitReason({
        endpoint: CORRECTION_ENDPOINT,
        scope: "link",
        reason: "full",
        nextSlotAt: new Date(Date.now() + inMs),
      });
    await recordWait(db, again!.id, "instance-c", full(-500));
    expect((await readJobView(db, job.id, { budget: null }))!.waiting).toBeNull();
    await recordWait(db, again!.id, "instance-c", full(30_000));
    expect((await readJobView(db, job.id, { budget: null }))!.waiting).not.toBeNull();
    // Nor does a paused job wait for anything.
    expect(await applyControl(db, job.id, "pause", actor.email)).toBe("paused");
    expect((await readJobView(db, job.id, { budget: null }))!.waiting).toBeNull();
  });

  it("gives a time left from the first moment, from the plan's calls and the budget's room, before any pace is seen", async () => {
    const db = target.database.db;
    const linkId = `mk_${randomUUID()}`;
    const { budget } = budgetAt();
    const fits = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "fits",
      linkId,
      createdBy: actor,
      items: corrections(30),
    });
    const fitsView = (await readJobView(db, fits.id, { budget }))!;
    // All 30 fit now: how long they take is the pace's to tell, and none is seen yet.
    expect(fitsView).toMatchObject({ waiting: null, etaSeconds: null });
    expect(summary(fitsView)).toBe("0 done of 30.");
    const over = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "over",
      linkId,
      createdBy: actor,
      items: corrections(40),
    });
    const overView = (await readJobView(db, over.id, { budget }))!;
    // 30 go now, the last 10 within the next window.
    expect(overView).toMatchObject({ waiting: null, etaSeconds: 61 });
    expect(summary(overView)).toBe("0 done of 40, about 65 s left.");
    expectFigures(overView);
  });

  it("names the per-app limit for a job over many links, and says nothing of a wait once the job is paused", async () => {
    const db = target.database.db;
    const { budget } = budgetAt();
    const job = await insertJob(db, {
      kind: IMPORT_KIND,
      title: "import",
      createdBy: actor,
      items: [0, 1, 2].map((position) => ({
        input: { position },
        targetId: String(position),
        groupKey: String(position),
      })),
    });
    // POST /links/import: 60 a minute per app upstream, 30 of them Linkdesk's.
    await fill(budget, IMPORT_ENDPOINT, {}, 30);
    const [listed] = (await listJobs(db, { kind: IMPORT_KIND, limit: 1 }, { budget })).jobs;
    expect(listed).toMatchObject({ id: job.id, waiting: { limit: "the per-app limit of POST /links/import" } });
    expect(summary(listed!)).toMatch(
      /^0 done of 3\. Waiting for the per-app limit of POST \/links\/import, next slot in \d+ s; about \d+ s left\.$/,
    );
    expect(await applyControl(db, job.id, "pause", actor.email)).toBe("paused");
    const paused = (await readJobView(db, job.id, { budget }))!;
    expect(paused).toMatchObject({ waiting: null, etaSeconds: null });
    expect(summary(paused)).toBe("Paused: 0 done of 3. Nothing is sent until it is resumed.");
  });

  it("leaves the wait out when the budget cannot be read, and still shows the counts", async () => {
    const db = target.database.db;
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "no budget",
      linkId: `mk_${randomUUID()}`,
      createdBy: actor,
      items: corrections(5),
    });
    const { budget } = budgetAt();
    const broken = Object.create(budget, {
      store: { value: { ...budget.store, usage: () => Promise.reject(new Error("database away")) } },
    }) as Budget;
    for (const view of [
      await readJobView(db, job.id, { budget: broken }),
      await readJobView(db, job.id, { budget: null }),
    ]) {
      expect(view).toMatchObject({ total: 5, counts: { pending: 5 }, waiting: null, etaSeconds: null });
      expectFigures(view!);
    }
  });

  it("counts every item of a 10,000-item job, whatever one page of its items holds", async () => {
    const db = target.database.db;
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "large",
      linkId: `mk_${randomUUID()}`,
      createdBy: actor,
      items: corrections(10_000),
    });
    expect(await applyControl(db, job.id, "cancel", actor.email)).toBe("cancelled");
    const view = (await readJobView(db, job.id, { budget: null }))!;
    expect(view).toMatchObject({ total: 10_000, settled: 10_000, counts: { cancelled: 10_000, pending: 0 } });
    expect(summary(view)).toBe("Cancelled: 0 done, 10000 cancelled of 10000.");
    const page = await listJobItems(db, job);
    expect(page).toHaveLength(ITEMS_PAGE_SIZE);
    const [listed] = (await listJobs(db, { linkId: job.linkId!, limit: 1 }, { budget: null })).jobs;
    expect(listed).toMatchObject({ id: job.id, total: 10_000, settled: 10_000 });
  });

  it("names a correction's transaction by its date, description and amount, and an older item by its id", async () => {
    const db = target.database.db;
    const linkId = `mk_${randomUUID()}`;
    const after = { category: "travel" };
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "labels",
      linkId,
      createdBy: actor,
      items: [
        {
          targetId: "txn_a",
          input: {
            transactionId: "txn_a",
            date: "2024-03-05",
            description: "Blue Bottle Coffee",
            amount: 4.5,
            currency: "USD",
            direction: "debit",
            before: null,
            after,
          },
        },
        {
          targetId: "txn_b",
          input: {
            transactionId: "txn_b",
            date: "2024-03-06",
            description: "Payroll",
            amount: 1250,
            currency: "USD",
            direction: "credit",
            before: null,
            after,
          },
        },
        {
          targetId: "txn_c",
          input: {
            transactionId: "txn_c",
            date: "2024-03-07",
            amount: 12,
            currency: "EUR",
            direction: "debit",
            before: null,
            after,
          },
        },
        // Planned before descriptions and amounts were recorded.
        { targetId: "txn_old", input: { transactionId: "txn_old", date: "2024-03-08", before: null, after } },
      ],
    });
    const items = await listJobItems(db, job);
    expect(items.map((i) => i.label)).toEqual([
      "2024-03-05 · Blue Bottle Coffee · −$4.50",
      "2024-03-06 · Payroll · +$1,250.00",
      "2024-03-07 · no description · −€12.00",
      "txn_old",
    ]);
    expect(items.map((i) => i.linkId)).toEqual([linkId, linkId, linkId, linkId]);
    await expectCsvInStep(
      db,
      job,
      items.map((i) => i.label),
    );
  });

  it("names an import's item by its file line, customer and institution, and its step", async () => {
    const db = target.database.db;
    const job = await insertJob(db, {
      kind: IMPORT_KIND,
      title: "import labels",
      createdBy: actor,
      items: [
        { targetId: "link 1", groupKey: "link-0", input: { step: "link", position: 0, body: {} } },
        {
          targetId: "link 1 batch 1",
          groupKey: "link-0",
          input: {
            step: "batch",
            position: 0,
            batch: 1,
            firstDate: "2024-01-01",
            lastDate: "2024-01-31",
            transactions: [],
          },
        },
        {
          targetId: "link 1",
          groupKey: "link-0",
          input: { step: "category", position: 0, originalId: "t9", date: "2024-01-02", category: "travel" },
        },
        { targetId: "link 2", groupKey: "link-1", input: { step: "link", position: 1, body: {} } },
        // A position the file's table does not hold (an older job): named by its place in the file.
        {
          targetId: "link 3",
          groupKey: "link-2",
          input: {
            step: "batch",
            position: 2,
            batch: 2,
            firstDate: "2024-01-01",
            lastDate: "2024-01-31",
            transactions: [],
          },
        },
      ],
    });
    await db.insert(importFileRows).values([
      { jobId: job.id, position: 0, line: 2, customerUserId: "user-7", institutionId: "chase", planned: "planned" },
      { jobId: job.id, position: 1, line: 5, customerUserId: null, institutionId: null, planned: "planned" },
    ]);
    const items = await listJobItems(db, job);
    expect(items.map((i) => i.label)).toEqual([
      "Line 2 · customer user-7 · institution chase · the import",
      "Line 2 · customer user-7 · institution chase · batch 1",
      "Line 2 · customer user-7 · institution chase · category correction of t9",
      "Line 5 · the import",
      "Link 3 of the file · batch 2",
    ]);
    expect(items.map((i) => i.linkId)).toEqual([null, null, null, null, null]);
    await expectCsvInStep(
      db,
      job,
      items.map((i) => i.label),
    );
  });
});

/** The CSV names each item as the page does, in a column of its own, with no placeholder words in any cell. */
async function expectCsvInStep(
  db: Parameters<typeof listJobItems>[0],
  job: Parameters<typeof listJobItems>[1],
  labels: string[],
) {
  let text = "";
  for await (const chunk of streamJobItemsCsv(db, job)) text += chunk;
  const [header, ...records] = parseCsv(text);
  const column = header!.indexOf("item");
  expect(column).toBeGreaterThan(-1);
  expect(records.map((r) => r[column])).toEqual(labels);
  expect(text).not.toMatch(/NaN|undefined|null|\[object/);
}
