import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { type Sandbox, createSandbox } from "../../sandbox/server";
import { UpstreamClient } from "./client";
import { UpstreamApi } from "./index";
import { createInstitutionNameCache } from "./institutions";

// The client's verbs against the sandbox, twice: with amounts as the spec types them (numbers) and as the public SDKs
// carry them (decimal strings). The app's types are numbers either way.

describe.each([
  { amounts: "numbers", amountsAsStrings: false },
  { amounts: "decimal strings", amountsAsStrings: true },
])("the upstream client against a sandbox serving amounts as $amounts", ({ amountsAsStrings }) => {
  let sandbox: Sandbox;
  let api: UpstreamApi;
  let plain: string;
  let connecting: string;

  beforeAll(async () => {
    sandbox = createSandbox({ links: 64, rateLimits: false, importDelayMs: 0, amountsAsStrings });
    const baseUrl = await sandbox.listen(0);
    api = new UpstreamApi(
      new UpstreamClient({ baseUrl, clientId: SANDBOX_DEFAULTS.clientId, clientSecret: SANDBOX_DEFAULTS.clientSecret }),
    );
    const fixtures = (await (await fetch(`${baseUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
    plain = fixtures.plain![0]!;
    connecting = fixtures.connecting![0]!;
  });
  afterAll(() => sandbox.close());

  it("reads transaction amounts as numbers", async () => {
    const page = await api.getTransactions(plain, { size: 100 });
    expect(page.transactions.length).toBeGreaterThan(0);
    for (const transaction of page.transactions) {
      expect(typeof transaction.amount).toBe("number");
      expect(transaction.amount).toBeGreaterThanOrEqual(0);
    }
    const corrected = await api.correctEnrichment(plain, page.transactions[0]!.transaction_id, { category: "charity" });
    expect(corrected.transactions.every((transaction) => typeof transaction.amount === "number")).toBe(true);
  });

  it("reads a link's accounts, all or one, with numeric balances", async () => {
    const { accounts, link } = await api.getAccounts(plain);
    expect(link.link_id).toBe(plain);
    expect(accounts.length).toBeGreaterThan(0);
    for (const account of accounts) {
      expect(account.name).toBeTruthy();
      expect(typeof account.balances?.current).toBe("number");
    }
    const one = await api.getAccount(plain, accounts[0]!.account_id);
    expect(one.account).toEqual(accounts[0]);
    const some = await api.getAccounts(plain, { accountIds: [accounts[0]!.account_id] });
    expect(some.accounts).toHaveLength(1);
    await expect(api.getAccounts(connecting)).rejects.toMatchObject({ status: 422, errorCode: "link_error.bad_state" });
    await expect(api.getAccount(plain, "acc_missing")).rejects.toMatchObject({ status: 404 });
  });

  it("lists and reads institutions", async () => {
    const page = await api.listInstitutions({ name: "Bank of", limit: 10 });
    expect(page.institutions.map((institution) => institution.name)).toEqual(["Bank of America"]);
    const featured = await api.listInstitutions({ featured: true, limit: 1000 });
    expect(featured.institutions.every((institution) => institution.is_featured)).toBe(true);
    expect((await api.getInstitution("chase")).name).toBe("Chase");
    await expect(api.getInstitution("no_such_bank")).rejects.toMatchObject({
      status: 404,
      errorCode: "institution_error.not_found",
    });
  });
});

describe("institutionName", () => {
  let sandbox: Sandbox;
  let api: UpstreamApi;
  let baseUrl: string;

  beforeAll(async () => {
    sandbox = createSandbox({ links: 10, rateLimits: false });
    baseUrl = await sandbox.listen(0);
    api = new UpstreamApi(
      new UpstreamClient({ baseUrl, clientId: SANDBOX_DEFAULTS.clientId, clientSecret: SANDBOX_DEFAULTS.clientSecret }),
    );
  });
  afterAll(() => sandbox.close());

  const institutionCalls = () =>
    sandbox.state.stats.snapshot().byEndpoint["GET /institutions/{institution_id}"]?.requests ?? 0;

  it("asks the upstream once per id, remembers unknown ids as null, and resolves provider aliases", async () => {
    let clock = 0;
    const cache = createInstitutionNameCache(
      () => api,
      () => clock,
    );
    const before = institutionCalls();
    const names = await Promise.all([
      cache.institutionName("chase"),
      cache.institutionName("chase"),
      cache.institutionName("no_such_bank"),
    ]);
    expect(names).toEqual(["Chase", "Chase", null]);
    expect(await cache.institutionName("chase")).toBe("Chase");
    expect(await cache.institutionName("no_such_bank")).toBeNull();
    expect(institutionCalls() - before).toBe(2);
    expect(await cache.institutionName("mx.wells_fargo")).toBe("Wells Fargo");
    // Unknown ids are asked again after an hour; names after a day.
    clock += 60 * 60_000 + 1;
    await cache.institutionName("no_such_bank");
    await cache.institutionName("chase");
    expect(institutionCalls() - before).toBe(4);
  });

  it("caches nothing when the upstream fails, and reports what it could not look up", async () => {
    const cache = createInstitutionNameCache(() => api);
    await fetch(`${baseUrl}/_sandbox/faults`, {
      method: "POST",
      body: JSON.stringify({ status: 503, paths: ["/institutions/citi"] }),
    });
    try {
      await expect(cache.institutionName("citi")).rejects.toMatchObject({ status: 503 });
      const result = await cache.institutionNames(["chase", "citi", "ally", "chase"]);
      expect(result.names).toEqual(new Map([["chase", "Chase"]]));
      expect(result.missing).toEqual(["citi", "ally"]);
      expect(result.problem).toMatchObject({ status: 503 });
    } finally {
      await fetch(`${baseUrl}/_sandbox/faults`, { method: "DELETE" });
    }
    expect(await cache.institutionName("citi")).toBe("Citibank");
  });
});
