import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import { RATE_LIMITS } from "./rate-limits";
import { BEYOND_THE_SPEC, DEFINED_BY_SPEC, SPEC_ENDPOINTS } from "./spec-endpoints";
import { categorySchema } from "./schemas";

// Everything the dashboard sends the upstream, recorded by the sandbox: every verb of the one door (lib/upstream)
// and the status check that every page's header runs. Each call must be to a route the spec defines or one of the
// exceptions spec-endpoints.ts names; a route the sandbox lacks shows up in its stats as "(unmatched) METHOD /path".

// The read model is not under test: its writes fail quietly (the observer's failures never fail a call).
vi.mock("../db/client", () => ({ getDb: async () => Promise.reject(new Error("no database in this test")) }));

const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0 });
const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-spec-endpoints-"));
let sandboxUrl = "";

beforeAll(async () => {
  sandboxUrl = await sandbox.listen(0);
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: sandboxUrl,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "spec-endpoints-secret-0123456789abcdef",
    LOG_LEVEL: "silent",
    // The budget in process memory, its journal in a folder of this test.
    DATABASE_URL: "",
    LINKDESK_DATA_DIR: dataDir,
  });
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("calls the dashboard makes", () => {
  it("go only to routes the spec defines or names as an exception, whatever the verb, and the status check sends none of its own", async () => {
    const { upstream, UpstreamApi } = await import("./index");
    const { checkUpstream } = await import("./status");
    const api = upstream();
    const exercised = new Set<string>();
    const use = <K extends keyof typeof api>(verb: K) => {
      exercised.add(verb);
      return api[verb];
    };

    const status = await checkUpstream({ fresh: true, read: true });
    expect(status.reachable.ok && status.token.ok && status.read?.ok).toBe(true);

    const fixtures = (await (await fetch(`${sandboxUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
    const linkId = fixtures.plain![0]!;
    const page = await use("listLinks").call(api, { limit: 500 });
    expect(page.links.length).toBeGreaterThan(0);
    await use("getLink").call(api, linkId);
    const { accounts } = await use("getAccounts").call(api, linkId);
    await use("getAccount").call(api, linkId, accounts[0]!.account_id);
    await use("listInstitutions").call(api, { name: "Chase", limit: 5 });
    await use("getInstitution").call(api, "chase");
    const transactions = await use("getTransactions").call(api, linkId, { size: 5 });
    const transaction = transactions.transactions[0]!;
    await use("correctEnrichment").call(api, linkId, transaction.transaction_id, {
      category: categorySchema.parse(transaction.enrichment!.category.value),
    });
    // A name reserved for documentation: the sandbox records the test delivery and contacts nobody.
    const updated = await use("updateLink").call(api, linkId, {
      webhook: "https://hooks.spec-endpoints.example/linkdesk",
      link_tags: ["source:spec-endpoints"],
    });
    expect(updated.link_tags).toEqual(["source:spec-endpoints"]);
    const test = await use("sendTestWebhook").call(api, linkId, {
      webhook_event: "link.state_changed",
      webhook_idempotency_key: "spec-endpoints-test",
    });
    expect(test.delivery_token.length).toBeGreaterThan(0);
    await use("refreshProducts").call(api, linkId, ["accounts"]);
    const session = await use("createLinkSession").call(api, {
      customer_user: { id: "spec-endpoints-user" },
      redirect_uri: "https://linkdesk.invalid/return",
    });
    // Demo mode only: the sandbox's control route plays the end user (not counted in the sandbox's stats).
    const completed = await use("completeSandboxSession").call(api, session.link_session_token);
    await use("exchangeToken").call(api, completed.exchangeable_token);
    const imported = await use("importLink").call(api, {
      customer_user: { id: "spec-endpoints-user" },
      institution_id: "mx.wells_fargo",
      accounts: [{ account_id: "acct", name: "Checking", type: "checking", balances: {} }],
    });
    await use("importTransactions").call(api, imported.link_id, [
      { account_id: "acct", amount: "-12.50", date: "2026-11-01", description: "Coffee" },
    ]);
    const theirs = await use("getUserLinks").call(api, "spec-endpoints-user");
    expect(Object.keys(theirs.links)).toContain(imported.link_id);
    const accountsOfTheirs = await use("getUserAccounts").call(api, "spec-endpoints-user");
    const importedAccounts = accountsOfTheirs.links[imported.link_id]?.accounts ?? [];
    expect(importedAccounts.map((account) => account.original_id)).toEqual(["acct"]);
    const transactionsOfTheirs = await use("getUserTransactions").call(api, "spec-endpoints-user", {
      accountIds: importedAccounts.map((account) => account.account_id),
    });
    expect(transactionsOfTheirs.transactions.map((t) => t.description)).toEqual(["Coffee"]);
    await use("deleteLink").call(api, imported.link_id);
    const { keys } = await use("getWebhookKeys").call(api);
    expect(keys.length).toBeGreaterThan(0);

    // Every verb of the door was called, so a verb added later is added here too.
    const verbs = Object.getOwnPropertyNames(UpstreamApi.prototype).filter(
      (name) => name !== "constructor" && name !== "observe",
    );
    expect([...exercised].sort()).toEqual(verbs.sort());

    const called = Object.keys(sandbox.state.stats.snapshot().byEndpoint);
    expect(called).toEqual(
      expect.arrayContaining(["POST /auth/token", "GET /links", "GET /links/{id}", "POST /links/import"]),
    );
    expect(called.filter((endpoint) => !SPEC_ENDPOINTS.includes(endpoint))).toEqual([]);
    // Outside the spec's own routes, only its named exceptions.
    expect(called.filter((endpoint) => !DEFINED_BY_SPEC.includes(endpoint))).toEqual([...BEYOND_THE_SPEC]);
  });
});

describe("the routes Linkdesk may call", () => {
  it("are the spec's own (described in full, rows of its Limits table, or under its refresh rule) plus the exceptions named as such", () => {
    const described = [
      "POST /links/{id}/transactions/{txn_id}/enrichment",
      "POST /link-session/exchange-token",
      "POST /links/import",
    ];
    const refreshRule = ["POST /links/{id}/products"];
    expect([...DEFINED_BY_SPEC].sort()).toEqual(
      [...new Set([...described, ...refreshRule, ...RATE_LIMITS.map((rule) => rule.endpoint)])].sort(),
    );
    expect(BEYOND_THE_SPEC).toEqual([
      "GET /users/{id}/links",
      "GET /users/{id}/accounts",
      "GET /users/{id}/transactions",
      "GET /.well-known/jwks.json",
    ]);
    expect(BEYOND_THE_SPEC.filter((endpoint) => DEFINED_BY_SPEC.includes(endpoint))).toEqual([]);
    expect([...SPEC_ENDPOINTS].sort()).toEqual([...DEFINED_BY_SPEC, ...BEYOND_THE_SPEC].sort());
  });
});
