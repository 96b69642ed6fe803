import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expectError, first, fixtures, startSandbox, type Fixtures, type TestSandbox } from "./test-support";
import { rulesFor } from "./limits";
import { accountAnswerShape, accountsShape, transactionsPageShape } from "./wire-shapes";

let t: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  t = await startSandbox({ links: 200 });
  seeded = await fixtures(t);
});
afterAll(() => t.close());

describe("GET /links/{id}/accounts", () => {
  it("lists the link's accounts with the link, the same accounts its transactions name", async () => {
    const id = first(seeded, "plain");
    const response = await t.api("GET", `/links/${id}/accounts`);
    expect(response.status).toBe(200);
    const body = accountsShape.parse(response.json);
    expect(body.link.link_id).toBe(id);
    expect(body.accounts.length).toBeGreaterThanOrEqual(1);
    for (const account of body.accounts) {
      expect(account.account_id).toMatch(/^acc_/);
      expect(account.account_type).toMatch(/^(depository|liability|investment|other)\.|^unknown$/);
      expect(account.name).toBeTruthy();
      expect(account.account_mask).toMatch(/^\d{4}$/);
      expect(typeof account.balances?.current).toBe("number");
    }
    const transactions = transactionsPageShape.parse(
      (await t.api("GET", `/links/${id}/transactions?start_date=1900-01-01&size=1000`)).json,
    );
    const named = new Set(transactions.transactions.map((transaction) => transaction.account_id));
    for (const accountId of named) expect(body.accounts.map((a) => a.account_id)).toContain(accountId);
  });

  it("filters by account_ids, repeated or comma-joined", async () => {
    const id = first(seeded, "plain");
    const all = accountsShape.parse((await t.api("GET", `/links/${id}/accounts`)).json).accounts;
    const [one] = all;
    const filtered = accountsShape.parse(
      (await t.api("GET", `/links/${id}/accounts?account_ids=${one!.account_id}`)).json,
    );
    expect(filtered.accounts.map((a) => a.account_id)).toEqual([one!.account_id]);
    const ids = all.map((a) => a.account_id);
    const joined = accountsShape.parse((await t.api("GET", `/links/${id}/accounts?account_ids=${ids.join(",")}`)).json);
    expect(joined.accounts).toHaveLength(all.length);
  });

  it("answers the link-scoped errors with the upstream's envelope", async () => {
    expectError(await t.api("GET", "/links/mk_doesNotExist0000000000/accounts"), 404, "link_error.not_found");
    expectError(await t.api("GET", `/links/${first(seeded, "deleted")}/accounts`), 410, "link_error.deleted");
    expectError(await t.api("GET", `/links/${first(seeded, "connecting")}/accounts`), 422, "link_error.bad_state");
    expectError(await t.raw("GET", `/links/${first(seeded, "plain")}/accounts`), 401, "api_error.auth.unauthorized");
  });

  it("serves the hostile links' markup as data, unchanged", async () => {
    const body = accountsShape.parse((await t.api("GET", `/links/${first(seeded, "hostile_name")}/accounts`)).json);
    expect(body.accounts[0]?.name).toBe(`<script>alert("account")</script> Checking`);
    const transactions = transactionsPageShape.parse(
      (await t.api("GET", `/links/${first(seeded, "hostile_avatar")}/transactions?start_date=1900-01-01&size=1`)).json,
    );
    expect(transactions.transactions[0]?.enrichment?.merchant?.logo).toBe("javascript:alert(document.cookie)");
  });
});

describe("GET /links/{id}/accounts/{account_id}", () => {
  it("returns one account with its link, and 404 in the envelope for an account the link does not have", async () => {
    const id = first(seeded, "plain");
    const [account] = accountsShape.parse((await t.api("GET", `/links/${id}/accounts`)).json).accounts;
    const response = await t.api("GET", `/links/${id}/accounts/${account!.account_id}`);
    expect(response.status).toBe(200);
    const body = accountAnswerShape.parse(response.json);
    expect(body.account).toEqual(account);
    expect(body.link.link_id).toBe(id);
    expectError(await t.api("GET", `/links/${id}/accounts/acc_nope`), 404, "account_error.not_found");
    expectError(
      await t.api("GET", `/links/${first(seeded, "deleted")}/accounts/${account!.account_id}`),
      410,
      "link_error.deleted",
    );
  });
});

describe("accounts rate limits", () => {
  let limited: TestSandbox;
  let ids: Fixtures;
  beforeAll(async () => {
    limited = await startSandbox({ links: 64, rateLimits: true, clock: true });
    ids = await fixtures(limited);
  });
  beforeEach(async () => {
    await limited.raw("POST", "/_sandbox/reset");
  });
  afterAll(() => limited.close());

  for (const [endpoint, path] of [
    ["GET /links/{id}/accounts", (id: string) => `/links/${id}/accounts`],
    ["GET /links/{id}/accounts/{account_id}", (id: string) => `/links/${id}/accounts/acc_any`],
  ] as const) {
    it(`limits ${endpoint} per link as the spec's table says`, async () => {
      const perLink = rulesFor(endpoint).find((rule) => rule.scope === "link")!.limitPerMinute;
      const id = first(ids, "plain");
      for (let i = 0; i < perLink; i++) expect((await limited.api("GET", path(id))).status).not.toBe(429);
      const refused = await limited.api("GET", path(id));
      expectError(refused, 429, "api_error.rate_limit_exceeded");
      expect(refused.headers.get("retry-after")).toBe("60");
      // Another link has its own allowance.
      expect((await limited.api("GET", path(ids.plain![1]!))).status).not.toBe(429);
    });
  }
});
