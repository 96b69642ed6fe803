import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectError,
  first,
  fixtures,
  startSandbox,
  validationLocations,
  type Fixtures,
  type TestSandbox,
} from "./test-support";
import { type WireTransaction, correctionShape, linkShape, transactionsPageShape } from "./wire-shapes";
import { categoryOf } from "./wire-vocabulary";

let t: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  t = await startSandbox({ links: 128, transactionsPerLink: 120, clock: true });
  seeded = await fixtures(t);
});
afterAll(() => t.close());

async function allTransactions(linkId: string): Promise<WireTransaction[]> {
  const response = await t.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=1000`);
  expect(response.status).toBe(200);
  return transactionsPageShape.parse(response.json).transactions;
}

/** A transaction whose merchant also appears on older transactions of the same link. */
async function repeatedMerchantTransaction(): Promise<{
  linkId: string;
  transaction: WireTransaction;
  olderSameMerchant: WireTransaction[];
}> {
  for (const linkId of seeded.plain ?? []) {
    const transactions = await allTransactions(linkId);
    for (const [index, transaction] of transactions.entries()) {
      const merchantId = transaction.enrichment?.merchant?.id;
      if (!merchantId) continue;
      const older = transactions.slice(index + 1).filter((other) => other.enrichment?.merchant?.id === merchantId);
      if (older.length >= 2) return { linkId, transaction, olderSameMerchant: older };
    }
  }
  throw new Error("no link with a repeated merchant");
}

describe("GET /links/{id}/transactions", () => {
  it("lists the last 90 days by default and everything from start_date=1900-01-01, newest first", async () => {
    const linkId = first(seeded, "plain");
    const everything = transactionsPageShape.parse(
      (await t.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=1000`)).json,
    );
    expect(everything.total).toBe(120);
    expect(everything.transactions).toHaveLength(120);
    const dates = everything.transactions.map((transaction) => transaction.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(everything.link.link_id).toBe(linkId);

    const byDefault = transactionsPageShape.parse((await t.api("GET", `/links/${linkId}/transactions?size=1000`)).json);
    const today = new Date(t.clock.now).toISOString().slice(0, 10);
    const start = new Date(t.clock.now - 90 * 86_400_000).toISOString().slice(0, 10);
    expect(byDefault.total).toBe(dates.filter((date) => date >= start && date <= today).length);
    expect(byDefault.total).toBeLessThan(120);
  });

  it("pages with page and size, and filters by account_ids and dates", async () => {
    const linkId = first(seeded, "plain");
    const all = await allTransactions(linkId);
    const second = transactionsPageShape.parse(
      (await t.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=7&page=2`)).json,
    );
    expect(second).toMatchObject({ total: 120, page: 2, size: 7 });
    expect(second.transactions).toEqual(all.slice(7, 14));

    const accountId = all[0]?.account_id ?? "";
    const filtered = transactionsPageShape.parse(
      (await t.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=1000&account_ids=${accountId}`))
        .json,
    );
    expect(filtered.total).toBe(all.filter((transaction) => transaction.account_id === accountId).length);
    expect(filtered.accounts.map((account) => account.account_id)).toEqual([accountId]);

    const day = all[10]?.date ?? "";
    const oneDay = transactionsPageShape.parse(
      (await t.api("GET", `/links/${linkId}/transactions?start_date=${day}&end_date=${day}`)).json,
    );
    expect(oneDay.transactions.every((transaction) => transaction.date === day)).toBe(true);
    expect(oneDay.total).toBe(all.filter((transaction) => transaction.date === day).length);
  });

  it("refuses bad paging and dates with 422 naming the parameter", async () => {
    const linkId = first(seeded, "plain");
    for (const [query, field] of [
      ["size=0", "query.size"],
      ["size=1001", "query.size"],
      ["page=0", "query.page"],
      ["start_date=2026-13-01", "query.start_date"],
    ] as const) {
      const response = await t.api("GET", `/links/${linkId}/transactions?${query}`);
      expectError(response, 422, "api_error.request.validation_failed");
      expect(validationLocations(response)).toEqual([field]);
    }
  });

  it("answers 403 without the transactions product and 422 bad_state before the link has data", async () => {
    expectError(
      await t.api("GET", `/links/${first(seeded, "no_transactions_product")}/transactions`),
      403,
      "link_error.forbidden_action",
    );
    const body = expectError(
      await t.api("GET", `/links/${first(seeded, "connecting")}/transactions`),
      422,
      "link_error.bad_state",
    );
    expect(body.link_error_code).toBe("link_not_ready");
    expectError(await t.api("GET", "/links/mk_doesNotExist/transactions"), 404, "link_error.not_found");
  });

  it("serves data of links in error (their data stays readable)", async () => {
    const response = await t.api(
      "GET",
      `/links/${first(seeded, "error:institution_error")}/transactions?start_date=1900-01-01`,
    );
    expect(response.status).toBe(200);
    expect(transactionsPageShape.parse(response.json).total).toBe(120);
  });
});

