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
import { IMPORT_MAX_BYTES, IMPORT_MAX_TRANSACTIONS } from "./limits";
import { linkShape, transactionsPageShape } from "./wire-shapes";
import { PROVIDERS } from "./wire-vocabulary";

let t: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  t = await startSandbox({ links: 64, clock: true });
  seeded = await fixtures(t);
});
afterAll(() => t.close());

const accounts = [
  {
    account_id: "chk-1",
    name: "Joint checking",
    type: "checking",
    mask: "0042",
    balances: { currency: "USD", current: 1520.33, available: 1490 },
  },
  { account_id: "cc-1", name: "Rewards card", type: "credit card", balances: { current: 310.5, limit: 5000 } },
];
const transactions = [
  {
    account_id: "chk-1",
    transaction_id: "orig-salary",
    amount: "2500.00",
    date: "2026-11-14",
    description: "ACME CORP PAYROLL PPD ID: 123",
  },
  {
    account_id: "cc-1",
    transaction_id: "orig-coffee",
    amount: "-4.75",
    date: "2026-11-15T08:30:00Z",
    description: "STARBUCKS STORE 1234",
  },
  {
    account_id: "chk-1",
    amount: "-61.20",
    date: "2026-11-16",
    description: "Corner Hardware",
    type: "home_maintenance",
  },
];

const importBody = (extra: Record<string, unknown> = {}) => ({
  customer_user: { id: "user_import", email: { address: "ops@example.com" } },
  institution_id: "chase",
  provider: "plaid",
  accounts,
  transactions,
  link_tags: ["team:retail"],
  webhook: "https://hooks.example/import",
  ...extra,
});

describe("POST /links/import", () => {
  it("without provider credentials creates a disconnected link (error, auth_expired) whose data is readable", async () => {
    const response = await t.api("POST", "/links/import", { body: importBody() });
    expect(response.status).toBe(200);
    const link = linkShape.parse(response.json);
    expect(link).toMatchObject({
      state: "error",
      error_code: "auth_expired",
      auth_expired_at: new Date(t.clock.now).toISOString(),
      institution_id: "chase",
      provider: "plaid",
      link_tags: ["team:retail"],
      webhook: "https://hooks.example/import",
    });
    const page = transactionsPageShape.parse(
      (await t.api("GET", `/links/${link.link_id}/transactions?start_date=1900-01-01`)).json,
    );
    expect(page.total).toBe(3);
    const byOriginal = new Map(page.transactions.map((row) => [row.original_id ?? row.description, row]));
    expect(byOriginal.get("orig-salary")).toMatchObject({ amount: 2500, type: "credit", date: "2026-11-14" });
    expect(byOriginal.get("orig-salary")?.enrichment?.subcategory?.value).toBe("employment_income");
    const coffee = byOriginal.get("orig-coffee");
    expect(coffee).toMatchObject({
      amount: 4.75,
      type: "debit",
      date: "2026-11-15",
      datetime: "2026-11-15T08:30:00.000Z",
      description: "Starbucks",
    });
    expect(coffee?.enrichment?.merchant?.name).toBe("Starbucks");
    expect(coffee?.enrichment?.category.value).toBe("food_and_drink");
    const hardware = byOriginal.get("Corner Hardware");
    expect(hardware).toMatchObject({ type: "debit", original_id: null });
    expect(hardware?.enrichment?.category.value).toBe("home");
    expect(page.accounts.map((account) => [account.original_id, account.account_type, account.account_mask])).toEqual([
      ["chk-1", "depository.checking", "0042"],
      ["cc-1", "liability.credit_card", null],
    ]);
    expect(page.accounts.every((account) => /^acc_\w{22}$/.test(account.account_id))).toBe(true);
  });

  it("with provider credentials creates a connected link", async () => {
    const link = linkShape.parse(
      (await t.api("POST", "/links/import", { body: importBody({ provider_data: { user_id: "u-123" } }) })).json,
    );
    expect(link).toMatchObject({ state: "connected", error_code: null, auth_expired_at: null });
    const empty = linkShape.parse(
      (await t.api("POST", "/links/import", { body: importBody({ provider_data: { user_id: "" } }) })).json,
    );
    expect(empty.state).toBe("error");
  });

  it("refuses a body over 1 MB with 413 while reading it, and the connection keeps working", async () => {
    const padding = "x".repeat(IMPORT_MAX_BYTES);
    const response = await t.api("POST", "/links/import", { body: importBody({ customer_user: { id: padding } }) });
    const body = expectError(response, 413, "api_error.request.too_large");
    expect(body.error_message).toContain(String(IMPORT_MAX_BYTES));
    expect((await t.api("GET", "/links?limit=500")).status).toBe(200);
  });

  it("refuses more than 4000 transactions with 422 naming transactions", async () => {
    const many = Array.from({ length: IMPORT_MAX_TRANSACTIONS + 1 }, () => ({
      account_id: "chk-1",
      amount: "-1",
      date: "2026-01-01",
    }));
    const response = await t.api("POST", "/links/import", { body: importBody({ transactions: many }) });
    expectError(response, 422, "api_error.request.validation_failed");
    expect(validationLocations(response)).toEqual(["body.transactions"]);
  });

  it("refuses transactions of an account that is not imported, and invalid bodies, with 422 naming the field", async () => {
    const stray = await t.api("POST", "/links/import", {
      body: importBody({ transactions: [{ account_id: "nope", amount: "-1", date: "2026-01-01" }] }),
    });
    expectError(stray, 422, "api_error.request.validation_failed");
    expect(validationLocations(stray)).toEqual(["body.transactions.0.account_id"]);
    const badAmount = await t.api("POST", "/links/import", {
      body: importBody({ transactions: [{ account_id: "chk-1", amount: "ten", date: "2026-01-01" }] }),
    });
    expect(validationLocations(badAmount)).toContain("body.transactions.0.amount");
    const noUser = await t.api("POST", "/links/import", { body: { institution_id: "chase" } });
    expect(validationLocations(noUser)).toEqual(["body.customer_user"]);
  });

  it("takes amounts only as decimal strings, as the SDKs type them, and refuses a JSON number saying so", async () => {
    const asNumber = await t.api("POST", "/links/import", {
      body: importBody({
        transactions: [
          { account_id: "chk-1", amount: "-1.00", date: "2026-01-01" },
          { account_id: "chk-1", amount: -12.5, date: "2026-01-02" },
        ],
      }),
    });
    const body = expectError(asNumber, 422, "api_error.request.validation_failed");
    expect(validationLocations(asNumber)).toEqual(["body.transactions.1.amount"]);
    expect(body.validation_errors).toEqual([
      {
        location: ["body", "transactions", 1, "amount"],
        message: expect.stringMatching(/not a number/),
        type: expect.any(String),
      },
    ]);
    // Nothing was made: the refused import left no link behind.
    const before = (await t.raw("GET", "/_sandbox/back-end/link-ids")).json as { link_ids: string[] };
    expect(
      (
        await t.api("POST", "/links/import", {
          body: importBody({ transactions: [{ account_id: "chk-1", amount: 3, date: "2026-01-01" }] }),
        })
      ).status,
    ).toBe(422);
    expect((await t.raw("GET", "/_sandbox/back-end/link-ids")).json).toEqual(before);
    for (const amount of ["12", "-12.5", "+0.10", "0.00"]) {
      const response = await t.api("POST", "/links/import", {
        body: importBody({ transactions: [{ account_id: "chk-1", amount, date: "2026-01-01" }] }),
      });
      expect(response.status, amount).toBe(200);
    }
  });
});

