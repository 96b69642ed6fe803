import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { type Sandbox, createSandbox } from "../../sandbox/server";
import { UpstreamClient } from "./client";
import { wireLink } from "../testing/wire-fixtures";
import { UpstreamApi } from "./index";
import type { WireLink } from "./schemas";

// The door's getUserLinks (GET /users/{id}/links, upstream-facts §2), getUserAccounts and getUserTransactions (GET
// /users/{id}/accounts and /transactions, §9 and §4.3) and deleteLink (DELETE /links/{id}, §3.5): first against a
// scripted upstream for what goes on the wire, then against the sandbox.

function scripted(answer: (method: string, path: string) => Response) {
  const seen: { method: string; path: string }[] = [];
  /** Each call's query, as sent. */
  const queries: string[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const method = init?.method ?? "GET";
    if (url.pathname === "/auth/token") {
      return Response.json({ access_token: "tok", token_type: "bearer", expires_in: 3600 }, { status: 201 });
    }
    seen.push({ method, path: url.pathname });
    queries.push(url.search);
    return answer(method, url.pathname);
  }) as typeof fetch;
  const client = new UpstreamClient({
    baseUrl: "https://upstream.test",
    clientId: "client_1",
    clientSecret: "secret_1",
    fetch: fetchImpl,
  });
  const observed: WireLink[][] = [];
  const api = new UpstreamApi(client, 30_000, async (links) => {
    observed.push(links);
  });
  return { api, seen, queries, observed };
}

describe("getUserLinks", () => {
  it("reads the map of a customer user's links and hands every one to the link observer", async () => {
    const links = { mk_a: wireLink({ link_id: "mk_a" }), mk_b: wireLink({ link_id: "mk_b", state: "deleted" }) };
    const up = scripted(() => Response.json({ links }));
    const result = await up.api.getUserLinks("user/42");
    expect(up.seen).toEqual([{ method: "GET", path: "/users/user%2F42/links" }]);
    expect(Object.keys(result.links)).toEqual(["mk_a", "mk_b"]);
    expect(result.links.mk_b?.state).toBe("deleted");
    expect(up.observed.map((batch) => batch.map((link) => link.link_id))).toEqual([["mk_a", "mk_b"]]);
  });

  it("takes an empty map for a user without links, telling the observer nothing", async () => {
    const up = scripted(() => Response.json({ links: {} }));
    expect(await up.api.getUserLinks("user_nobody")).toEqual({ links: {}, unreadableLinks: [] });
    expect(up.observed).toEqual([]);
  });

  it("refuses an answer that is not a map of links, naming the field", async () => {
    const up = scripted(() => Response.json({ links: [wireLink()] }));
    await expect(up.api.getUserLinks("user_1")).rejects.toMatchObject({
      kind: "invalid_response",
      endpoint: "GET /users/{id}/links",
      field: "links",
    });
  });

  it("reads a customer's map link by link: one odd link is set aside with its id and why, the rest are read", async () => {
    const odd = scripted(() =>
      Response.json({
        links: {
          mk_a: { link_id: "mk_a" },
          mk_b: wireLink({ link_id: "mk_b", error_code: "consent_revoked" as never, state: "error" }),
        },
      }),
    );
    const { links, unreadableLinks } = await odd.api.getUserLinks("user_1");
    expect(Object.keys(links)).toEqual(["mk_b"]);
    expect(links.mk_b?.error_code).toBe("consent_revoked");
    expect(unreadableLinks).toEqual([{ id: "mk_a", reason: expect.stringMatching(/is missing/) }]);
    expect(odd.observed.flat().map((l) => l.link_id)).toEqual(["mk_b"]);
  });
});