describe("POST /links/{id}/transactions/{txn_id}/enrichment", () => {
  it("stores the correction, returns it with similar older transactions, and a later listing shows it", async () => {
    const { linkId, transaction, olderSameMerchant } = await repeatedMerchantTransaction();
    const response = await t.api("POST", `/links/${linkId}/transactions/${transaction.transaction_id}/enrichment`, {
      body: { category: "charity", subcategory: "other_charity" },
    });
    expect(response.status).toBe(200);
    const body = correctionShape.parse(response.json);
    const [updated, ...similar] = body.transactions;
    expect(updated?.transaction_id).toBe(transaction.transaction_id);
    expect(updated?.enrichment?.category).toEqual({ value: "charity", confidence: 100 });
    expect(updated?.enrichment?.subcategory).toEqual({ value: "other_charity", confidence: 100 });
    expect(similar.map((other) => other.transaction_id)).toEqual(
      olderSameMerchant.slice(0, 50).map((other) => other.transaction_id),
    );
    expect(new Set(body.accounts.map((account) => account.account_id))).toEqual(
      new Set(body.transactions.map((other) => other.account_id)),
    );
    expect(body.link.link_id).toBe(linkId);
    expect(body.cursor?.next).toBe("");

    const listed = (await allTransactions(linkId)).find((other) => other.transaction_id === transaction.transaction_id);
    expect(listed?.enrichment?.category.value).toBe("charity");
    expect(listed?.enrichment?.subcategory?.value).toBe("other_charity");
  });

  it("without a subcategory, files the transaction under other_<category>", async () => {
    const linkId = seeded.plain?.[2] ?? "";
    const transaction = (await allTransactions(linkId)).find(
      (candidate) => candidate.enrichment?.category.value !== "travel",
    );
    const body = correctionShape.parse(
      (
        await t.api("POST", `/links/${linkId}/transactions/${transaction?.transaction_id}/enrichment`, {
          body: { category: "travel" },
        })
      ).json,
    );
    expect(body.transactions[0]?.enrichment?.subcategory?.value).toBe("other_travel");
  });

  it("refuses values outside the taxonomy and a subcategory of another category with 422 naming the field", async () => {
    const linkId = first(seeded, "plain");
    const [transaction] = await allTransactions(linkId);
    const path = `/links/${linkId}/transactions/${transaction?.transaction_id}/enrichment`;
    expect(categoryOf("coffee")).toBe("food_and_drink");
    const cases: [unknown, string][] = [
      [{ category: "food_and_drink", subcategory: "taxi" }, "body.subcategory"],
      [{ category: "groceries" }, "body.category"],
      [{ category: "food_and_drink", subcategory: "espresso" }, "body.subcategory"],
      [{ subcategory: "coffee" }, "body.category"],
    ];
    for (const [body, field] of cases) {
      const response = await t.api("POST", path, { body });
      expectError(response, 422, "api_error.request.validation_failed");
      expect(validationLocations(response)).toContain(field);
    }
  });

  it("answers 404 for an unknown link or transaction, 410 for a deleted link", async () => {
    const body = { category: "banking", subcategory: "account_fees_and_other_bank_charges" };
    expectError(
      await t.api("POST", "/links/mk_doesNotExist/transactions/x/enrichment", { body }),
      404,
      "link_error.not_found",
    );
    const unknownTxn = expectError(
      await t.api(
        "POST",
        `/links/${first(seeded, "plain")}/transactions/00000000-0000-4000-8000-000000000000/enrichment`,
        { body },
      ),
      404,
      "transaction_error.not_found",
    );
    expect(unknownTxn.error_message).toBe("Transaction not found.");
    expectError(
      await t.api("POST", `/links/${first(seeded, "deleted")}/transactions/x/enrichment`, { body }),
      410,
      "link_error.deleted",
    );
  });

  it("answers 403 without the transactions product and 422 bad_state while connecting or awaiting the exchange", async () => {
    const body = { category: "banking" };
    const forbidden = expectError(
      await t.api("POST", `/links/${first(seeded, "no_transactions_product")}/transactions/x/enrichment`, { body }),
      403,
      "link_error.forbidden_action",
    );
    expect(forbidden.error_message).toBe("Transactions access not permitted");
    for (const role of ["connecting", "awaiting_token_exchange"]) {
      const badState = expectError(
        await t.api("POST", `/links/${first(seeded, role)}/transactions/x/enrichment`, { body }),
        422,
        "link_error.bad_state",
      );
      expect(badState.link_error_code).toBe("link_not_ready");
    }
    const link = linkShape.parse((await t.api("GET", `/links/${first(seeded, "awaiting_token_exchange")}`)).json);
    expect(link.state).toBe("awaiting_token_exchange");
  });
});

