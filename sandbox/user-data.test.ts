import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRIFT_KINDS } from "./drift";
import {
  expectError,
  first,
  fixtures,
  startSandbox,
  validationLocations,
  type Fixtures,
  type TestSandbox,
} from "./test-support";
import {
  accountsShape,
  linkShape,
  transactionsPageShape,
  userAccountsShape,
  userLinksShape,
  userTransactionsPageShape,
  type WireLink,
  type WireTransaction,
} from "./wire-shapes";

// GET /users/{id}/accounts (upstream-facts §9) and GET /users/{id}/transactions (§4.3): a customer user's data across
// their links, held against what the link-scoped reads serve of each link.

const LINKS = 300;

let t: TestSandbox;
let seeded: Fixtures;
/** Each seeded user's links, as GET /users/{id}/links serves them. */
const linksByUser = new Map<string, Record<string, WireLink>>();

beforeAll(async () => {
  t = await startSandbox({ links: LINKS, clock: true });
  seeded = await fixtures(t);
  for (let n = 1; n <= LINKS / 3; n++) linksByUser.set(`user_${n}`, await userLinks(`user_${n}`));
});
afterAll(() => t.close());

async function userLinks(userId: string) {
  const response = await t.api("GET", `/users/${encodeURIComponent(userId)}/links`);
  expect(response.status).toBe(200);
  return userLinksShape.parse(response.json).links;
}

async function userAccounts(userId: string, query = "") {
  const response = await t.api("GET", `/users/${encodeURIComponent(userId)}/accounts${query}`);
  expect(response.status).toBe(200);
  return userAccountsShape.parse(response.json).links;
}

async function userTransactions(userId: string, query = "start_date=1900-01-01&size=1000") {
  const response = await t.api("GET", `/users/${encodeURIComponent(userId)}/transactions?${query}`);
  expect(response.status).toBe(200);
  return userTransactionsPageShape.parse(response.json);
}

