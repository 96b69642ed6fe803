import { describe, expect, it } from "vitest";
import { filterTransactions, pageOf, parseTransactionFilters, transactionFiltersToSearchParams } from "./filters";
import { type TransactionRow, formatAmount } from "./rows";

function row(over: Partial<TransactionRow> & { id: string }): TransactionRow {
  return {
    date: "2026-10-01",
    datetime: null,
    description: "Coffee",
    rawDescription: null,
    merchant: null,
    amount: 10,
    direction: "debit",
    currency: "USD",
    accountId: "acc_1",
    accountName: "Everyday Checking ••1234",
    pending: false,
    category: "food_and_drink",
    subcategory: "coffee",
    categoryConfidence: 90,
    subcategoryConfidence: 80,
    recurrence: null,
    ...over,
  } as TransactionRow;
}

describe("parseTransactionFilters (the URL)", () => {
  it("finds transactions that keep a subcategory from before the taxonomy's revision of 2025-01-13", () => {
    const { filters, dropped } = parseTransactionFilters(
      new URLSearchParams("category=banking&subcategory=overdraft_fees"),
    );
    expect(dropped).toEqual([]);
    const rows = [
      row({ id: "old", category: "banking", subcategory: "overdraft_fees" }),
      row({ id: "new", category: "banking", subcategory: "nsf_and_overdraft_fees" }),
    ];
    expect(filterTransactions(rows, filters).map((r) => r.id)).toEqual(["old"]);
    expect(
      parseTransactionFilters(new URLSearchParams("category=transport&subcategory=overdraft_fees")).dropped,
    ).toEqual([expect.objectContaining({ param: "subcategory", reason: "not a subcategory of Transport" })]);
  });

  it("reads every filter from its parameter", () => {
    const { filters, page, dropped } = parseTransactionFilters(
      new URLSearchParams(
        "q=starbucks&account=acc_1&start_date=2026-01-01&end_date=2026-03-31&category=transport&subcategory=taxi&confidence_below=60&pending=no&amount_min=5&amount_max=12.5&page=2",
      ),
    );
    expect(dropped).toEqual([]);
    expect(page).toBe(2);
    expect(filters).toEqual({
      q: "starbucks",
      account: "acc_1",
      startDate: "2026-01-01",
      endDate: "2026-03-31",
      category: "transport",
      subcategory: "taxi",
      confidenceBelow: 60,
      pending: false,
      amountMin: 5,
      amountMax: 12.5,
    });
  });

  it("means the whole history and the first page when nothing is given; blank fields are not filters", () => {
    expect(parseTransactionFilters({})).toEqual({ filters: {}, page: 1, dropped: [] });
    expect(parseTransactionFilters({ q: "  ", category: "", start_date: "" })).toEqual({
      filters: {},
      page: 1,
      dropped: [],
    });
  });

  it("drops what it cannot use and says why, keeping the rest", () => {
    const { filters, dropped } = parseTransactionFilters({
      q: "rent",
      category: "Shopping Spree!",
      confidence_below: "101",
      pending: "maybe",
      start_date: "2026-02-30",
      amount_min: "-4",
      page: "0",
    });
    expect(filters).toEqual({ q: "rent" });
    expect(dropped.map((d) => [d.param, d.reason])).toEqual([
      ["start_date", "not a date (YYYY-MM-DD)"],
      ["category", "not a category"],
      ["confidence_below", "must be 1 to 100"],
      ["pending", "must be yes or no"],
      ["amount_min", "must be an amount of 0 or more"],
      ["page", "not a page number"],
    ]);
  });

  it("keeps a category or subcategory the upstream added since, so its transactions can be found", () => {
    const { filters, dropped } = parseTransactionFilters({
      category: "subscriptions",
      subcategory: "software_subscriptions",
    });
    expect(dropped).toEqual([]);
    expect(filters).toEqual({ category: "subscriptions", subcategory: "software_subscriptions" });
    const rows = [
      row({ id: "new", category: "subscriptions", subcategory: "software_subscriptions" }),
      row({ id: "known", category: "shopping", subcategory: "general_online_shopping" }),
    ];
    expect(filterTransactions(rows, filters).map((r) => r.id)).toEqual(["new"]);
  });

  it("drops a reversed date or amount range, and a subcategory of another category", () => {
    const { filters, dropped } = parseTransactionFilters({
      start_date: "2026-05-01",
      end_date: "2026-04-01",
      amount_min: "50",
      amount_max: "10",
      category: "banking",
      subcategory: "coffee",
    });
    expect(filters).toEqual({ category: "banking" });
    expect(dropped.map((d) => d.param)).toEqual(["start_date", "end_date", "amount_min", "amount_max", "subcategory"]);
    expect(dropped.at(-1)?.reason).toBe("not a subcategory of Banking");
  });

  it("refuses a parameter given twice rather than guess", () => {
    const { filters, dropped } = parseTransactionFilters(new URLSearchParams("account=a&account=b"));
    expect(filters).toEqual({});
    expect(dropped).toEqual([{ param: "account", value: "a, b", reason: "given more than once" }]);
  });

  it("writes the filters back to the same URL", () => {
    const query =
      "q=rent&account=acc_1&start_date=2026-01-01&end_date=2026-02-01&category=mortgage_and_rent&subcategory=rent&confidence_below=70&pending=yes&amount_min=1&amount_max=2000&page=3";
    const { filters, page } = parseTransactionFilters(new URLSearchParams(query));
    expect(transactionFiltersToSearchParams(filters, page).toString()).toBe(query);
    expect(transactionFiltersToSearchParams({}, 1).toString()).toBe("");
  });
});