describe("corrections refine later imports", () => {
  it("applies a merchant's correction to transactions of that merchant imported later", async () => {
    const { linkId, transaction } = await repeatedMerchantTransaction();
    const merchant = transaction.enrichment?.merchant?.name ?? "";
    const correction = { category: "entertainment", subcategory: "other_entertainment" };
    expect(
      (
        await t.api("POST", `/links/${linkId}/transactions/${transaction.transaction_id}/enrichment`, {
          body: correction,
        })
      ).status,
    ).toBe(200);

    const imported = linkShape.parse(
      (
        await t.api("POST", "/links/import", {
          body: {
            customer_user: { id: "user_import_after_correction" },
            institution_id: "chase",
            accounts: [{ account_id: "a1", name: "Checking", type: "checking", balances: { current: 10 } }],
            transactions: [
              {
                account_id: "a1",
                transaction_id: "t-1",
                amount: "-12.50",
                date: "2026-11-10",
                description: transaction.raw_description,
              },
              {
                account_id: "a1",
                transaction_id: "t-2",
                amount: "-3.10",
                date: "2026-11-09",
                description: "STARBUCKS STORE 00001",
              },
            ],
          },
        })
      ).json,
    );
    const rows = await allTransactions(imported.link_id);
    const same = rows.find((row) => row.original_id === "t-1");
    expect(same?.enrichment?.merchant?.name).toBe(merchant);
    expect(same?.enrichment?.category.value).toBe("entertainment");
    expect(same?.enrichment?.subcategory?.value).toBe("other_entertainment");
    if (merchant !== "Starbucks")
      expect(rows.find((row) => row.original_id === "t-2")?.enrichment?.category.value).toBe("food_and_drink");
  });

  it("remembers a correction by normalised description when there is no merchant", async () => {
    const importLink = async (description: string, id: string) =>
      linkShape.parse(
        (
          await t.api("POST", "/links/import", {
            body: {
              customer_user: { id: "user_description_memory" },
              institution_id: "mx.wells_fargo",
              accounts: [{ account_id: "acct", name: "Checking", type: "checking", balances: {} }],
              transactions: [
                { account_id: "acct", transaction_id: id, amount: "-80.00", date: "2026-11-01", description },
              ],
            },
          })
        ).json,
      );
    const firstLink = await importLink("JOE'S GARAGE LLC #22", "g-1");
    const [row] = await allTransactions(firstLink.link_id);
    expect(row?.enrichment?.merchant ?? null).toBeNull();
    expect(row?.enrichment?.category.value).toBe("general");
    await t.api("POST", `/links/${firstLink.link_id}/transactions/${row?.transaction_id}/enrichment`, {
      body: { category: "transport", subcategory: "vehicle" },
    });

    const later = await importLink("Joe's Garage LLC 7", "g-2");
    expect(later.institution_name).toBe("Wells Fargo");
    const [laterRow] = await allTransactions(later.link_id);
    expect(laterRow?.enrichment?.category).toEqual({ value: "transport", confidence: 100 });
    expect(laterRow?.enrichment?.subcategory?.value).toBe("vehicle");
  });
});

describe("generated data kept in a bounded cache", () => {
  it("regenerates evicted data identically and never evicts a corrected link", async () => {
    const big = await startSandbox({ links: 5200, transactionsPerLink: 5 });
    try {
      const { store } = big.sandbox.state;
      const ids = store.listLinks(null, 5000).links.map((link) => link.link_id);
      const [corrected = "", untouched = ""] = ids.filter(
        (id) => store.getLink(id)?.state === "connected" && store.getLink(id)?.products.transactions,
      );
      const before = transactionsPageShape.parse(
        (await big.api("GET", `/links/${untouched}/transactions?start_date=1900-01-01`)).json,
      );
      const [target] = (
        await big
          .api("GET", `/links/${corrected}/transactions?start_date=1900-01-01`)
          .then((r) => transactionsPageShape.parse(r.json))
      ).transactions;
      await big.api("POST", `/links/${corrected}/transactions/${target?.transaction_id}/enrichment`, {
        body: { category: "taxes", subcategory: "other_taxes" },
      });

      const untouchedLink = store.getLink(untouched);
      const cached = untouchedLink && store.dataOf(untouchedLink);
      const everyOther = [
        ...ids,
        ...store
          .listLinks(null, 5000 + 200)
          .links.slice(5000)
          .map((link) => link.link_id),
      ].filter((id) => id !== untouched);
      for (const id of everyOther) {
        const link = store.getLink(id);
        if (link) store.dataOf(link);
      }
      expect(untouchedLink && store.dataOf(untouchedLink)).not.toBe(cached);
      const after = transactionsPageShape.parse(
        (await big.api("GET", `/links/${untouched}/transactions?start_date=1900-01-01`)).json,
      );
      expect(after).toEqual(before);
      const correctedRows = transactionsPageShape.parse(
        (await big.api("GET", `/links/${corrected}/transactions?start_date=1900-01-01`)).json,
      );
      expect(
        correctedRows.transactions.find((row) => row.transaction_id === target?.transaction_id)?.enrichment?.category
          .value,
      ).toBe("taxes");
    } finally {
      await big.close();
    }
  });
});
