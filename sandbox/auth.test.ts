import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, startSandbox, TEST_CREDENTIALS, type TestSandbox } from "./test-support";
import { accessTokenShape } from "./wire-shapes";

let t: TestSandbox;
beforeAll(async () => {
  t = await startSandbox({ clock: true, tokenTtlSeconds: 120, links: 70 });
});
afterAll(() => t.close());

const form = (fields: Record<string, string>) => ({
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

describe("POST /auth/token", () => {
  it("issues a bearer token for form-encoded client credentials", async () => {
    const response = await t.raw(
      "POST",
      "/auth/token",
      form({
        grant_type: "client_credentials",
        client_id: TEST_CREDENTIALS.clientId,
        client_secret: TEST_CREDENTIALS.clientSecret,
      }),
    );
    expect(response.status).toBe(201);
    const body = accessTokenShape.parse(response.json);
    expect(body).toMatchObject({ token_type: "bearer", expires_in: 120 });
    const link = await t.raw("GET", "/links?limit=500", { headers: await t.authHeaders(body.access_token) });
    expect(link.status).toBe(200);
  });

  it("lists the tokens it issued on GET /_sandbox/tokens, for leak tests", async () => {
    const { access_token } = accessTokenShape.parse(
      (
        await t.raw(
          "POST",
          "/auth/token",
          form({
            grant_type: "client_credentials",
            client_id: TEST_CREDENTIALS.clientId,
            client_secret: TEST_CREDENTIALS.clientSecret,
          }),
        )
      ).json,
    );
    const listed = (await t.raw("GET", "/_sandbox/tokens")).json as {
      tokens: { access_token: string; client_id: string }[];
    };
    expect(listed.tokens).toContainEqual(
      expect.objectContaining({ access_token, client_id: TEST_CREDENTIALS.clientId }),
    );
  });

  it("accepts the client pair as HTTP Basic", async () => {
    const basic = Buffer.from(`${TEST_CREDENTIALS.clientId}:${TEST_CREDENTIALS.clientSecret}`).toString("base64");
    const response = await t.raw("POST", "/auth/token", {
      headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    expect(response.status).toBe(201);
    accessTokenShape.parse(response.json);
  });

  it("answers 401 api_error.auth.unauthorized for a wrong secret or a missing client", async () => {
    const wrong = await t.raw(
      "POST",
      "/auth/token",
      form({ grant_type: "client_credentials", client_id: TEST_CREDENTIALS.clientId, client_secret: "nope" }),
    );
    expectError(wrong, 401, "api_error.auth.unauthorized");
    const missing = await t.raw("POST", "/auth/token", form({ grant_type: "client_credentials" }));
    expectError(missing, 401, "api_error.auth.unauthorized");
  });

  it("answers 400 for a grant type other than client_credentials", async () => {
    const response = await t.raw(
      "POST",
      "/auth/token",
      form({
        grant_type: "password",
        client_id: TEST_CREDENTIALS.clientId,
        client_secret: TEST_CREDENTIALS.clientSecret,
      }),
    );
    expectError(response, 400, "api_error.auth.unauthorized");
  });
});

describe("authentication of API calls", () => {
  it("requires the bearer token and both client headers", async () => {
    const headers = await t.authHeaders();
    const without = (name: string) => Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
    expectError(
      await t.raw("GET", "/links", { headers: without("Authorization") }),
      401,
      "api_error.auth.unauthorized",
    );
    expectError(await t.raw("GET", "/links", { headers: without("X-Client-Id") }), 401, "api_error.auth.unauthorized");
    expectError(
      await t.raw("GET", "/links", { headers: without("X-Client-Secret") }),
      401,
      "api_error.auth.unauthorized",
    );
    expectError(
      await t.raw("GET", "/links", { headers: { ...headers, "X-Client-Id": "live_0000" } }),
      401,
      "api_error.auth.unauthorized",
    );
    expectError(
      await t.raw("GET", "/links", { headers: { ...headers, Authorization: "Bearer made-up" } }),
      401,
      "api_error.auth.unauthorized",
    );
    expect((await t.raw("GET", "/links", { headers })).status).toBe(200);
  });

  it("answers 401 api_error.auth.expired_access_token once the lifetime has passed, and a new token works", async () => {
    const old = await t.token();
    t.clock.advance(119_000);
    expect((await t.raw("GET", "/links", { headers: await t.authHeaders(old) })).status).toBe(200);
    t.clock.advance(1_000);
    const expired = expectError(
      await t.raw("GET", "/links", { headers: await t.authHeaders(old) }),
      401,
      "api_error.auth.expired_access_token",
    );
    expect(expired.error_message).toBe("Access token expired");
    const fresh = await t.token();
    expect((await t.raw("GET", "/links", { headers: await t.authHeaders(fresh) })).status).toBe(200);
  });
});

describe("envelopes for requests the API cannot route or read", () => {
  it("answers unknown routes with 404 api_error.not_found", async () => {
    expectError(await t.api("GET", "/nope"), 404, "api_error.not_found");
    expectError(await t.raw("GET", "/links/x/y/z"), 404, "api_error.not_found");
  });

  it("answers a known route with the wrong method with 405 and Allow", async () => {
    const response = await t.api("PUT", "/links");
    expectError(response, 405, "api_error.method_not_allowed");
    expect(response.headers.get("allow")).toBe("GET");
  });

  it("answers malformed JSON with 400 api_error.request.malformed_json", async () => {
    const response = await t.api("POST", "/link-session", {
      rawBody: '{"customer_user": {',
      headers: { "Content-Type": "application/json" },
    });
    expectError(response, 400, "api_error.request.malformed_json");
    expectError(await t.api("POST", "/link-session/exchange-token"), 400, "api_error.request.malformed_json");
  });

  it("links documentation_url to the sandbox's error docs, which list every code", async () => {
    const response = await t.raw("GET", "/docs/errors");
    expect(response.status).toBe(200);
    const codes = (response.json as { errors: { code: string }[] }).errors.map((error) => error.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        "api_error.auth.expired_access_token",
        "link_error.bad_state",
        "api_error.rate_limit_exceeded",
      ]),
    );
  });

  it("keeps connections alive", async () => {
    const response = await t.api("GET", "/links?limit=500");
    expect(response.headers.get("connection")).toBe("keep-alive");
  });
});