describe("POST /links/{id}/import/transactions", () => {
  it("adds transactions to an imported link and returns the link", async () => {
    const link = linkShape.parse(
      (await t.api("POST", "/links/import", { body: importBody({ transactions: [] }) })).json,
    );
    const added = await t.api("POST", `/links/${link.link_id}/import/transactions`, {
      body: {
        transactions: [
          {
            account_id: "cc-1",
            transaction_id: "batch-2",
            amount: "-18.00",
            date: "2026-11-17",
            description: "NETFLIX.COM",
          },
        ],
      },
    });
    expect(added.status).toBe(200);
    expect(linkShape.parse(added.json).link_id).toBe(link.link_id);
    const page = transactionsPageShape.parse(
      (await t.api("GET", `/links/${link.link_id}/transactions?start_date=1900-01-01`)).json,
    );
    expect(
      page.transactions.map((row) => [
        row.original_id,
        row.enrichment?.subcategory?.value,
        row.enrichment?.recurrence?.frequency,
      ]),
    ).toEqual([["batch-2", "tv_streaming_services", "monthly"]]);
  });

  it("refuses a JSON number as an amount, as the import does", async () => {
    const link = linkShape.parse(
      (await t.api("POST", "/links/import", { body: importBody({ transactions: [] }) })).json,
    );
    const response = await t.api("POST", `/links/${link.link_id}/import/transactions`, {
      body: { transactions: [{ account_id: "chk-1", amount: 18, date: "2026-11-17" }] },
    });
    expectError(response, 422, "api_error.request.validation_failed");
    expect(validationLocations(response)).toEqual(["body.transactions.0.amount"]);
    const page = transactionsPageShape.parse(
      (await t.api("GET", `/links/${link.link_id}/transactions?start_date=1900-01-01`)).json,
    );
    expect(page.total).toBe(0);
  });

  it("has the same limits as the import", async () => {
    const link = linkShape.parse(
      (await t.api("POST", "/links/import", { body: importBody({ transactions: [] }) })).json,
    );
    const many = Array.from({ length: IMPORT_MAX_TRANSACTIONS + 1 }, () => ({
      account_id: "chk-1",
      amount: "-1",
      date: "2026-01-01",
    }));
    const response = await t.api("POST", `/links/${link.link_id}/import/transactions`, {
      body: { transactions: many },
    });
    expect(validationLocations(response)).toEqual(["body.transactions"]);
    const stray = await t.api("POST", `/links/${link.link_id}/import/transactions`, {
      body: { transactions: [{ account_id: "other", amount: "-1", date: "2026-01-01" }] },
    });
    expect(validationLocations(stray)).toEqual(["body.transactions.0.account_id"]);
  });

  it("answers 422 bad_state not_imported for links not created by import, 404 and 410 as usual", async () => {
    const body = { transactions: [] };
    const refused = expectError(
      await t.api("POST", `/links/${first(seeded, "plain")}/import/transactions`, { body }),
      422,
      "link_error.bad_state",
    );
    expect(refused.link_error_code).toBe("not_imported");
    expectError(
      await t.api("POST", "/links/mk_doesNotExist/import/transactions", { body }),
      404,
      "link_error.not_found",
    );
    expectError(
      await t.api("POST", `/links/${first(seeded, "deleted")}/import/transactions`, { body }),
      410,
      "link_error.deleted",
    );
  });
});

