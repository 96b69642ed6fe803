import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isValidAbaRoutingNumber, isValidIban } from "./account-details";
import {
  expectError,
  first,
  fixtures,
  startSandbox,
  validationLocations,
  type Fixtures,
  type TestSandbox,
} from "./test-support";
import { type WireLink, linkShape, transactionShape } from "./wire-shapes";
import { type Product } from "./wire-vocabulary";

let t: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  t = await startSandbox({ links: 256 });
  seeded = await fixtures(t);
});
afterAll(() => t.close());

async function linkWith(products: Product[], without: Product[] = []): Promise<WireLink> {
  for (const id of seeded.plain ?? []) {
    const link = linkShape.parse((await t.api("GET", `/links/${id}`)).json);
    if (
      products.every((p) => link.products[p] && !link.products[p]?.unavailable) &&
      without.every((p) => !link.products[p])
    )
      return link;
  }
  throw new Error(`no plain seeded link with ${products.join(", ")} and without ${without.join(", ")}`);
}

interface NumbersAccount {
  account_id: string;
  account_type: string;
  account_mask: string | null;
  numbers: {
    ach: { account_number: string; routing_number: string }[];
    eft: unknown[];
    bacs: unknown[];
    international: unknown[];
  };
}

describe("GET /links/{id}/accounts/numbers", () => {
  it("is its own route, not an account named numbers: ACH numbers that end in the mask and pass the routing check digit", async () => {
    const link = await linkWith(["account_numbers"]);
    const response = await t.api("GET", `/links/${link.link_id}/accounts/numbers`);
    expect(response.status).toBe(200);
    const body = response.json as { accounts: NumbersAccount[]; link: WireLink };
    expect(body.link.link_id).toBe(link.link_id);
    const accounts = (await t.api("GET", `/links/${link.link_id}/accounts`)).json as {
      accounts: { account_id: string }[];
    };
    expect(body.accounts.map((account) => account.account_id)).toEqual(
      accounts.accounts.map((account) => account.account_id),
    );
    const depository = body.accounts.filter((account) => account.account_type.startsWith("depository"));
    expect(depository.length).toBeGreaterThan(0);
    for (const account of body.accounts) {
      expect(Object.keys(account.numbers).sort()).toEqual(["ach", "bacs", "eft", "international"]);
      if (!account.account_type.startsWith("depository")) expect(account.numbers.ach).toEqual([]);
    }
    for (const account of depository.filter((a) => a.numbers.ach.length > 0)) {
      const [ach] = account.numbers.ach;
      expect(ach!.account_number.endsWith(account.account_mask ?? "")).toBe(true);
      expect(isValidAbaRoutingNumber(ach!.routing_number)).toBe(true);
    }
    // The same on every read.
    expect((await t.api("GET", `/links/${link.link_id}/accounts/numbers`)).json).toEqual(body);
    const stats = (await t.raw("GET", "/_sandbox/stats")).json as { byEndpoint: Record<string, unknown> };
    expect(Object.keys(stats.byEndpoint)).toContain("GET /links/{id}/accounts/numbers");
  });

  it("is 403 without the account_numbers product (not 404 account_error.not_found), 422 while connecting", async () => {
    const link = await linkWith([], ["account_numbers"]);
    expectError(await t.api("GET", `/links/${link.link_id}/accounts/numbers`), 403, "link_error.forbidden_action");
    expectError(
      await t.api("GET", `/links/${first(seeded, "connecting")}/accounts/numbers`),
      422,
      "link_error.bad_state",
    );
    expectError(await t.api("GET", `/links/${first(seeded, "deleted")}/accounts/numbers`), 410, "link_error.deleted");
    expectError(await t.api("GET", "/links/mk_nope/accounts/numbers"), 404, "link_error.not_found");
  });

  it("check digits: ABA routing numbers and IBANs", () => {
    expect(isValidAbaRoutingNumber("021000021")).toBe(true);
    expect(isValidAbaRoutingNumber("021000022")).toBe(false);
    expect(isValidIban("GB82WEST12345698765432")).toBe(true);
    expect(isValidIban("GB82WEST12345698765431")).toBe(false);
  });
});

describe("GET /links/{id}/identity", () => {
  it("gives every account its owners: names, addresses, phone numbers and emails", async () => {
    const link = await linkWith(["identity"]);
    const response = await t.api("GET", `/links/${link.link_id}/identity`);
    expect(response.status).toBe(200);
    const body = response.json as {
      accounts: { account_id: string; owners: Record<string, unknown>[] }[];
      link: WireLink;
    };
    expect(body.accounts.length).toBeGreaterThan(0);
    for (const account of body.accounts) {
      expect(account.owners).toHaveLength(1);
      expect(account.owners[0]).toEqual({
        names: [expect.stringMatching(/^\w+ \w+$/)],
        addresses: [expect.objectContaining({ city: expect.any(String), country: "US", primary: true })],
        phone_numbers: [expect.objectContaining({ type: "mobile", primary: true })],
        emails: [{ address: expect.stringMatching(/@mail\.example$/), primary: true }],
      });
    }
    const one = body.accounts[0]!.account_id;
    const filtered = (await t.api("GET", `/links/${link.link_id}/identity?account_ids=${one}`)).json as {
      accounts: unknown[];
    };
    expect(filtered.accounts).toHaveLength(1);
  });

  it("is 403 without the identity product", async () => {
    const link = await linkWith([], ["identity"]);
    expectError(await t.api("GET", `/links/${link.link_id}/identity`), 403, "link_error.forbidden_action");
  });
});