describe("filterTransactions (on the server, since the upstream filters only by date and account)", () => {
  const rows = [
    row({
      id: "t1",
      date: "2026-10-03",
      description: "Starbucks",
      rawDescription: "SQ *STARBUCKS #1234",
      category: "transport",
      subcategory: "taxi",
      categoryConfidence: 72,
      subcategoryConfidence: 55,
      merchant: { name: "Starbucks", logo: null, website: null },
    }),
    row({
      id: "t2",
      date: "2026-09-15",
      description: "Rent October",
      category: "shopping",
      subcategory: "other_shopping",
      amount: 1800,
      accountId: "acc_2",
    }),
    row({
      id: "t3",
      date: "2026-08-01",
      description: "Payroll",
      direction: "credit",
      amount: 3200,
      category: "income",
      subcategory: "employment_income",
      pending: true,
    }),
    row({
      id: "t4",
      date: "2026-07-20",
      description: "Café Crème",
      categoryConfidence: null,
      subcategoryConfidence: null,
    }),
  ];
  const ids = (filters: Parameters<typeof filterTransactions>[1]) => filterTransactions(rows, filters).map((r) => r.id);

  it("keeps everything, newest first, without filters", () => {
    expect(ids({})).toEqual(["t1", "t2", "t3", "t4"]);
  });

  it("searches the description, the raw description and the merchant, every word, any case and accent", () => {
    expect(ids({ q: "starbucks" })).toEqual(["t1"]);
    expect(ids({ q: "sq 1234" })).toEqual(["t1"]);
    expect(ids({ q: "RENT oct" })).toEqual(["t2"]);
    expect(ids({ q: "cafe creme" })).toEqual(["t4"]);
    expect(ids({ q: "rent payroll" })).toEqual([]);
    expect(ids({ q: "t3" })).toEqual(["t3"]);
  });

  it("filters by account, date range (inclusive), category and subcategory", () => {
    expect(ids({ account: "acc_2" })).toEqual(["t2"]);
    expect(ids({ startDate: "2026-08-01", endDate: "2026-09-15" })).toEqual(["t2", "t3"]);
    expect(ids({ category: "transport" })).toEqual(["t1"]);
    expect(ids({ category: "food_and_drink", subcategory: "coffee" })).toEqual(["t4"]);
  });

  it("finds unsure ones by the lower of the two confidences, leaving out those with none", () => {
    expect(ids({ confidenceBelow: 60 })).toEqual(["t1"]);
    expect(ids({ confidenceBelow: 81 })).toEqual(["t1", "t2", "t3"]);
  });

  it("filters by pending and by amount in either direction", () => {
    expect(ids({ pending: true })).toEqual(["t3"]);
    expect(ids({ pending: false })).toEqual(["t1", "t2", "t4"]);
    expect(ids({ amountMin: 1000 })).toEqual(["t2", "t3"]);
    expect(ids({ amountMin: 1800, amountMax: 1800 })).toEqual(["t2"]);
    expect(ids({ amountMax: 10 })).toEqual(["t1", "t4"]);
  });

  it("combines filters", () => {
    expect(ids({ q: "starbucks", category: "transport", confidenceBelow: 60, pending: false })).toEqual(["t1"]);
    expect(ids({ q: "starbucks", category: "food_and_drink" })).toEqual([]);
  });

  it("pages the filtered rows, a clamped page past the end showing the last", () => {
    const many = Array.from({ length: 2500 }, (_, i) => i);
    expect(pageOf(many, 1)).toMatchObject({ page: 1, pageCount: 3 });
    expect(pageOf(many, 3).rows).toHaveLength(500);
    expect(pageOf(many, 9)).toMatchObject({ page: 3 });
    expect(pageOf([], 1)).toEqual({ rows: [], page: 1, pageCount: 1 });
  });
});

describe("formatAmount", () => {
  it("shows the direction and the currency's own format", () => {
    expect(formatAmount({ amount: 1250, direction: "credit", currency: "USD" })).toBe("+$1,250.00");
    expect(formatAmount({ amount: 12.3, direction: "debit", currency: "CAD" })).toBe("−CA$12.30");
    expect(formatAmount({ amount: 5, direction: "debit", currency: "XYZ1" })).toBe("−5.00 XYZ1");
  });
});
