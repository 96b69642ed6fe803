import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSandboxEnv } from "./env";
import { first, fixtures, startSandbox, type Fixtures, type TestSandbox } from "./test-support";
import { twoPlaces } from "./drift";
import { stringAmountTransactionShape, transactionShape } from "./wire-shapes";

// The spec types a transaction's amount as a number; the public SDKs carry it as a decimal string. The switch lets
// the client be tested against both.

let numbers: TestSandbox;
let strings: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  [numbers, strings] = await Promise.all([
    startSandbox({ links: 64 }),
    startSandbox({ links: 64, amountsAsStrings: true }),
  ]);
  seeded = await fixtures(numbers);
});
afterAll(() => Promise.all([numbers.close(), strings.close()]));

type RawTransaction = { transaction_id: string; amount: unknown };

describe("amounts as decimal strings", () => {
  it("serves the same amounts as strings when switched on, and as numbers by default", async () => {
    const path = `/links/${first(seeded, "plain")}/transactions?start_date=1900-01-01&size=1000`;
    const asNumbers = (await numbers.api("GET", path)).json as { transactions: RawTransaction[] };
    const asStrings = (await strings.api("GET", path)).json as { transactions: RawTransaction[] };
    expect(asNumbers.transactions.length).toBeGreaterThan(0);
    asNumbers.transactions.forEach((transaction, i) => {
      expect(typeof transaction.amount).toBe("number");
      const other = asStrings.transactions[i]!;
      expect(other.transaction_id).toBe(transaction.transaction_id);
      expect(other.amount).toMatch(/^\d+\.\d{2,}$/);
      expect(Number(other.amount)).toBe(transaction.amount);
    });
    // Apart from the amount's type, both are the transaction the facts describe.
    for (const transaction of asNumbers.transactions) transactionShape.parse(transaction);
    for (const transaction of asStrings.transactions) stringAmountTransactionShape.parse(transaction);
  });

  it("serves the corrected transaction and its similar ones with string amounts too", async () => {
    const id = first(seeded, "plain");
    const page = (await strings.api("GET", `/links/${id}/transactions?size=1`)).json as {
      transactions: RawTransaction[];
    };
    const response = await strings.api(
      "POST",
      `/links/${id}/transactions/${page.transactions[0]!.transaction_id}/enrichment`,
      { body: { category: "charity" } },
    );
    expect(response.status).toBe(200);
    for (const transaction of (response.json as { transactions: RawTransaction[] }).transactions)
      expect(typeof transaction.amount).toBe("string");
  });

  it("writes every amount with at least two decimals and never rounds", () => {
    expect([twoPlaces(12), twoPlaces(12.3), twoPlaces(12.34), twoPlaces(0.125)]).toEqual([
      "12.00",
      "12.30",
      "12.34",
      "0.125",
    ]);
  });

  it("is switched on by SANDBOX_AMOUNTS_AS_STRINGS and refuses a value it cannot read", () => {
    const on = parseSandboxEnv({ SANDBOX_AMOUNTS_AS_STRINGS: "1" });
    expect(on.ok && on.config.options.amountsAsStrings).toBe(true);
    const off = parseSandboxEnv({});
    expect(off.ok && off.config.options.amountsAsStrings).toBeUndefined();
    expect(parseSandboxEnv({ SANDBOX_AMOUNTS_AS_STRINGS: "sometimes" })).toEqual({
      ok: false,
      errors: ['SANDBOX_AMOUNTS_AS_STRINGS must be on or off (got "sometimes")'],
    });
  });
});
