import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { SignedInStaff } from "../auth/credentials";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { auditLog, jobItems, staff } from "../db/schema";

// The correction actions as a direct POST would call them, against the sandbox: what they refuse, what they send, and
// that an undo never overwrites a later change.

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

const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0 });
let sandboxUrl = "";
let linkId = "";
let otherLinkId = "";
let transactions: {
  transaction_id: string;
  date: string;
  enrichment?: { category: { value: string }; subcategory?: { value: string } | null } | null;
}[] = [];

async function correctionCalls(): Promise<number> {
  const stats = (await (await fetch(`${sandboxUrl}/_sandbox/stats`)).json()) as {
    byEndpoint: Record<string, { requests: number }>;
  };
  return Object.entries(stats.byEndpoint)
    .filter(([endpoint]) => endpoint.includes("enrichment"))
    .reduce((n, [, e]) => n + e.requests, 0);
}

async function transactionReads(): Promise<number> {
  const stats = (await (await fetch(`${sandboxUrl}/_sandbox/stats`)).json()) as {
    byEndpoint: Record<string, { requests: number }>;
  };
  return Object.entries(stats.byEndpoint)
    .filter(([endpoint]) => endpoint.startsWith("GET") && endpoint.endsWith("/transactions"))
    .reduce((n, [, e]) => n + e.requests, 0);
}

