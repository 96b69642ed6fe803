import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendAudit } from "../audit/append";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import type { WireAccount, WireTransaction } from "../upstream/schemas";
import type { CachedHistory } from "./history";
import { correctionMarks, transactionsPage } from "./view";

// The desk's page on the server: the cached history filtered and paged, and what the audit trail says was done to
// each transaction shown.

let database: Database;
beforeAll(async () => {
  database = await openTestPglite();
}, 60_000);
afterAll(async () => database?.close());

const actor = { id: randomUUID(), email: "support@desk.test", role: "support" };
const pair = (category: string, subcategory: string) => ({ category, subcategory });

async function audit(
  action: "transaction.correct" | "transaction.undo_correction",
  targetId: string,
  opts: { linkId?: string; outcome?: "ok" | "refused"; before?: unknown; after?: unknown; input?: unknown } = {},
) {
  const correlationId = randomUUID();
  await appendAudit(
    {
      actor,
      action,
      outcome: opts.outcome ?? "ok",
      correlationId,
      targetType: "transaction",
      targetId,
      linkId: opts.linkId ?? "L1",
      input: opts.input ?? {},
      before: "before" in opts ? opts.before : pair("shopping", "other_shopping"),
      after: opts.after ?? pair("mortgage_and_rent", "rent"),
    },
    database.db,
  );
  return correlationId;
}

describe("correction marks from the audit trail", () => {
  it("marks each transaction with its newest successful correction or undo on that link", async () => {
    await audit("transaction.correct", "t1");
    const latest = await audit("transaction.correct", "t1", {
      before: pair("mortgage_and_rent", "rent"),
      after: pair("mortgage_and_rent", "mortgage"),
    });
    await audit("transaction.correct", "t2", { outcome: "refused" });
    await audit("transaction.correct", "t3", { linkId: "L2" });
    const corrected = await audit("transaction.correct", "t4", {
      input: { job: "0b9c6a57-3d4f-4c1e-9a61-2f0f5a7d1e11", item: 3 },
    });
    const undone = await audit("transaction.undo_correction", "t4", { input: { undoes: corrected } });
    await audit("transaction.correct", "t5", { before: null });

    const marks = await correctionMarks(database.db, "L1", ["t1", "t2", "t3", "t4", "t5", "t6"]);
    expect(Object.keys(marks).sort()).toEqual(["t1", "t4", "t5"]);
    expect(marks.t1).toMatchObject({
      kind: "corrected",
      by: "support@desk.test",
      correlationId: latest,
      jobId: null,
      undoable: true,
      after: pair("mortgage_and_rent", "mortgage"),
    });
    expect(marks.t4).toMatchObject({ kind: "undone", correlationId: undone, undoable: false });
    // Nothing recorded to put back: no undo offered.
    expect(marks.t5).toMatchObject({ kind: "corrected", undoable: false, before: null });
  });

  it("names the job of a correction made in bulk", async () => {
    const jobId = randomUUID();
    await audit("transaction.correct", "t7", { input: { job: jobId, item: 0 } });
    expect((await correctionMarks(database.db, "L1", ["t7"])).t7?.jobId).toBe(jobId);
  });
});

describe("transactionsPage", () => {
  const account = { account_id: "acc_1", name: "Everyday Checking", account_mask: "1234" } as WireAccount;
  const txn = (i: number, over: Partial<WireTransaction> = {}) =>
    ({
      transaction_id: `p${i}`,
      account_id: "acc_1",
      amount: 10 + i,
      type: "debit",
      currency: "USD",
      date: `2026-01-${String(28 - (i % 28)).padStart(2, "0")}`,
      pending: false,
      description: i % 2 === 0 ? "Rent" : "Coffee",
      enrichment: { category: { value: "shopping", confidence: 80 } },
      ...over,
    }) as WireTransaction;
  const history: CachedHistory = {
    transactions: Array.from({ length: 25 }, (_, i) => txn(i)),
    unreadable: [],
    accounts: [account],
    link: {} as CachedHistory["link"],
    readAt: 1,
  };

  it("filters the whole history, pages the result, labels accounts and counts what matched", async () => {
    const page = await transactionsPage(
      database.db,
      "L9",
      history,
      { filters: { q: "rent" }, page: 2 },
      { pageSize: 5 },
    );
    expect(page).toMatchObject({ total: 25, matching: 13, page: 2, pageCount: 3, pageSize: 5, readAt: 1 });
    expect(page.rows.map((r) => r.id)).toEqual(["p10", "p12", "p14", "p16", "p18"]);
    expect(page.rows[0]?.accountName).toBe("Everyday Checking ••1234");
    expect(page.accounts).toEqual([{ id: "acc_1", label: "Everyday Checking ••1234" }]);
  });

  it("answers every matching row at once for a bulk correction of the whole filter", async () => {
    const page = await transactionsPage(
      database.db,
      "L9",
      history,
      { filters: { q: "coffee" }, page: 1 },
      { all: true, pageSize: 5 },
    );
    expect(page.rows).toHaveLength(12);
    expect(page.pageCount).toBe(1);
  });
});
