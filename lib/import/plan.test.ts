import { describe, expect, it } from "vitest";
import type { KeyHeadroom } from "../budget/headroom";
import { IMPORT_MAX_BYTES, IMPORT_MAX_TRANSACTIONS } from "../upstream/schemas";
import {
  estimateImportDuration,
  importTag,
  jsonByteLength,
  planImportBatches,
  utf8Length,
  withImportTags,
} from "./plan";
import { IDENTITY_TAG_PREFIX } from "./identity";
import type { ImportLinkBody } from "./validate";

// The split of one link into calls: every call under both limits, nothing lost or repeated, dates in order.

const body = (transactions: ImportLinkBody["transactions"], accounts = 1): ImportLinkBody => ({
  customer_user: { id: "u" },
  institution_id: "chase",
  accounts: Array.from({ length: accounts }, (_, i) => ({
    account_id: `a${i}`,
    name: `Account ${i}`,
    type: "checking",
    balances: {},
  })),
  transactions,
});
const txn = (n: number, description = "Shop", date = `2024-01-${String(1 + (n % 28)).padStart(2, "0")}`) => ({
  account_id: "a0",
  transaction_id: `t-${n}`,
  amount: "-1.00",
  date,
  description,
});

function callsOf(result: ReturnType<typeof planImportBatches>) {
  if (!result.ok) throw new Error(result.problem.message);
  const { plan } = result;
  const importBody = JSON.stringify(
    withImportTags(plan.body, [
      importTag("7d3c1a52-8f2b-4f3e-9a7c-2b1d0e5f6a7b", 12345),
      `${IDENTITY_TAG_PREFIX}${"f".repeat(32)}`,
    ]),
  );
  return { plan, importBody, batchBodies: plan.batches.map((b) => JSON.stringify({ transactions: b.transactions })) };
}