interface SyncBody {
  transactions: { created: unknown[]; updated: unknown[]; removed: string[] };
  accounts: unknown[];
  cursor: { next: string };
  has_more: boolean;
  link: WireLink;
}

async function sync(linkId: string, cursor: string | null, size: number): Promise<SyncBody> {
  const response = await t.api(
    "GET",
    `/links/${linkId}/transactions/sync?size=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
  );
  expect(response.status).toBe(200);
  return response.json as SyncBody;
}

/** Pages until has_more is false; returns every transaction id seen (created and updated) and the last cursor. */
async function syncAll(linkId: string, cursor: string | null, size: number) {
  const created: string[] = [];
  const updated: string[] = [];
  let pages = 0;
  for (;;) {
    const body = await sync(linkId, cursor, size);
    pages++;
    created.push(...body.transactions.created.map((transaction) => transactionShape.parse(transaction).transaction_id));
    updated.push(...body.transactions.updated.map((transaction) => transactionShape.parse(transaction).transaction_id));
    expect(body.transactions.removed).toEqual([]);
    cursor = body.cursor.next;
    if (!body.has_more) return { created, updated, cursor, pages };
    if (pages > 100) throw new Error("sync did not end");
  }
}

describe("GET /links/{id}/transactions/sync", () => {
  it("pages the whole history as created, then from the stored cursor only what changed since", async () => {
    const linkId = seeded.plain![0]!;
    const all = (await t.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=1000`)).json as {
      transactions: { transaction_id: string }[];
    };
    const everything = await syncAll(linkId, null, 7);
    expect(everything.pages).toBe(Math.ceil(all.transactions.length / 7));
    expect([...everything.created].sort()).toEqual(
      all.transactions.map((transaction) => transaction.transaction_id).sort(),
    );
    expect(everything.updated).toEqual([]);

    const nothing = await sync(linkId, everything.cursor, 7);
    expect(nothing).toMatchObject({
      transactions: { created: [], updated: [], removed: [] },
      has_more: false,
      cursor: { next: everything.cursor },
    });

    const corrected = all.transactions[3]!.transaction_id;
    expect(
      (await t.api("POST", `/links/${linkId}/transactions/${corrected}/enrichment`, { body: { category: "charity" } }))
        .status,
    ).toBe(200);
    const since = await syncAll(linkId, everything.cursor, 7);
    expect(since).toMatchObject({ created: [], updated: [corrected], pages: 1 });
  });

  it("reports imported transactions as created and a transaction imported again as updated", async () => {
    const imported = await t.api("POST", "/links/import", {
      body: {
        customer_user: { id: "sync_user" },
        institution_id: "chase",
        accounts: [{ account_id: "a1", name: "Checking", type: "checking", balances: { current: 10 } }],
        transactions: [
          { account_id: "a1", transaction_id: "t1", amount: "-1.00", date: "2026-10-01", description: "One" },
          { account_id: "a1", transaction_id: "t2", amount: "-2.00", date: "2026-10-02", description: "Two" },
        ],
      },
    });
    const linkId = (imported.json as { link_id: string }).link_id;
    const start = await syncAll(linkId, null, 1);
    expect(start.created).toHaveLength(2);
    const listed = (await t.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01`)).json as {
      transactions: { transaction_id: string; description: string }[];
    };
    const two = listed.transactions.find((transaction) => transaction.description === "Two")!.transaction_id;
    await t.api("POST", `/links/${linkId}/import/transactions`, {
      body: {
        transactions: [
          { account_id: "a1", transaction_id: "t2", amount: "-2.50", date: "2026-10-02", description: "Again" },
          { account_id: "a1", transaction_id: "t3", amount: "-3.00", date: "2026-10-03", description: "Three" },
        ],
      },
    });
    const page = await sync(linkId, start.cursor, 50);
    expect(page.has_more).toBe(false);
    const byDescription = (list: unknown[]) =>
      list.map((transaction) => transactionShape.parse(transaction).description);
    expect(byDescription(page.transactions.created)).toEqual(["Three"]);
    expect(byDescription(page.transactions.updated)).toEqual(["Again"]);
    // Imported again under the same original id: the same transaction, keeping its id.
    expect(page.transactions.updated.map((transaction) => transactionShape.parse(transaction).transaction_id)).toEqual([
      two,
    ]);
  });

  it("refuses an unreadable cursor or a size outside 1–500 with 422, and checks the link as the listing does", async () => {
    const linkId = seeded.plain![0]!;
    const bad = await t.api("GET", `/links/${linkId}/transactions/sync?cursor=garbage&size=501`);
    expectError(bad, 422, "api_error.request.validation_failed");
    expect(validationLocations(bad).sort()).toEqual(["query.cursor", "query.size"]);
    expectError(
      await t.api("GET", `/links/${first(seeded, "no_transactions_product")}/transactions/sync`),
      403,
      "link_error.forbidden_action",
    );
    expectError(
      await t.api("GET", `/links/${first(seeded, "awaiting_token_exchange")}/transactions/sync`),
      422,
      "link_error.bad_state",
    );
  });
});

describe("GET /links/{id}/investments/holdings and /investments/transactions", () => {
  it("serve a small brokerage account, the same on every read, whose holdings and transactions name its securities", async () => {
    const link = await linkWith(["investments"]);
    const holdings = (await t.api("GET", `/links/${link.link_id}/investments/holdings`)).json as {
      holdings: { account_id: string; security_id: string; quantity: string; value: string }[];
      securities: Record<string, unknown>[];
      accounts: { account_id: string; account_type: string }[];
      link: WireLink;
    };
    expect(holdings.accounts).toHaveLength(1);
    expect(holdings.accounts[0]!.account_type).toBe("investment.brokerage");
    expect(holdings.holdings.length).toBeGreaterThanOrEqual(2);
    // Keyed as the SDKs key them (SecurityResponse.security_id), never by a bare `id`.
    for (const security of holdings.securities) {
      expect(security.security_id).toMatch(/^sec_/);
      expect(security).not.toHaveProperty("id");
    }
    const securityIds = new Set(holdings.securities.map((security) => security.security_id));
    for (const holding of holdings.holdings) {
      expect(holding.account_id).toBe(holdings.accounts[0]!.account_id);
      expect(securityIds.has(holding.security_id)).toBe(true);
      expect(holding.value).toMatch(/^\d+\.\d{2}$/);
    }
    expect((await t.api("GET", `/links/${link.link_id}/investments/holdings`)).json).toEqual(holdings);

    const page = (await t.api("GET", `/links/${link.link_id}/investments/transactions?size=2`)).json as {
      total: number;
      page: number;
      size: number;
      investment_transactions: Record<string, unknown>[];
      securities: Record<string, unknown>[];
    };
    expect(page.total).toBeGreaterThanOrEqual(holdings.holdings.length);
    expect(page).toMatchObject({ page: 1, size: 2 });
    const dates = page.investment_transactions.map((transaction) => String(transaction.date));
    expect([...dates].sort().reverse()).toEqual(dates);
    // InvestmentTransactionResponse.investment_transaction_id, unique; each names a security the answer carries.
    const ids = page.investment_transactions.map((transaction) => transaction.investment_transaction_id);
    expect(ids.every((id) => typeof id === "string" && id.startsWith("it_"))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(page.investment_transactions.every((transaction) => !("id" in transaction))).toBe(true);
    const named = new Set(page.securities.map((security) => security.security_id));
    for (const transaction of page.investment_transactions) expect(named.has(transaction.security_id)).toBe(true);
  });

  it("are empty for an unavailable product, 403 without it", async () => {
    const unavailable = first(seeded, "product_unavailable");
    expect((await t.api("GET", `/links/${unavailable}/investments/holdings`)).json).toMatchObject({
      holdings: [],
      securities: [],
      accounts: [],
    });
    expect((await t.api("GET", `/links/${unavailable}/investments/transactions`)).json).toMatchObject({
      total: 0,
      investment_transactions: [],
    });
    const without = await linkWith([], ["investments"]);
    expectError(
      await t.api("GET", `/links/${without.link_id}/investments/holdings`),
      403,
      "link_error.forbidden_action",
    );
    expectError(
      await t.api("GET", `/links/${without.link_id}/investments/transactions`),
      403,
      "link_error.forbidden_action",
    );
  });
});

describe("the spec's limits on the new reads", () => {
  it("count each route under its own row, per link", async () => {
    const limited = await startSandbox({ links: 256, rateLimits: true });
    try {
      const ids = await fixtures(limited);
      const linkId = ids.plain![0]!;
      for (let i = 0; i < 10; i++) await limited.api("GET", `/links/${linkId}/accounts/numbers`);
      expectError(await limited.api("GET", `/links/${linkId}/accounts/numbers`), 429, "api_error.rate_limit_exceeded");
      // A different row: the single-account route is not touched by calls to numbers.
      expect(
        limited.sandbox.state.limiter.counter("GET /links/{id}/accounts/{account_id}", "link", linkId),
      ).toBeUndefined();
      for (const [path, endpoint] of [
        ["identity", "GET /links/{id}/identity"],
        ["transactions/sync", "GET /links/{id}/transactions/sync"],
        ["investments/holdings", "GET /links/{id}/investments/holdings"],
        ["investments/transactions", "GET /links/{id}/investments/transactions"],
      ] as const) {
        await limited.api("GET", `/links/${linkId}/${path}`);
        expect(limited.sandbox.state.limiter.counter(endpoint, "link", linkId)?.inWindow).toBe(1);
        expect(limited.sandbox.state.limiter.counter(endpoint, "app", limited.sandbox.state.appId)?.inWindow).toBe(1);
      }
    } finally {
      await limited.close();
    }
  });
});