describe("imported values keyed by original id", () => {
  it("a batch sent twice does not double its transactions: the second replaces the first, keeping the upstream's ids", async () => {
    const link = linkShape.parse((await t.api("POST", "/links/import", { body: importBody() })).json);
    const batch = {
      transactions: [
        {
          account_id: "chk-1",
          transaction_id: "retry-1",
          amount: "-10.00",
          date: "2026-11-18",
          description: "Corner Hardware",
        },
        {
          account_id: "chk-1",
          transaction_id: "retry-2",
          amount: "-20.00",
          date: "2026-11-18",
          description: "Corner Hardware",
        },
      ],
    };
    const read = async () =>
      transactionsPageShape.parse(
        (await t.api("GET", `/links/${link.link_id}/transactions?start_date=1900-01-01`)).json,
      );
    expect((await t.api("POST", `/links/${link.link_id}/import/transactions`, { body: batch })).status).toBe(200);
    const once = await read();
    expect((await t.api("POST", `/links/${link.link_id}/import/transactions`, { body: batch })).status).toBe(200);
    const twice = await read();
    expect(twice.total).toBe(once.total);
    expect(once.total).toBe(5);
    const ids = (page: typeof once) => page.transactions.map((row) => [row.original_id, row.transaction_id]).sort();
    expect(ids(twice)).toEqual(ids(once));
    // The import's own first batch, sent again as a batch, is not doubled either.
    await t.api("POST", `/links/${link.link_id}/import/transactions`, {
      body: { transactions: transactions.slice(0, 2) },
    });
    expect((await read()).total).toBe(5);
  });

  it("refuses a provider outside the known set and an institution id that is neither an id nor <provider>.<id>", async () => {
    const provider = await t.api("POST", "/links/import", { body: importBody({ provider: "acme" }) });
    expect(validationLocations(provider)).toEqual(["body.provider"]);
    for (const institution_id of ["not an id", "acme.chase", "mx.", "chase/1", "sophtron.123"]) {
      const response = await t.api("POST", "/links/import", { body: importBody({ institution_id }) });
      expect(validationLocations(response), institution_id).toEqual(["body.institution_id"]);
    }
    for (const institution_id of ["ins_3", "mx.chase", "yodlee.30188", "akoya.fidelity"]) {
      expect(
        (await t.api("POST", "/links/import", { body: importBody({ institution_id }) })).status,
        institution_id,
      ).toBe(200);
    }
  });
});

describe("providers as the facts list them today", () => {
  it("accepts each of the six, and refuses sophtron, dropped from the provider list in 2024-08, saying so", async () => {
    for (const provider of PROVIDERS) {
      const link = linkShape.parse((await t.api("POST", "/links/import", { body: importBody({ provider }) })).json);
      expect(link.provider).toBe(provider);
    }
    const dropped = await t.api("POST", "/links/import", { body: importBody({ provider: "sophtron" }) });
    const body = expectError(dropped, 422, "api_error.request.validation_failed");
    expect(validationLocations(dropped)).toEqual(["body.provider"]);
    expect(JSON.stringify(body.validation_errors)).toMatch(/sophtron is no longer a provider.*2024-08/);
  });
});