describe("getUserAccounts and getUserTransactions", () => {
  it("ask for a customer's accounts, naming each wanted account once as account_ids", async () => {
    const up = scripted(() => Response.json({ links: { mk_a: { accounts: [], last_synced_at: null } } }));
    expect(await up.api.getUserAccounts("user/42")).toEqual({
      links: { mk_a: { accounts: [], lastSyncedAt: null } },
      unreadableLinks: [],
      unreadableAccounts: [],
    });
    await up.api.getUserAccounts("user_1", { accountIds: ["acc_1", "acc_2"] });
    expect(up.seen).toEqual([
      { method: "GET", path: "/users/user%2F42/accounts" },
      { method: "GET", path: "/users/user_1/accounts" },
    ]);
    expect(up.queries).toEqual(["", "?account_ids=acc_1&account_ids=acc_2"]);
    // The answer carries no link objects: the read model hears nothing.
    expect(up.observed).toEqual([]);
  });

  it("ask for a page of a customer's transactions, the whole history unless told, filtered by account_id", async () => {
    const up = scripted(() => Response.json({ total: 0, page: 1, size: 0, transactions: [], accounts: {} }));
    expect(await up.api.getUserTransactions("user_1")).toEqual({
      total: 0,
      page: 1,
      size: 0,
      transactions: [],
      unreadableTransactions: [],
      accounts: {},
      unreadableAccounts: [],
    });
    await up.api.getUserTransactions("user_1", {
      page: 2,
      size: 1000,
      startDate: "2026-01-01",
      endDate: "2026-06-30",
      accountIds: ["acc_1", "acc_2"],
    });
    expect(up.seen.map((call) => call.path)).toEqual(["/users/user_1/transactions", "/users/user_1/transactions"]);
    expect(up.queries).toEqual([
      "?start_date=1900-01-01",
      "?page=2&size=1000&start_date=2026-01-01&end_date=2026-06-30&account_id=acc_1&account_id=acc_2",
    ]);
  });

  it("refuse an answer whose accounts are a list, not a map, naming the endpoint", async () => {
    const up = scripted(() => Response.json({ total: 0, page: 1, size: 0, transactions: [], accounts: [] }));
    await expect(up.api.getUserTransactions("user_1")).rejects.toMatchObject({
      kind: "invalid_response",
      endpoint: "GET /users/{id}/transactions",
      field: "accounts",
    });
  });
});

describe("deleteLink", () => {
  it("takes a 204 with an empty body as success", async () => {
    const up = scripted(() => new Response(null, { status: 204 }));
    await expect(up.api.deleteLink("mk_gone")).resolves.toBeUndefined();
    expect(up.seen).toEqual([{ method: "DELETE", path: "/links/mk_gone" }]);
  });

  it("takes any other 2xx as success too, whatever its body (the link is deleted either way)", async () => {
    await expect(scripted(() => new Response("", { status: 200 })).api.deleteLink("mk_1")).resolves.toBeUndefined();
    await expect(
      scripted(() => Response.json({ deleted: true }, { status: 202 })).api.deleteLink("mk_1"),
    ).resolves.toBeUndefined();
  });

  it("passes the upstream's refusal on with its status and code", async () => {
    const up = scripted(() =>
      Response.json(
        { error_code: "link_error.deleted", error_message: "This link was deleted at some earlier time." },
        { status: 410 },
      ),
    );
    await expect(up.api.deleteLink("mk_1")).rejects.toMatchObject({
      status: 410,
      errorCode: "link_error.deleted",
      endpoint: "DELETE /links/{id}",
    });
  });
});

describe("ids as path segments", () => {
  it('never sends "", "." or "..": they would name another resource (DELETE /links/.. is DELETE /)', async () => {
    const { api, seen } = scripted(() => new Response(null, { status: 204 }));
    for (const bad of ["", ".", ".."]) {
      await expect(api.deleteLink(bad)).rejects.toThrow(RangeError);
      await expect(api.getUserLinks(bad)).rejects.toThrow(RangeError);
      await expect(api.getUserAccounts(bad)).rejects.toThrow(RangeError);
      await expect(api.getUserTransactions(bad)).rejects.toThrow(RangeError);
    }
    expect(seen).toEqual([]);
  });
});

describe("getUserLinks and deleteLink against the sandbox", () => {
  let sandbox: Sandbox;
  let api: UpstreamApi;

  beforeAll(async () => {
    sandbox = createSandbox({ links: 64, rateLimits: false, importDelayMs: 0 });
    const baseUrl = await sandbox.listen(0);
    api = new UpstreamApi(
      new UpstreamClient({ baseUrl, clientId: SANDBOX_DEFAULTS.clientId, clientSecret: SANDBOX_DEFAULTS.clientSecret }),
    );
  });
  afterAll(() => sandbox.close());

  it("finds an imported link under its customer user, disconnected, then deleted", async () => {
    const imported = await api.importLink({ customer_user: { id: "user_door_verbs" }, institution_id: "chase" });
    const before = await api.getUserLinks("user_door_verbs");
    expect(Object.keys(before.links)).toEqual([imported.link_id]);
    expect(before.links[imported.link_id]).toMatchObject({ state: "error", error_code: "auth_expired" });

    await expect(api.deleteLink(imported.link_id)).resolves.toBeUndefined();
    expect((await api.getUserLinks("user_door_verbs")).links[imported.link_id]?.state).toBe("deleted");
    expect((await api.getLink(imported.link_id)).state).toBe("deleted");
    await expect(api.deleteLink(imported.link_id)).rejects.toMatchObject({
      status: 410,
      errorCode: "link_error.deleted",
    });
    await expect(api.deleteLink("mk_doesNotExist")).rejects.toMatchObject({
      status: 404,
      errorCode: "link_error.not_found",
    });
  });

  it("gets an empty map for an unknown user", async () => {
    expect(await api.getUserLinks("user_unknown_to_the_sandbox")).toEqual({ links: {}, unreadableLinks: [] });
  });
});