beforeAll(async () => {
  sandboxUrl = await sandbox.listen(0);
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: sandboxUrl,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "actions-secret-0123456789abcdef0123456789",
    LOG_LEVEL: "silent",
  });
  database = await openTestPglite();
  const [row] = await database.db.insert(staff).values({ email: "support@desk.test", role: "support" }).returning();
  signedIn = { id: row!.id, email: row!.email, name: null, role: "support" };
  const fixtures = (await (await fetch(`${sandboxUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  [linkId, otherLinkId] = [fixtures.plain![0]!, fixtures.plain![1] ?? fixtures.plain![0]!];
  const { upstream } = await import("../upstream");
  transactions = (await upstream().getTransactions(linkId, { size: 20 })).transactions;
}, 60_000);

afterAll(async () => {
  await database?.close();
  await sandbox.close();
});

const { correctCategory, correctCategoryBulk, undoCorrection } = await import("./transactions");

/** A transaction of the link that is not in `category` now. */
function transactionNotIn(category: string, skip = 0) {
  return transactions.filter((t) => t.enrichment && t.enrichment.category.value !== category)[skip]!;
}

describe("correctCategory", () => {
  it("refuses a correction without a subcategory: the upstream would pick one nobody saw", async () => {
    const t = transactionNotIn("charity");
    const before = await correctionCalls();
    const result = await correctCategory({ linkId, transactionId: t.transaction_id, category: "charity" } as never);
    expect(result?.validationErrors).toMatchObject({ fieldErrors: { subcategory: ["Choose a subcategory"] } });
    expect(await correctionCalls()).toBe(before);
  });

  it("refuses a value outside the taxonomy and a transaction id that is not on the link, sending nothing", async () => {
    const before = await correctionCalls();
    const outside = await correctCategory({
      linkId,
      transactionId: transactions[0]!.transaction_id,
      category: "groceries",
      subcategory: "coffee",
    } as never);
    expect(outside?.validationErrors).toBeTruthy();
    if (otherLinkId !== linkId) {
      const elsewhere = await correctCategory({
        linkId: otherLinkId,
        transactionId: transactions[0]!.transaction_id,
        category: "charity",
        subcategory: "other_charity",
      });
      expect(elsewhere?.serverError).toBe(
        `Transaction ${transactions[0]!.transaction_id} is not on link ${otherLinkId}.`,
      );
    }
    expect(await correctionCalls()).toBe(before);
  });

  it("answers the corrected row, its mark for the desk, and the similar transactions with their current category and confidence", async () => {
    const t = transactionNotIn("education");
    const result = await correctCategory({
      linkId,
      transactionId: t.transaction_id,
      category: "education",
      subcategory: "driving_lessons",
      date: t.date,
    });
    expect(result?.data?.updated).toMatchObject({
      id: t.transaction_id,
      category: "education",
      subcategory: "driving_lessons",
      categoryConfidence: 100,
    });
    expect(result?.data?.mark).toMatchObject({
      kind: "corrected",
      by: "support@desk.test",
      undoable: true,
      correlationId: result?.data?.correlationId,
    });
    for (const similar of result?.data?.similar ?? []) {
      expect(similar).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          category: expect.any(String),
          categoryConfidence: expect.any(Number),
        }),
      );
    }
  });
});

describe("correctCategoryBulk", () => {
  it("takes a transaction once however often a direct POST names it, and says how many copies it dropped", async () => {
    const t = transactionNotIn("home", 5);
    const copies = Array.from({ length: 1_000 }, () => ({ transactionId: t.transaction_id }));
    const result = await correctCategoryBulk({ linkId, category: "home", subcategory: "other_home", items: copies });
    expect(result?.serverError).toBeUndefined();
    expect(result?.data).toMatchObject({ total: 1, duplicatesDropped: 999 });
    const items = await database.db.select().from(jobItems).where(eq(jobItems.jobId, result!.data!.jobId));
    expect(items.map((i) => i.targetId)).toEqual([t.transaction_id]);
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "transaction.correct_bulk"))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(row).toMatchObject({ outcome: "ok", targetId: result!.data!.jobId });
    expect(row?.input).toMatchObject({ transactions: 1_000, duplicatesDropped: 999 });
  });

  it("refuses more transactions than one job may hold, before anything is read", async () => {
    const reads = await transactionReads();
    const many = Array.from({ length: 1_001 }, (_, i) => ({ transactionId: `txn_${i}` }));
    const result = await correctCategoryBulk({ linkId, category: "home", subcategory: "other_home", items: many });
    expect(result?.validationErrors?.fieldErrors?.items).toEqual(["At most 1000 transactions at a time"]);
    expect(await transactionReads()).toBe(reads);
  });
});

describe("undoCorrection", () => {
  it("puts back what the correction replaced, audited as an undo naming the correction", async () => {
    const t = transactionNotIn("charity", 1);
    const original = { category: t.enrichment!.category.value, subcategory: t.enrichment!.subcategory?.value };
    const corrected = await correctCategory({
      linkId,
      transactionId: t.transaction_id,
      category: "charity",
      subcategory: "other_charity",
      date: t.date,
    });
    const correlationId = corrected!.data!.correlationId;
    const undone = await undoCorrection({ correlationId, date: t.date });
    expect(undone?.serverError).toBeUndefined();
    expect(undone?.data?.restored).toEqual(original);
    expect(undone?.data?.updated).toMatchObject({ id: t.transaction_id, category: original.category });
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "transaction.undo_correction"), eq(auditLog.outcome, "ok")))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(row).toMatchObject({
      targetId: t.transaction_id,
      linkId,
      before: { category: "charity", subcategory: "other_charity" },
      after: original,
    });
    expect(row?.input).toMatchObject({ undoes: correlationId });
  });

  it("says so instead of overwriting when the transaction changed since, and sends nothing", async () => {
    const t = transactionNotIn("travel", 2);
    const first = await correctCategory({
      linkId,
      transactionId: t.transaction_id,
      category: "travel",
      subcategory: "other_travel",
      date: t.date,
    });
    await correctCategory({
      linkId,
      transactionId: t.transaction_id,
      category: "utilities",
      subcategory: "utilities_energy",
      date: t.date,
    });
    const before = await correctionCalls();
    const undone = await undoCorrection({ correlationId: first!.data!.correlationId, date: t.date });
    expect(undone?.serverError).toBe(
      "Changed since: it is now Utilities › Energy, not Travel › Other travel, so it was left as it is.",
    );
    expect(await correctionCalls()).toBe(before);
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "transaction.undo_correction"))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(row?.outcome).toBe("refused");
  });

  it("refuses a second undo of the same correction (it is already back)", async () => {
    const t = transactionNotIn("taxes", 3);
    const corrected = await correctCategory({
      linkId,
      transactionId: t.transaction_id,
      category: "taxes",
      subcategory: "other_taxes",
      date: t.date,
    });
    expect((await undoCorrection({ correlationId: corrected!.data!.correlationId })).data).toBeTruthy();
    const again = await undoCorrection({ correlationId: corrected!.data!.correlationId });
    expect(again?.serverError).toMatch(/^Changed since: it is now /);
  });
});

describe("the desk's cached copy of the link", () => {
  it("shows a correction at once without reading the upstream again", async () => {
    const { transactionHistory } = await import("../transactions/history");
    const { upstream } = await import("../upstream");
    const cache = transactionHistory(upstream());
    await cache.get(linkId);
    const reads = await transactionReads();
    const t = transactionNotIn("gambling_and_lotteries", 4);
    await correctCategory({
      linkId,
      transactionId: t.transaction_id,
      category: "gambling_and_lotteries",
      subcategory: "other_gambling_and_lotteries",
      date: t.date,
    });
    const afterCorrection = await transactionReads();
    const history = await cache.get(linkId);
    expect(history.transactions.find((x) => x.transaction_id === t.transaction_id)?.enrichment?.category.value).toBe(
      "gambling_and_lotteries",
    );
    // The correction itself read the transaction's day (its audit "before"); the view read nothing more.
    expect(await transactionReads()).toBe(afterCorrection);
    expect(afterCorrection - reads).toBe(1);
  });
});
