import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { type Sandbox, createSandbox } from "../../sandbox/server";
import { UpstreamClient } from "../upstream/client";
import { UpstreamApi } from "../upstream/index";
import { readAllUserTransactions } from "./read";

// A customer user's transactions across their links (GET /users/{id}/transactions), read in pages of 1000 until the
// total, against the sandbox.

let sandbox: Sandbox;
let api: UpstreamApi;

beforeAll(async () => {
  sandbox = createSandbox({ links: 8, rateLimits: false, importDelayMs: 0 });
  const baseUrl = await sandbox.listen(0);
  api = new UpstreamApi(
    new UpstreamClient({ baseUrl, clientId: SANDBOX_DEFAULTS.clientId, clientSecret: SANDBOX_DEFAULTS.clientSecret }),
  );
});
afterAll(() => sandbox.close());

const calls = () => sandbox.state.stats.snapshot().byEndpoint["GET /users/{id}/transactions"]?.requests ?? 0;

/** An import of `count` transactions of one account, a day apart counting back from 2026-11-01. */
function importOf(user: string, account: { account_id: string; name: string; type: string }, count: number) {
  return api.importLink({
    customer_user: { id: user },
    institution_id: "chase",
    accounts: [{ ...account, balances: {} }],
    transactions: Array.from({ length: count }, (_, i) => ({
      transaction_id: `${account.account_id}-${i}`,
      account_id: account.account_id,
      amount: "-1.00",
      date: new Date(Date.UTC(2026, 10, 1) - i * 86_400_000).toISOString().slice(0, 10),
    })),
  });
}

describe("readAllUserTransactions", () => {
  it("reads every page of 1000 until the total, newest first across links, with the accounts the pages name", async () => {
    const one = await importOf("user_read_all", { account_id: "chk", name: "Checking", type: "checking" }, 1200);
    const two = await importOf("user_read_all", { account_id: "card", name: "Card", type: "credit_card" }, 300);
    const before = calls();
    const history = await readAllUserTransactions(api, "user_read_all");
    expect(calls() - before).toBe(2);
    expect(history.transactions).toHaveLength(1500);
    expect(new Set(history.transactions.map((t) => t.transaction_id)).size).toBe(1500);
    expect(history.unreadable).toEqual([]);
    const dates = history.transactions.map((t) => t.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(Object.values(history.accounts).sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual([
      { name: "Card", linkId: two.link_id, lastSyncedAt: expect.any(String) },
      { name: "Checking", linkId: one.link_id, lastSyncedAt: expect.any(String) },
    ]);

    const narrowed = await readAllUserTransactions(api, "user_read_all", {
      startDate: "2026-01-01",
      endDate: "2026-01-31",
    });
    expect(narrowed.transactions).toEqual(
      history.transactions.filter((t) => t.date >= "2026-01-01" && t.date <= "2026-01-31"),
    );
    // January's 31 days of the checking account, and the card's from 6 January (300 days before 1 November).
    expect(narrowed.transactions).toHaveLength(31 + 26);
  });

  it("stops after one call when the first page holds the whole total, even a full one", async () => {
    await importOf("user_read_exactly", { account_id: "chk", name: "Checking", type: "checking" }, 1000);
    const before = calls();
    expect((await readAllUserTransactions(api, "user_read_exactly")).transactions).toHaveLength(1000);
    expect(calls() - before).toBe(1);
    expect(await readAllUserTransactions(api, "user_nobody")).toEqual({
      transactions: [],
      unreadable: [],
      accounts: {},
    });
  });
});
