import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { DRIFT_KINDS } from "../../sandbox/drift";
import { type Sandbox, createSandbox } from "../../sandbox/server";
import { UpstreamClient } from "./client";
import { type ReadNotice, UpstreamApi } from "./index";
import { createInstitutionNameCache } from "./institutions";
import { LEGACY_SUBCATEGORIES } from "./taxonomy";
import { readAllUserTransactions } from "../transactions/read";

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
  let baseUrl: string;

  beforeAll(async () => {
    sandbox = createSandbox({ links: 64, rateLimits: false, importDelayMs: 0, amountsAsStrings });
    baseUrl = await sandbox.listen(0);
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

  // The sandbox writes its shapes from the spec and the facts, not from this client (sandbox/wire-vocabulary.ts): with
  // drift off, everything it holds must read here.
  it("reads every link the sandbox holds, and the transactions of each whose data is ready", async () => {
    const { link_ids: ids } = (await (await fetch(`${baseUrl}/_sandbox/back-end/link-ids`)).json()) as {
      link_ids: string[];
    };
    expect(ids).toHaveLength(64);
    for (const linkId of ids) {
      const link = await api.getLink(linkId);
      if ((link.state !== "connected" && link.state !== "error") || !link.products.transactions) continue;
      const page = await api.getTransactions(linkId, { size: 1000 });
      expect(page.transactions.every((transaction) => typeof transaction.amount === "number")).toBe(true);
    }
  });

  it("reads a link's accounts, all or one, with numeric balances", async () => {
    const { accounts, link } = await api.getAccounts(plain);
    expect(link?.link_id).toBe(plain);
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

  // Beyond the spec (upstream-facts §9, §4.3): the sandbox models them from the facts alone, so they must read here too.
  it("reads every customer user's accounts and transactions across links, as the links' own reads serve them", async () => {
    let read = 0;
    for (let n = 1; n <= 21; n++) {
      const user = `user_${n}`;
      const { links } = await api.getUserLinks(user);
      const accounts = await api.getUserAccounts(user);
      expect(accounts.unreadableLinks).toEqual([]);
      expect(accounts.unreadableAccounts).toEqual([]);
      for (const [linkId, entry] of Object.entries(accounts.links)) {
        expect(links[linkId]?.state).toMatch(/^(connected|error)$/);
        expect(entry.accounts).toEqual((await api.getAccounts(linkId)).accounts);
        expect(entry.lastSyncedAt).toBe(links[linkId]?.last_synced_at ?? null);
      }
      const page = await api.getUserTransactions(user, { size: 1000 });
      expect(page.unreadableTransactions).toEqual([]);
      expect(page.total).toBe(page.transactions.length);
      for (const transaction of page.transactions) {
        expect(typeof transaction.amount).toBe("number");
        const account = page.accounts[transaction.account_id];
        expect(account?.name).toBeTruthy();
        expect(Object.keys(links)).toContain(account?.linkId);
      }
      read += page.transactions.length;
    }
    expect(read).toBeGreaterThan(500);
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

// The sandbox in drift mode sends what the real service may (sandbox/drift.ts): values outside today's lists, nulls,
// old categories, amounts in other decimal forms, extra fields, unreadable items. The reader loses no link and no
// readable transaction, keeps every odd value as sent, and notes each one.
describe("the upstream client against a drifting sandbox", () => {
  let sandbox: Sandbox;
  let api: UpstreamApi;
  let baseUrl: string;
  const notices: ReadNotice[] = [];

  beforeAll(async () => {
    sandbox = createSandbox({
      links: 128,
      rateLimits: false,
      importDelayMs: 0,
      // Every object drifts (one kind each), so every kind is met among 128 links.
      drift: { enabled: true, share: 1, kinds: [...DRIFT_KINDS] },
    });
    baseUrl = await sandbox.listen(0);
    api = new UpstreamApi(
      new UpstreamClient({
        baseUrl,
        clientId: SANDBOX_DEFAULTS.clientId,
        clientSecret: SANDBOX_DEFAULTS.clientSecret,
        onRead: (seen) => notices.push(...seen),
      }),
    );
  });
  afterAll(() => sandbox.close());

  const driftedLinks = async (kind: string) =>
    ((await (await fetch(`${baseUrl}/_sandbox/drift/links?kind=${kind}`)).json()) as { link_ids: string[] }).link_ids;

  it("reads every link and every readable transaction, setting aside only the malformed items", async () => {
    const { link_ids: ids } = (await (await fetch(`${baseUrl}/_sandbox/back-end/link-ids`)).json()) as {
      link_ids: string[];
    };
    const malformed = new Set(await driftedLinks("malformed_item"));
    let transactions = 0;
    for (const linkId of ids) {
      const link = await api.getLink(linkId);
      expect(link.link_id).toBe(linkId);
      if (!link.products.transactions || !["connected", "error"].includes(link.state)) continue;
      const page = await api.getTransactions(linkId, { size: 1000 });
      expect(page.link?.link_id).toBe(linkId);
      expect(page.transactions.every((t) => Number.isFinite(t.amount) && t.amount >= 0)).toBe(true);
      transactions += page.transactions.length;
      // One unreadable item for each link drifted so; none anywhere else.
      expect(page.unreadableTransactions.length, linkId).toBe(malformed.has(linkId) ? 1 : 0);
    }
    expect(transactions).toBeGreaterThan(1000);
  });

  it("reads every customer's accounts and transactions across links, setting aside only the malformed items", async () => {
    const malformed = new Set(await driftedLinks("malformed_item"));
    let transactions = 0;
    let setAside = 0;
    for (let n = 1; n <= 42; n++) {
      const user = `user_${n}`;
      const { links } = await api.getUserLinks(user);
      const accounts = await api.getUserAccounts(user);
      expect(accounts.unreadableLinks).toEqual([]);
      expect(accounts.unreadableAccounts).toEqual([]);
      for (const [linkId, entry] of Object.entries(accounts.links))
        expect(entry.accounts).toEqual((await api.getAccounts(linkId)).accounts);
      const history = await readAllUserTransactions(api, user);
      expect(history.transactions.every((t) => Number.isFinite(t.amount) && t.amount >= 0)).toBe(true);
      // One unreadable item for each of the customer's links drifted so; none anywhere else.
      expect(history.unreadable.length, user).toBe(Object.keys(links).filter((id) => malformed.has(id)).length);
      for (const transaction of history.transactions)
        expect(Object.keys(links)).toContain(history.accounts[transaction.account_id]?.linkId);
      transactions += history.transactions.length;
      setAside += history.unreadable.length;
    }
    expect(transactions).toBeGreaterThan(1000);
    expect(setAside).toBeGreaterThan(0);
  });

  it("keeps each value outside today's lists as sent, and notes it", async () => {
    const [unknownError] = await driftedLinks("unknown_link_error");
    expect((await api.getLink(unknownError!)).error_code).toBe("consent_revoked");
    const [unknownProduct] = await driftedLinks("unknown_product");
    const withProduct = await api.getLink(unknownProduct!);
    expect(Object.keys(withProduct.products)).toContain("payment_initiation");
    expect(withProduct.available_products).toContain("payment_initiation");
    const [unknownProvider] = await driftedLinks("unknown_provider");
    expect((await api.getLink(unknownProvider!)).provider).toBe("truelayer");
    const [nullProduct] = await driftedLinks("null_product");
    const sparse = await api.getLink(nullProduct!);
    expect(Object.values(sparse.products).every((status) => status !== null)).toBe(true);

    const noted = new Set(notices.filter((n) => n.kind === "unknown_value").map((n) => `${n.field}=${n.value}`));
    for (const expected of [
      "link.error_code=consent_revoked",
      "link.products=payment_initiation",
      "link.available_products=payment_initiation",
      "link.products.error_code=consent_expired",
      "link.provider=truelayer",
      "link.state=relinking",
      "transaction.enrichment.category=subscriptions",
      "transaction.enrichment.subcategory=software_subscriptions",
      "transaction.type=adjustment",
    ])
      expect(noted, expected).toContain(expected);

    // A subcategory from before the taxonomy's revision of 2025-01-13 is known history: read as sent, not noted.
    const [oldCategory] = await driftedLinks("old_category");
    const page = await api.getTransactions(oldCategory!, { size: 1000 });
    const old = page.transactions.filter((t) =>
      Object.hasOwn(LEGACY_SUBCATEGORIES, t.enrichment?.subcategory?.value ?? ""),
    );
    expect(old.length).toBeGreaterThan(0);
    expect([...noted].some((n) => Object.keys(LEGACY_SUBCATEGORIES).some((name) => n.endsWith(`=${name}`)))).toBe(
      false,
    );
  });
});
