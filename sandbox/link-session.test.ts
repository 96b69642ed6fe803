import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSandboxEnv } from "./env";
import { expectError, startSandbox, validationLocations, type TestSandbox } from "./test-support";
import { exchangeShape, linkSessionShape, linkShape, linksPageShape, transactionsPageShape } from "./wire-shapes";

let t: TestSandbox;
beforeAll(async () => {
  t = await startSandbox({ links: 64 });
});
afterAll(() => t.close());

const sessionBody = (extra: Record<string, unknown> = {}) => ({
  customer_user: { id: "user_session", email: { address: "ana@example.com" } },
  redirect_uri: "https://linkdesk.example/callback",
  ...extra,
});

async function createSession(extra: Record<string, unknown> = {}): Promise<string> {
  const response = await t.api("POST", "/link-session", { body: sessionBody(extra) });
  expect(response.status).toBe(201);
  const { link_session_token: token } = linkSessionShape.parse(response.json);
  expect(token).toMatch(/^sandbox_[0-9a-f-]{36}$/);
  return token;
}

async function complete(
  token: string,
  body: Record<string, unknown> = {},
): Promise<{ exchangeable_token: string; link_id: string }> {
  const response = await t.raw("POST", `/_sandbox/link-sessions/${token}/complete`, {
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response.json as { exchangeable_token: string; link_id: string };
}

const exchange = (exchangeableToken: string) =>
  t.api("POST", "/link-session/exchange-token", { body: { exchangeable_token: exchangeableToken } });

describe("link session → complete → exchange token", () => {
  it("creates a link awaiting the exchange, which the exchange connects (201)", async () => {
    const token = await createSession({
      institution_id: "chase",
      link_tags: ["team:retail"],
      webhook: "https://hooks.example/x",
    });
    const done = await complete(token);
    expect(done.exchangeable_token).toMatch(/^[0-9a-f-]{36}$/);
    const waiting = linkShape.parse((await t.api("GET", `/links/${done.link_id}`)).json);
    expect(waiting).toMatchObject({
      state: "awaiting_token_exchange",
      institution_id: "chase",
      link_tags: ["team:retail"],
    });

    const response = await exchange(done.exchangeable_token);
    expect(response.status).toBe(201);
    const body = exchangeShape.parse(response.json);
    expect(body.link_id).toBe(done.link_id);
    expect(body.link).toMatchObject({
      link_id: done.link_id,
      state: "connected",
      institution_name: "Chase",
      provider: "moneykit",
      error_code: null,
    });
    expect(Object.keys(body.link.products)).toEqual(["accounts", "transactions", "enrichment"]);
    expect(body.link.products.transactions?.refreshed_at).toBeTruthy();

    const newest = linksPageShape.parse((await t.api("GET", "/links?limit=500")).json).links[0];
    expect(newest?.link_id).toBe(done.link_id);
    const data = transactionsPageShape.parse(
      (await t.api("GET", `/links/${done.link_id}/transactions?start_date=1900-01-01`)).json,
    );
    expect(data.total).toBe(50);
  });

  it("refuses a used, unknown or no-longer-exchangeable token with 400 invalid_token_exchange", async () => {
    const done = await complete(await createSession());
    expect((await exchange(done.exchangeable_token)).status).toBe(201);
    const reused = expectError(
      await exchange(done.exchangeable_token),
      400,
      "link_session_error.invalid_token_exchange",
    );
    expect(reused.error_message).toMatch(/^Invalid token for link/);
    expectError(
      await exchange("00000000-0000-4000-8000-000000000000"),
      400,
      "link_session_error.invalid_token_exchange",
    );

    const deletedSince = await complete(await createSession());
    expect((await t.api("DELETE", `/links/${deletedSince.link_id}`)).status).toBe(204);
    expectError(await exchange(deletedSince.exchangeable_token), 400, "link_session_error.invalid_token_exchange");

    const failed = await complete(await createSession(), { outcome: "error" });
    expect(linkShape.parse((await t.api("GET", `/links/${failed.link_id}`)).json)).toMatchObject({
      state: "error",
      error_code: "user_error",
    });
    expectError(await exchange(failed.exchangeable_token), 400, "link_session_error.invalid_token_exchange");
  });

  it("validates the session request and the exchange body", async () => {
    const missingUser = await t.api("POST", "/link-session", { body: { redirect_uri: "https://x.example" } });
    expectError(missingUser, 422, "api_error.request.validation_failed");
    expect(validationLocations(missingUser)).toContain("body.customer_user");
    const badInstitution = await t.api("POST", "/link-session", {
      body: sessionBody({ institution_id: "no_such_bank" }),
    });
    expect(validationLocations(badInstitution)).toEqual(["body.institution_id"]);
    const emptyToken = await t.api("POST", "/link-session/exchange-token", { body: {} });
    expectError(emptyToken, 422, "api_error.request.validation_failed");
    expect(validationLocations(emptyToken)).toEqual(["body.exchangeable_token"]);
  });

  it("refuses a session whose redirect URI the app has not registered: 403 forbidden_config", async () => {
    const register = (redirectUris: string[] | null) =>
      t.raw("POST", "/_sandbox/settings", {
        body: JSON.stringify({ redirectUris }),
        headers: { "Content-Type": "application/json" },
      });
    expect((await register(["https://linkdesk.example/callback"])).status).toBe(200);
    try {
      const before = t.sandbox.state.store.sessions.size;
      const refused = await t.api("POST", "/link-session", {
        body: sessionBody({ redirect_uri: "https://elsewhere.example/return" }),
      });
      expectError(refused, 403, "link_session_error.forbidden_config");
      expect(t.sandbox.state.store.sessions.size).toBe(before);
      // The registered one is served.
      expect((await t.api("POST", "/link-session", { body: sessionBody() })).status).toBe(201);
      // As a program, the sandbox takes the registered URIs from SANDBOX_REDIRECT_URIS.
      const parsed = parseSandboxEnv({ SANDBOX_REDIRECT_URIS: "https://a.example/r, https://b.example/r" });
      expect(parsed.ok && parsed.config.options.redirectUris).toEqual(["https://a.example/r", "https://b.example/r"]);
    } finally {
      await register(null);
    }
  });

  it("completes a session once; unknown sessions are 404", async () => {
    const token = await createSession();
    await complete(token);
    const again = await t.raw("POST", `/_sandbox/link-sessions/${token}/complete`);
    expectError(again, 409, "link_session_error.already_completed");
    expectError(
      await t.raw("POST", "/_sandbox/link-sessions/sandbox_nope/complete"),
      404,
      "link_session_error.not_found",
    );
  });

  it("relinks a disconnected imported link: same link, reconnected, possibly through another provider", async () => {
    const imported = linkShape.parse(
      (
        await t.api("POST", "/links/import", {
          body: { customer_user: { id: "user_relink" }, institution_id: "ally", provider: "moneykit" },
        })
      ).json,
    );
    expect(imported).toMatchObject({ state: "error", error_code: "auth_expired" });
    const done = await complete(await createSession({ existing_link_id: imported.link_id, link_tags: ["plan:pro"] }));
    expect(done.link_id).toBe(imported.link_id);
    const body = exchangeShape.parse((await exchange(done.exchangeable_token)).json);
    expect(body.link).toMatchObject({
      link_id: imported.link_id,
      state: "connected",
      error_code: null,
      auth_expired_at: null,
      link_tags: ["plan:pro"],
    });
    expect(body.link.provider).not.toBe("moneykit");
  });

  it("refuses a relink of an unknown or deleted link", async () => {
    expectError(
      await t.api("POST", "/link-session", { body: sessionBody({ existing_link_id: "mk_doesNotExist" }) }),
      404,
      "link_error.not_found",
    );
    const done = await complete(await createSession());
    await t.api("DELETE", `/links/${done.link_id}`);
    expectError(
      await t.api("POST", "/link-session", { body: sessionBody({ existing_link_id: done.link_id }) }),
      410,
      "link_error.deleted",
    );
  });
});