async function linkTransactions(linkId: string): Promise<WireTransaction[]> {
  const response = await t.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=1000`);
  expect(response.status).toBe(200);
  return transactionsPageShape.parse(response.json).transactions;
}

/** The link-scoped reads serve a link's data when it is not deleted, has data and has the product. */
const servesData = (link: WireLink, product: "accounts" | "transactions") =>
  !["deleted", "connecting", "awaiting_token_exchange"].includes(link.state) && Boolean(link.products[product]);

function ownerOf(linkId: string): string {
  const owner = [...linksByUser].find(([, links]) => linkId in links)?.[0];
  if (!owner) throw new Error(`no seeded user owns ${linkId}`);
  return owner;
}

/** A seeded user with at least two links whose transactions are served and one link that is left out. */
function mixedUser(): string {
  const found = [...linksByUser].find(([, links]) => {
    const all = Object.values(links);
    return (
      all.filter((link) => servesData(link, "transactions")).length >= 2 &&
      all.some((link) => !servesData(link, "transactions"))
    );
  });
  if (!found) throw new Error("no seeded user with two links of transactions and one without");
  return found[0];
}

const importFor = async (userId: string, extra: Record<string, unknown> = {}) =>
  linkShape.parse(
    (
      await t.api("POST", "/links/import", {
        body: {
          customer_user: { id: userId },
          institution_id: "chase",
          accounts: [
            { account_id: "chk-1", name: "Checking", type: "checking", mask: "0042", balances: { current: 120.5 } },
            { account_id: "cc-1", name: "Card", type: "credit_card", balances: { current: 30 } },
          ],
          transactions: [
            { transaction_id: "orig-1", account_id: "chk-1", amount: "-4.75", date: "2026-11-15" },
            { transaction_id: "orig-2", account_id: "cc-1", amount: "-19.99", date: "2026-11-10" },
            { transaction_id: "orig-3", account_id: "chk-1", amount: "2500.00", date: "2026-11-01" },
          ],
          ...extra,
        },
      })
    ).json,
  );

describe("GET /users/{id}/accounts", () => {
  it("maps each of a user's links with data to its accounts as GET /links/{id}/accounts serves them, leaving the rest out", async () => {
    for (const role of ["plain", "error:auth_expired", "connecting", "awaiting_token_exchange", "deleted"]) {
      const user = ownerOf(first(seeded, role));
      const links = linksByUser.get(user) ?? {};
      const answer = await userAccounts(user);
      const served = Object.values(links).filter((link) => servesData(link, "accounts"));
      expect(Object.keys(answer).sort(), role).toEqual(served.map((link) => link.link_id).sort());
      for (const link of served) {
        const own = accountsShape.parse((await t.api("GET", `/links/${link.link_id}/accounts`)).json);
        expect(answer[link.link_id]).toEqual({ accounts: own.accounts, last_synced_at: link.last_synced_at });
      }
    }
    expect(await userAccounts(ownerOf(first(seeded, "plain")))).toHaveProperty(first(seeded, "plain"));
    expect(await userAccounts(ownerOf(first(seeded, "connecting")))).not.toHaveProperty(first(seeded, "connecting"));
    expect(await userAccounts(ownerOf(first(seeded, "deleted")))).not.toHaveProperty(first(seeded, "deleted"));
  });

  it("shows an imported link's accounts under its id, with the imported account ids as original_id and their masks", async () => {
    const link = await importFor("user_data_import");
    const answer = await userAccounts("user_data_import");
    expect(Object.keys(answer)).toEqual([link.link_id]);
    expect(answer[link.link_id]?.last_synced_at).toBe(link.last_synced_at);
    expect(
      answer[link.link_id]?.accounts.map((account) => [account.original_id, account.account_mask, account.name]),
    ).toEqual([
      ["chk-1", "0042", "Checking"],
      ["cc-1", null, "Card"],
    ]);
  });

  it("no longer serves a link once it is deleted", async () => {
    const kept = await importFor("user_data_delete");
    const deleted = await importFor("user_data_delete");
    expect(Object.keys(await userAccounts("user_data_delete")).sort()).toEqual([kept.link_id, deleted.link_id].sort());
    expect((await t.api("DELETE", `/links/${deleted.link_id}`)).status).toBe(204);
    expect(Object.keys(await userAccounts("user_data_delete"))).toEqual([kept.link_id]);
  });

  it("narrows to the accounts account_ids names, repeated or comma-joined, leaving out links with none of them", async () => {
    const one = await importFor("user_data_filter");
    const other = await importFor("user_data_filter");
    const all = await userAccounts("user_data_filter");
    const [checking, card] = all[one.link_id]?.accounts ?? [];
    const otherCard = all[other.link_id]?.accounts[1];
    const narrowed = await userAccounts("user_data_filter", `?account_ids=${checking?.account_id}`);
    expect(Object.keys(narrowed)).toEqual([one.link_id]);
    expect(narrowed[one.link_id]?.accounts).toEqual([checking]);
    for (const query of [
      `?account_ids=${card?.account_id}&account_ids=${otherCard?.account_id}`,
      `?account_ids=${card?.account_id},${otherCard?.account_id}`,
    ]) {
      const both = await userAccounts("user_data_filter", `${query}&institution_ids=ignored`);
      expect(both[one.link_id]?.accounts).toEqual([card]);
      expect(both[other.link_id]?.accounts).toEqual([otherCard]);
    }
  });

  it("answers an unknown user with an empty map, not 404, and 401 without credentials", async () => {
    expect(await userAccounts("user_nobody")).toEqual({});
    expect(await userAccounts("a user/with odd characters")).toEqual({});
    expectError(await t.raw("GET", "/users/user_1/accounts"), 401, "api_error.auth.unauthorized");
  });
});

describe("GET /users/{id}/transactions", () => {
  it("serves every transaction of the user's links with data, newest first across links, each as its link serves it", async () => {
    const user = mixedUser();
    const links = Object.values(linksByUser.get(user) ?? {});
    const expected: WireTransaction[] = [];
    for (const link of links.filter((candidate) => servesData(candidate, "transactions")))
      expected.push(...(await linkTransactions(link.link_id)));
    const page = await userTransactions(user);
    expect(page).toMatchObject({ total: expected.length, page: 1, size: expected.length });
    expect(page.transactions.map((row) => row.transaction_id).sort()).toEqual(
      expected.map((row) => row.transaction_id).sort(),
    );
    const byId = new Map(expected.map((row) => [row.transaction_id, row]));
    for (const row of page.transactions) expect(row).toEqual(byId.get(row.transaction_id));
    const order = page.transactions.map((row) => `${row.date} ${row.datetime ?? ""} ${row.transaction_id}`);
    expect([...order].sort().reverse()).toEqual(order);
    // Transactions of several links are interleaved by date, not served link after link.
    const linkOf = new Map<string, string>();
    for (const link of links.filter((candidate) => servesData(candidate, "transactions")))
      for (const row of await linkTransactions(link.link_id)) linkOf.set(row.transaction_id, link.link_id);
    const switches = page.transactions.filter(
      (row, i) => i > 0 && linkOf.get(row.transaction_id) !== linkOf.get(page.transactions[i - 1]!.transaction_id),
    );
    expect(switches.length).toBeGreaterThan(links.length);
  });

  it("pages through every transaction exactly once, with size the count of the batch", async () => {
    const user = mixedUser();
    const all = await userTransactions(user);
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const batch = await userTransactions(user, `start_date=1900-01-01&size=7&page=${page}`);
      expect(batch).toMatchObject({ total: all.total, page, size: batch.transactions.length });
      if (batch.transactions.length === 0) break;
      expect(batch.transactions).toEqual(all.transactions.slice((page - 1) * 7, page * 7));
      seen.push(...batch.transactions.map((row) => row.transaction_id));
    }
    expect(seen).toEqual(all.transactions.map((row) => row.transaction_id));
    expect(new Set(seen).size).toBe(all.total);
  });

  it("names the account of each transaction on the page: its name, its link and the link's last sync", async () => {
    const user = mixedUser();
    const links = linksByUser.get(user) ?? {};
    const page = await userTransactions(user, "start_date=1900-01-01&size=5&page=2");
    expect(Object.keys(page.accounts).sort()).toEqual(
      [...new Set(page.transactions.map((row) => row.account_id))].sort(),
    );
    for (const [accountId, details] of Object.entries(page.accounts)) {
      const own = accountsShape.parse((await t.api("GET", `/links/${details.link_id}/accounts`)).json);
      expect(own.accounts.find((account) => account.account_id === accountId)?.name).toBe(details.name);
      expect(details.last_synced_at).toBe(links[details.link_id]?.last_synced_at);
    }
  });

  it("lists the last 90 days by default, and filters by dates and by account_id", async () => {
    const user = mixedUser();
    const all = (await userTransactions(user)).transactions;
    const today = new Date(t.clock.now).toISOString().slice(0, 10);
    const start = new Date(t.clock.now - 90 * 86_400_000).toISOString().slice(0, 10);
    const byDefault = await userTransactions(user, "size=1000");
    expect(byDefault.transactions).toEqual(all.filter((row) => row.date >= start && row.date <= today));
    expect(byDefault.total).toBeLessThan(all.length);

    const day = all[10]?.date ?? "";
    const oneDay = await userTransactions(user, `start_date=${day}&end_date=${day}`);
    expect(oneDay.transactions).toEqual(all.filter((row) => row.date === day));

    const [a, b] = [...new Set(all.map((row) => row.account_id))];
    const two = await userTransactions(user, `start_date=1900-01-01&size=1000&account_id=${a}&account_id=${b}`);
    expect(two.transactions).toEqual(all.filter((row) => row.account_id === a || row.account_id === b));
    expect(Object.keys(two.accounts).sort()).toEqual([a, b].sort());
  });

  it("refuses bad paging and dates with 422 naming the parameter, as GET /links/{id}/transactions does", async () => {
    for (const [query, fields] of [
      ["size=0", ["query.size"]],
      ["size=1001", ["query.size"]],
      ["page=0", ["query.page"]],
      ["page=x", ["query.page"]],
      ["start_date=2026-13-01", ["query.start_date"]],
      ["end_date=2026-02-30", ["query.end_date"]],
      ["start_date=2026-11-02&end_date=2026-11-01", ["query.start_date"]],
      ["size=0&page=0&start_date=yesterday", ["query.page", "query.size", "query.start_date"]],
    ] as const) {
      const response = await t.api("GET", `/users/user_1/transactions?${query}`);
      expectError(response, 422, "api_error.request.validation_failed");
      expect(validationLocations(response), query).toEqual(fields);
      const perLink = await t.api("GET", `/links/${first(seeded, "plain")}/transactions?${query}`);
      expect(perLink.json, query).toEqual(response.json);
    }
  });

  it("keeps the original_id of imported transactions, and no longer serves a link once it is deleted", async () => {
    const kept = await importFor("user_data_transactions");
    const deleted = await importFor("user_data_transactions");
    const before = await userTransactions("user_data_transactions");
    expect(before.total).toBe(6);
    expect(before.transactions.map((row) => row.original_id)).toEqual([
      "orig-1",
      "orig-1",
      "orig-2",
      "orig-2",
      "orig-3",
      "orig-3",
    ]);
    expect(new Set(Object.values(before.accounts).map((details) => details.link_id))).toEqual(
      new Set([kept.link_id, deleted.link_id]),
    );
    expect((await t.api("DELETE", `/links/${deleted.link_id}`)).status).toBe(204);
    const after = await userTransactions("user_data_transactions");
    expect(after.transactions).toEqual(await linkTransactions(kept.link_id));
    expect(after.transactions.map((row) => row.original_id)).toEqual(["orig-1", "orig-2", "orig-3"]);
    expect(Object.values(after.accounts).every((details) => details.link_id === kept.link_id)).toBe(true);
  });

  it("answers an unknown user with an empty page, not 404, and 401 without credentials", async () => {
    expect(await userTransactions("user_nobody")).toEqual({
      total: 0,
      page: 1,
      size: 0,
      transactions: [],
      accounts: {},
    });
    expectError(await t.raw("GET", "/users/user_1/transactions"), 401, "api_error.auth.unauthorized");
  });
});

describe.each([
  {
    serving: "every drift kind on every object",
    options: { drift: { enabled: true, share: 1, kinds: [...DRIFT_KINDS] } },
  },
  { serving: "amounts as decimal strings", options: { amountsAsStrings: true } },
])("the users' data routes with $serving", ({ options }) => {
  let other: TestSandbox;
  beforeAll(async () => {
    other = await startSandbox({ links: 64, ...options });
  });
  afterAll(() => other.close());

  const read = async (path: string) => {
    const response = await other.api("GET", path);
    expect(response.status, path).toBe(200);
    return response.json as Record<string, unknown>;
  };

  it("write each transaction and account as the link's own listing does", async () => {
    const rows: Record<string, unknown>[] = [];
    for (let n = 1; n <= 21; n++) {
      const links = (await read(`/users/user_${n}/links`)).links as Record<string, unknown>;
      const accounts = (await read(`/users/user_${n}/accounts`)).links as Record<string, { accounts: unknown[] }>;
      const page = (await read(`/users/user_${n}/transactions?start_date=1900-01-01&size=1000`)) as {
        transactions: Record<string, unknown>[];
      };
      const own = new Map<unknown, unknown>();
      for (const linkId of Object.keys(links)) {
        if (accounts[linkId])
          expect(accounts[linkId]?.accounts).toEqual((await read(`/links/${linkId}/accounts`)).accounts);
        const listing = await other.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=1000`);
        if (listing.status !== 200) continue;
        for (const row of (listing.json as typeof page).transactions) own.set(row.transaction_id, row);
      }
      expect(page.transactions.length).toBe(own.size);
      for (const row of page.transactions) expect(row).toEqual(own.get(row.transaction_id));
      rows.push(...page.transactions);
    }
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.some((row) => typeof row.amount === "string")).toBe(true);
    // With malformed_item on, the unreadable transaction of a drifted link is served here too.
    if (options.drift) expect(rows.some((row) => !("amount" in row))).toBe(true);
  });

  // Only where drift is on: declared there alone, not skipped elsewhere.
  if (options.drift)
    it("drift the envelope by user, as GET /users/{id}/links does", async () => {
      const only = await other.raw("POST", "/_sandbox/drift", { body: JSON.stringify({ kinds: ["extra_fields"] }) });
      expect(only.status).toBe(200);
      for (const path of ["/users/user_1/accounts", "/users/user_1/transactions", "/users/user_nobody/transactions"])
        expect(Object.keys(await read(path)), path).toEqual(expect.arrayContaining(["request_id", "warnings"]));
    });
});

describe("GET /users/{id}/accounts and /transactions and rate limits", () => {
  it("are not rate limited: the spec's Limits table has no row for them", async () => {
    const limited = await startSandbox({ links: 64, rateLimits: true });
    try {
      for (let i = 0; i < 40; i++) {
        expect((await limited.api("GET", "/users/user_1/accounts")).status).toBe(200);
        expect((await limited.api("GET", "/users/user_1/transactions")).status).toBe(200);
      }
      const endpoints = ["GET /users/{id}/accounts", "GET /users/{id}/transactions"];
      expect(
        limited.sandbox.state.limiter.counters().filter((counter) => endpoints.includes(counter.endpoint)),
      ).toEqual([]);
      for (const endpoint of endpoints)
        expect(limited.sandbox.state.stats.snapshot().byEndpoint[endpoint]?.requests).toBe(40);
    } finally {
      await limited.close();
    }
  });
});