describe("planImportBatches", () => {
  it("a small link is one call with all its transactions", () => {
    const { plan, importBody } = callsOf(planImportBatches(body([txn(1), txn(2)]), 3));
    expect(plan.batches).toEqual([]);
    expect(plan.body.transactions).toHaveLength(2);
    expect(utf8Length(importBody)).toBeLessThanOrEqual(plan.bytes + 4);
  });

  it("splits by count: 10,001 small transactions are 4000 + 4000 + 2001", () => {
    const { plan, batchBodies } = callsOf(planImportBatches(body(Array.from({ length: 10_001 }, (_, n) => txn(n))), 0));
    expect([plan.body.transactions.length, ...plan.batches.map((b) => b.transactions.length)]).toEqual([
      4000, 4000, 2001,
    ]);
    expect(batchBodies.every((b) => b.length < IMPORT_MAX_BYTES)).toBe(true);
  });

  it("splits by bytes: large transactions make calls under 1 MB each, the first call counting the accounts", () => {
    const big = Array.from({ length: 3_000 }, (_, n) => txn(n, "x".repeat(1_000)));
    const { plan, importBody, batchBodies } = callsOf(planImportBatches(body(big, 200), 12345));
    expect(plan.batches.length).toBeGreaterThanOrEqual(2);
    for (const call of [importBody, ...batchBodies]) expect(utf8Length(call)).toBeLessThanOrEqual(IMPORT_MAX_BYTES);
    // Full: each call but the last would have gone over with one more transaction.
    expect(utf8Length(batchBodies[0]!)).toBeGreaterThan(IMPORT_MAX_BYTES - 1_100);
    expect(plan.batches.every((b, i) => utf8Length(batchBodies[i]!) === b.bytes)).toBe(true);
    expect(plan.body.transactions.length + plan.batches.reduce((n, b) => n + b.transactions.length, 0)).toBe(3_000);
  });

  it("counts multi-byte characters as the bytes they are on the wire", () => {
    const wide = Array.from({ length: 2_000 }, (_, n) => txn(n, "€".repeat(300)));
    const { importBody, batchBodies } = callsOf(planImportBatches(body(wide), 0));
    expect(batchBodies.length).toBeGreaterThanOrEqual(1);
    for (const call of [importBody, ...batchBodies])
      expect(new TextEncoder().encode(call).length).toBeLessThanOrEqual(IMPORT_MAX_BYTES);
  });

  it("sends every transaction exactly once, in date order, each batch naming its date range", () => {
    const shuffled = Array.from({ length: 9_000 }, (_, n) =>
      txn(n, "Shop", `2023-${String(1 + ((n * 7) % 12)).padStart(2, "0")}-10`),
    );
    const { plan } = callsOf(planImportBatches(body(shuffled), 0));
    const sent = [plan.body.transactions, ...plan.batches.map((b) => b.transactions)].flat();
    expect(new Set(sent.map((t) => t.transaction_id)).size).toBe(9_000);
    const dates = sent.map((t) => t.date);
    expect(dates).toEqual([...dates].sort());
    for (const batch of plan.batches) {
      expect(batch.firstDate).toBe(batch.transactions[0]!.date);
      expect(batch.lastDate).toBe(batch.transactions.at(-1)!.date);
    }
    expect([plan.firstDate, plan.lastDate]).toEqual(["2023-01-10", "2023-12-10"]);
  });

  it("gives transactions without an id a stable one, so a batch sent again cannot double them", () => {
    const first = planImportBatches(
      body([
        { account_id: "a0", amount: "1", date: "2024-01-01" },
        { ...txn(1), transaction_id: "linkdesk-0" },
      ]),
      0,
    );
    const again = planImportBatches(
      body([
        { account_id: "a0", amount: "1", date: "2024-01-01" },
        { ...txn(1), transaction_id: "linkdesk-0" },
      ]),
      0,
    );
    expect(first.ok && first.plan.body.transactions.map((t) => t.transaction_id)).toEqual([
      "linkdesk-0~",
      "linkdesk-0",
    ]);
    expect(again).toEqual(first);
  });

  it("refuses what cannot be split: accounts alone over 1 MB, one transaction over 1 MB", () => {
    const accounts = planImportBatches(body([], 15_000));
    expect(accounts).toMatchObject({
      ok: false,
      problem: { path: "accounts", message: expect.stringContaining("accounts cannot be split") },
    });
    const huge = planImportBatches(body([txn(0), txn(1, "y".repeat(IMPORT_MAX_BYTES))]));
    expect(huge).toMatchObject({
      ok: false,
      problem: { path: "transactions[1]", message: expect.stringContaining("this one transaction is") },
    });
  });

  it("respects smaller limits when given (the count limit is the upstream's by default)", () => {
    const result = planImportBatches(body(Array.from({ length: 10 }, (_, n) => txn(n))), 0, {
      maxBytes: IMPORT_MAX_BYTES,
      maxTransactions: 3,
    });
    const { plan } = callsOf(result);
    expect([plan.body.transactions.length, ...plan.batches.map((b) => b.transactions.length)]).toEqual([3, 3, 3, 1]);
    expect(IMPORT_MAX_TRANSACTIONS).toBe(4000);
  });
});

describe("jsonByteLength", () => {
  it("is the UTF-8 length of JSON.stringify, for every kind of JSON value and the fields JSON.stringify leaves out", () => {
    const values: unknown[] = [
      "",
      "plain",
      'quote " and \\ backslash',
      "line\nbreak\ttab\u0001",
      "é€😀",
      0,
      -0,
      1.5,
      -12.25,
      1e21,
      1e-7,
      Number.NaN,
      true,
      false,
      null,
      [],
      [1, "a", null, undefined, [true]],
      {},
      { a: 1, b: undefined, c: [{ d: "€" }], 'k"ey': "v" },
      { amount: "-2.50", date: "2024-01-01T10:00:00+02:00", description: "Müller & Co — 100 %", pending: false },
    ];
    for (const value of values)
      expect(jsonByteLength(value), JSON.stringify(value)).toBe(new TextEncoder().encode(JSON.stringify(value)).length);
  });
});

describe("estimateImportDuration", () => {
  const headroom = (endpoint: string, limit: number, remaining: number): KeyHeadroom[] => [
    {
      key: { endpoint, scope: "app", scopeId: "app", limit, upstreamLimit: limit * 2, windowMs: 61_000 },
      used: limit - remaining,
      remaining,
      nextSlotAt: null,
      closedUntil: null,
    },
  ];

  it("the binding endpoint sets the time: 90 imports at 30 a minute with 30 left take two more windows", () => {
    const estimate = estimateImportDuration(
      { imports: 90, batches: 10 },
      {
        imports: headroom("POST /links/import", 30, 30),
        batches: headroom("POST /links/{id}/import/transactions", 60, 60),
      },
    );
    expect(estimate).toMatchObject({ seconds: 122 + 10, binding: { endpoint: "POST /links/import", limit: 30 } });
  });
});
