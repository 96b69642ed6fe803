import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { UpstreamClient, type UpstreamClientConfig } from "./client";
import { UpstreamError } from "./errors";
import { wireLink } from "../testing/wire-fixtures";
import { UpstreamApi } from "./index";

// A scripted upstream: records every request and answers from a handler, with a clock the test moves.

interface Seen {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

function fakeUpstream(
  handler: (req: Seen, seen: Seen[]) => Response | Promise<Response>,
  config: Partial<UpstreamClientConfig> = {},
) {
  const seen: Seen[] = [];
  let clock = Date.parse("2026-11-20T10:00:00Z");
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const req: Seen = {
      method: init?.method ?? "GET",
      path: url.pathname + url.search,
      headers: new Headers(init?.headers),
      body: String(init?.body ?? ""),
    };
    seen.push(req);
    const signal = init?.signal;
    if (signal?.aborted) throw signal.reason;
    // Like real fetch, give up when the caller's signal (its timeout) fires.
    return Promise.race([
      handler(req, seen),
      new Promise<never>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true })),
    ]);
  }) as typeof fetch;
  const client = new UpstreamClient({
    baseUrl: "https://upstream.test/",
    clientId: "client_1",
    clientSecret: "secret_1",
    fetch: fetchImpl,
    now: () => clock,
    ...config,
  });
  return {
    client,
    api: new UpstreamApi(client),
    seen,
    advance: (ms: number) => (clock += ms),
    calls: (path: string) => seen.filter((s) => s.path.startsWith(path)),
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

let tokenCounter = 0;
const tokenResponse = (expiresIn = 3600) =>
  json(201, { access_token: `tok_${++tokenCounter}`, token_type: "bearer", expires_in: expiresIn });

describe("UpstreamClient", () => {
  it("mints a token with form-encoded client credentials and sends all three auth headers", async () => {
    const up = fakeUpstream((req) => (req.path === "/auth/token" ? tokenResponse() : json(200, wireLink())));
    const link = await up.api.getLink("mk_eqkWN34UEoa2NxyALG8pcV");
    expect(link.link_id).toBe("mk_eqkWN34UEoa2NxyALG8pcV");

    const [tokenCall, linkCall] = up.seen;
    expect(tokenCall?.method).toBe("POST");
    expect(tokenCall?.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(tokenCall?.body))).toEqual({
      grant_type: "client_credentials",
      client_id: "client_1",
      client_secret: "secret_1",
    });
    expect(linkCall?.path).toBe("/links/mk_eqkWN34UEoa2NxyALG8pcV");
    expect(linkCall?.headers.get("authorization")).toMatch(/^Bearer tok_\d+$/);
    expect(linkCall?.headers.get("x-client-id")).toBe("client_1");
    expect(linkCall?.headers.get("x-client-secret")).toBe("secret_1");
  });

  it("reuses the token until shortly before it expires, then mints a new one", async () => {
    const up = fakeUpstream((req) => (req.path === "/auth/token" ? tokenResponse(3600) : json(200, wireLink())));
    await up.api.getLink("a");
    await up.api.getLink("b");
    up.advance(58 * 60_000);
    await up.api.getLink("c");
    expect(up.calls("/auth/token")).toHaveLength(1);

    up.advance(90_000); // within the last minute of the hour: renew before the token dies in flight
    await up.api.getLink("d");
    expect(up.calls("/auth/token")).toHaveLength(2);
    const [first, , , last] = up.calls("/links/");
    expect(last?.headers.get("authorization")).not.toBe(first?.headers.get("authorization"));
  });

  it("shares one token mint between concurrent calls", async () => {
    const up = fakeUpstream(async (req) => {
      if (req.path === "/auth/token") {
        await new Promise((r) => setTimeout(r, 20));
        return tokenResponse();
      }
      return json(200, wireLink());
    });
    await Promise.all(Array.from({ length: 10 }, (_, i) => up.api.getLink(`l${i}`)));
    expect(up.calls("/auth/token")).toHaveLength(1);
  });

  it("on an expired access token mints a new one and repeats that call once", async () => {
    const up = fakeUpstream((req, seen) => {
      if (req.path === "/auth/token") return tokenResponse();
      const linkCalls = seen.filter((s) => s.path.startsWith("/links/")).length;
      return linkCalls === 1
        ? json(401, { error_code: "api_error.auth.expired_access_token", error_message: "Access token expired" })
        : json(200, { transactions: [], accounts: [], link: wireLink(), cursor: { next: "" } });
    });
    const result = await up.api.correctEnrichment("mk_1", "txn_1", { category: "banking" });
    expect(result.link?.link_id).toBe("mk_eqkWN34UEoa2NxyALG8pcV");
    const calls = up.calls("/links/");
    expect(calls).toHaveLength(2);
    expect(up.calls("/auth/token")).toHaveLength(2);
    expect(calls[1]?.headers.get("authorization")).not.toBe(calls[0]?.headers.get("authorization"));
    expect(calls[1]?.body).toBe(JSON.stringify({ category: "banking" }));
  });

  it("repeats an expired-token call only once", async () => {
    const up = fakeUpstream((req) =>
      req.path === "/auth/token"
        ? tokenResponse()
        : json(401, { error_code: "api_error.auth.expired_access_token", error_message: "Access token expired" }),
    );
    const error = await up.api.getLink("mk_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).errorCode).toBe("api_error.auth.expired_access_token");
    expect(up.calls("/links/")).toHaveLength(2);
  });

  it("turns an error envelope into UpstreamError with status, codes and Retry-After", async () => {
    const up = fakeUpstream((req) => {
      if (req.path === "/auth/token") return tokenResponse();
      if (req.path.startsWith("/links/busy")) {
        return json(
          429,
          { error_code: "api_error.rate_limit_exceeded", error_message: "Rate limit exceeded" },
          { "Retry-After": "12" },
        );
      }
      if (req.path.startsWith("/links/dated")) {
        return json(
          429,
          { error_code: "api_error.rate_limit_exceeded", error_message: "Rate limit exceeded" },
          { "Retry-After": "Fri, 20 Nov 2026 10:05:00 GMT" },
        );
      }
      return json(422, {
        error_code: "link_error.bad_state",
        error_message: "Link is not ready",
        documentation_url: "https://docs.test/errors",
        link_error_code: "link_not_ready",
      });
    });
    const busy = (await up.api.getLink("busy").catch((e: unknown) => e)) as UpstreamError;
    expect(busy).toMatchObject({
      kind: "http",
      status: 429,
      errorCode: "api_error.rate_limit_exceeded",
      endpoint: "GET /links/{id}",
    });
    expect(busy.retryAfter?.toISOString()).toBe("2026-11-20T10:00:12.000Z");
    const dated = (await up.api.getLink("dated").catch((e: unknown) => e)) as UpstreamError;
    expect(dated.retryAfter?.toISOString()).toBe("2026-11-20T10:05:00.000Z");
    const bad = (await up.api.getLink("x").catch((e: unknown) => e)) as UpstreamError;
    expect(bad).toMatchObject({
      status: 422,
      errorCode: "link_error.bad_state",
      linkErrorCode: "link_not_ready",
      errorMessage: "Link is not ready",
    });
  });

  it("reports a 5xx without an envelope as an http error, not a crash", async () => {
    const up = fakeUpstream((req) =>
      req.path === "/auth/token" ? tokenResponse() : new Response("<html>Bad gateway</html>", { status: 502 }),
    );
    const error = (await up.api.getLink("mk_1").catch((e: unknown) => e)) as UpstreamError;
    expect(error).toMatchObject({ kind: "http", status: 502, errorCode: undefined });
  });

  it("names the field of a response that does not match the schema", async () => {
    const up = fakeUpstream((req) =>
      req.path === "/auth/token" ? tokenResponse() : json(200, { ...wireLink(), state: 42 }),
    );
    const error = (await up.api.getLink("mk_1").catch((e: unknown) => e)) as UpstreamError;
    expect(error).toMatchObject({ kind: "invalid_response", field: "state", endpoint: "GET /links/{id}" });
    expect(error.message).toContain('field "state"');
  });

  it("reads around a time it cannot read, telling onRead the field and what was there, never the body", async () => {
    const notices: unknown[] = [];
    const up = fakeUpstream(
      (req) =>
        req.path === "/auth/token"
          ? tokenResponse()
          : json(200, { ...wireLink(), products: { transactions: { refreshed_at: 42 } } }),
      { onRead: (seen, call) => notices.push({ seen, call }) },
    );
    const link = await up.api.getLink("mk_1");
    expect(link.products.transactions?.refreshed_at).toBeNull();
    expect(notices).toEqual([
      {
        seen: [
          {
            kind: "unreadable",
            field: "link.products.refreshed_at",
            value: expect.stringContaining("(it was 42)"),
          },
        ],
        call: { endpoint: "GET /links/{id}", correlationId: expect.any(String) },
      },
    ]);
  });

  it("tells onRead the field and value of an answer it cannot read at all, before refusing it", async () => {
    const notices: { seen: { field: string; value: string }[] }[] = [];
    const up = fakeUpstream(
      (req) => (req.path === "/auth/token" ? tokenResponse() : json(200, { ...wireLink(), link_id: null })),
      { onRead: (seen) => notices.push({ seen }) },
    );
    await expect(up.api.getLink("mk_1")).rejects.toMatchObject({ kind: "invalid_response", field: "link_id" });
    expect(notices[0]?.seen).toEqual([
      { kind: "unreadable", field: "answer.link_id", value: expect.stringContaining("link_id") },
    ]);
    expect(JSON.stringify(notices)).not.toContain("institution_name");
  });

  it("reports a body that is not JSON as an invalid response", async () => {
    const up = fakeUpstream((req) =>
      req.path === "/auth/token" ? tokenResponse() : new Response('{"link_id": "mk_', { status: 200 }),
    );
    const error = (await up.api.getLink("mk_1").catch((e: unknown) => e)) as UpstreamError;
    expect(error).toMatchObject({ kind: "invalid_response", errorMessage: "the body is not valid JSON" });
  });

  it("reports a refused connection as a network error", async () => {
    const client = new UpstreamClient({ baseUrl: "http://127.0.0.1:9", clientId: "c", clientSecret: "s" });
    const error = (await client.tokenStatus().catch((e: unknown) => e)) as UpstreamError;
    expect(error).toMatchObject({ kind: "network", endpoint: "POST /auth/token" });
  });

  it("checks reachability by opening a connection, without sending a request (the spec defines no health route)", async () => {
    let connections = 0;
    let bytes = 0;
    const server = createServer((socket) => {
      connections++;
      socket.on("data", (chunk) => (bytes += chunk.length));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const client = new UpstreamClient({ baseUrl: `http://127.0.0.1:${port}/`, clientId: "c", clientSecret: "s" });
      const result = await client.probe();
      expect(result.latencyMs).toBeGreaterThanOrEqual(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect({ connections, bytes }).toEqual({ connections: 1, bytes: 0 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("names a refused connection in the reachability check", async () => {
    const client = new UpstreamClient({ baseUrl: "http://127.0.0.1:9", clientId: "c", clientSecret: "s" });
    const error = (await client.probe().catch((e: unknown) => e)) as UpstreamError;
    expect(error).toMatchObject({ kind: "network", endpoint: "CONNECT 127.0.0.1:9" });
    expect(error.cause).toMatchObject({ code: "ECONNREFUSED" });
  });

  it("times out a slow call and never resends a POST that timed out", async () => {
    const slow = fakeUpstream(async (req) => {
      if (req.path === "/auth/token") return tokenResponse();
      await new Promise((r) => setTimeout(r, 500));
      return json(200, wireLink());
    });
    const error = (await slow.client
      .request({
        method: "POST",
        endpoint: "POST /links/import",
        path: "/links/import",
        body: {},
        schema: z.unknown(),
        timeoutMs: 50,
      })
      .catch((e: unknown) => e)) as UpstreamError;
    expect(error).toMatchObject({ kind: "timeout", endpoint: "POST /links/import" });
    expect(slow.calls("/links/import")).toHaveLength(1);
  });

  it("keeps credentials and tokens out of its errors", async () => {
    const up = fakeUpstream((req) =>
      req.path === "/auth/token"
        ? json(401, { error_code: "api_error.auth.unauthorized", error_message: "Unauthorized" })
        : json(200, {}),
    );
    const error = (await up.api.getLink("mk_1").catch((e: unknown) => e)) as UpstreamError;
    expect(error).toMatchObject({
      status: 401,
      errorCode: "api_error.auth.unauthorized",
      endpoint: "POST /auth/token",
    });
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain("secret_1");
  });
});

describe("UpstreamApi link observer", () => {
  it("hands every Link an answer carries to the observer, and a failing observer does not fail the call", async () => {
    const seen: string[] = [];
    const up = fakeUpstream((req) =>
      req.path === "/auth/token" ? tokenResponse() : json(200, wireLink({ link_id: "mk_observed" })),
    );
    const observed = new UpstreamApi(up.client, 30_000, async (links) => {
      seen.push(...links.map((l) => l.link_id));
    });
    await observed.getLink("mk_observed");
    expect(seen).toEqual(["mk_observed"]);

    const failing = new UpstreamApi(up.client, 30_000, async () => {
      throw new Error("database down");
    });
    await expect(failing.getLink("mk_observed")).resolves.toMatchObject({ link_id: "mk_observed" });
  });
});

describe("UpstreamClient and the rate budget", () => {
  /** A client whose gate records what it hears, on an upstream that answers `status` after minting a token. */
  function gatedClient(answer: () => Response | Promise<Response>) {
    const heard: string[] = [];
    const client = new UpstreamClient({
      baseUrl: "https://upstream.test",
      clientId: "client_1",
      clientSecret: "secret_1",
      timeoutMs: 50,
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        if (String(input).endsWith("/auth/token")) return tokenResponse();
        const signal = init?.signal;
        return Promise.race([
          answer(),
          new Promise<never>((_, reject) =>
            signal?.addEventListener("abort", () => reject(signal.reason), { once: true }),
          ),
        ]);
      }) as typeof fetch,
      gate: {
        reserve: async (endpoint) => void heard.push(`reserve ${endpoint}`),
        rateLimited: async (endpoint) => void heard.push(`rateLimited ${endpoint}`),
        declined: async (endpoint, scopes) =>
          void heard.push(`declined ${endpoint} ${scopes.products?.join(",") ?? ""}`),
      },
    });
    return { api: new UpstreamApi(client), heard: () => heard.filter((h) => !h.includes("/auth/token")) };
  }

  it("tells the budget a refresh was declined on any 4xx (a 429 also closes its keys), so the product's slot is given back", async () => {
    const tooSoon = gatedClient(() =>
      json(
        429,
        { error_code: "api_error.rate_limit_exceeded", error_message: "Rate limit exceeded" },
        { "Retry-After": "600" },
      ),
    );
    await expect(tooSoon.api.refreshProducts("mk_1", ["accounts", "accounts"])).rejects.toMatchObject({ status: 429 });
    expect(tooSoon.heard()).toEqual([
      "reserve POST /links/{id}/products",
      "rateLimited POST /links/{id}/products",
      "declined POST /links/{id}/products accounts",
    ]);

    const badState = gatedClient(() =>
      json(422, { error_code: "link_error.bad_state", error_message: "Not ready", link_error_code: "link_not_ready" }),
    );
    await expect(badState.api.refreshProducts("mk_1", ["transactions"])).rejects.toMatchObject({ status: 422 });
    expect(badState.heard()).toEqual([
      "reserve POST /links/{id}/products",
      "declined POST /links/{id}/products transactions",
    ]);
  });

  it("gives nothing back when the upstream may have done the work: a 5xx or no answer in time", async () => {
    const failing = gatedClient(() => json(503, { error_code: "api_error.internal", error_message: "Unavailable" }));
    await expect(failing.api.refreshProducts("mk_1", ["accounts"])).rejects.toMatchObject({ status: 503 });
    expect(failing.heard()).toEqual(["reserve POST /links/{id}/products"]);

    const silent = gatedClient(() => new Promise<Response>(() => undefined));
    await expect(silent.api.refreshProducts("mk_1", ["accounts"])).rejects.toMatchObject({ kind: "timeout" });
    expect(silent.heard()).toEqual(["reserve POST /links/{id}/products"]);
  });
});
