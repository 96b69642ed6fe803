import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../sandbox/server";
import { withTestDatabases } from "../testing/databases";
import { jobItems, jobs } from "../db/schema";
import { UpstreamApi, UpstreamClient } from "../upstream";
import {
  ConflictingCorrections,
  PlanRefused,
  duplicatesDropped,
  startCorrectionJob,
  uniqueCorrections,
} from "./correction";
import { expectWords } from "../testing/expect-words";
import type { Actor } from "./store";
import { listJobItems } from "./view";

// Planning a bulk correction: one item per transaction of the link however the request was made (a direct POST can
// repeat an id), and a transaction asked for with two categories refused in words.

const databases = withTestDatabases();
const sandbox = createSandbox({ links: 4, transactionsPerLink: 20, rateLimits: false, importDelayMs: 0 });
let baseUrl = "";
let linkId = "";
const actor: Actor = { id: randomUUID(), email: "support@correction.test", role: "support" };

function api(): UpstreamApi {
  return new UpstreamApi(
    new UpstreamClient({
      baseUrl,
      clientId: sandbox.state.options.clientId,
      clientSecret: sandbox.state.options.clientSecret,
      timeoutMs: 2_000,
    }),
  );
}

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

afterAll(() => sandbox.close());

describe("uniqueCorrections", () => {
  it("keeps one correction per transaction and counts the copies it dropped", () => {
    const copies = Array.from({ length: 1_000 }, () => ({
      transactionId: "txn_1",
      category: "travel" as const,
      subcategory: "flights_and_airport_expenses" as const,
    }));
    expect(uniqueCorrections([...copies, { transactionId: "txn_2", category: "travel" }])).toEqual({
      corrections: [
        { transactionId: "txn_1", category: "travel", subcategory: "flights_and_airport_expenses" },
        { transactionId: "txn_2", category: "travel" },
      ],
      duplicates: 999,
    });
  });

  it("refuses a transaction asked for with two categories, naming it and both (a subcategory more counts as another)", () => {
    const attempt = () =>
      uniqueCorrections([
        { transactionId: "txn_1", category: "travel", subcategory: "flights_and_airport_expenses" },
        { transactionId: "txn_2", category: "travel" },
        { transactionId: "txn_1", category: "charity", subcategory: "other_charity" },
      ]);
    expect(attempt).toThrow(ConflictingCorrections);
    expect(attempt).toThrow(
      "Transaction txn_1 is in the request twice, once to Travel › Flights and airport expenses and once to Charity › Other charity: choose one category for it and start again.",
    );
    expect(() =>
      uniqueCorrections([
        { transactionId: "txn_3", category: "travel" },
        { transactionId: "txn_3", category: "travel", subcategory: "flights_and_airport_expenses" },
      ]),
    ).toThrow(
      /^Transaction txn_3 is in the request twice, once to Travel and once to Travel › Flights and airport expenses/,
    );
  });
});

describe.each(databases)("$kind", (target) => {
  it("plans one item from 1,000 copies of one transaction, and the job says how many copies it dropped", async () => {
    const db = target.database.db;
    const page = await api().getTransactions(linkId, { size: 20 });
    const t = page.transactions.find((x) => x.enrichment?.category.value !== "education")!;
    const copies = Array.from({ length: 1_000 }, () => ({
      transactionId: t.transaction_id,
      category: "education" as const,
      subcategory: "other_education" as const,
    }));
    const job = await startCorrectionJob(db, api(), actor, linkId, copies);
    expect(job.total).toBe(1);
    expect(job.title).toBe("1 transaction to Education › Other education");
    expect(duplicatesDropped(job)).toBe(999);
    const items = await db.select().from(jobItems).where(eq(jobItems.jobId, job.id));
    expect(items.map((i) => [i.targetId, i.state])).toEqual([[t.transaction_id, "pending"]]);
    // Planning reads; it never corrects.
    expect(enrichmentCalls()).toBe(0);
    // The item records what people know the transaction by, and the job's page names it so.
    expect(items[0]!.input).toMatchObject({
      date: t.date,
      amount: Math.abs(t.amount),
      currency: t.currency,
      direction: t.type === "credit" ? "credit" : "debit",
    });
    const [listed] = await listJobItems(db, job);
    expect(listed!.label).toMatch(new RegExp(`^${t.date} · .+ · [+−]`));
    if (t.description) expect(listed!.label).toContain(t.description);
    expect(listed!.label).not.toMatch(/NaN|undefined|null|\[object/);
    expect(listed!.linkId).toBe(linkId);
  });

  it("refuses in words a request naming one transaction with two categories, and plans nothing", async () => {
    const db = target.database.db;
    const [a, b] = (await api().getTransactions(linkId, { size: 20 })).transactions;
    const before = await db.select({ id: jobs.id }).from(jobs);
    const error = await startCorrectionJob(db, api(), actor, linkId, [
      { transactionId: a!.transaction_id, category: "shopping", subcategory: "clothing_and_accessories" },
      { transactionId: b!.transaction_id, category: "shopping", subcategory: "clothing_and_accessories" },
      { transactionId: a!.transaction_id, category: "travel", subcategory: "flights_and_airport_expenses" },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanRefused);
    expect((error as Error).message).toBe(
      `Transaction ${a!.transaction_id} is in the request twice, once to Shopping › Clothing and accessories and once to Travel › Flights and airport expenses: choose one category for it and start again.`,
    );
    expectWords((error as Error).message);
    expect(await db.select({ id: jobs.id }).from(jobs)).toHaveLength(before.length);
  });
});
