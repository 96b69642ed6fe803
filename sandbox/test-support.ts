// Helpers for the sandbox's own tests: start a sandbox in-process on a free port and talk to it over HTTP, as the
// dashboard's client would.
import { expect } from "vitest";
import type { SandboxOverrides } from "./context";
import { SANDBOX_DEFAULTS } from "./defaults";
import { createSandbox, type Sandbox } from "./server";
import { errorEnvelopeShape } from "./wire-shapes";

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export interface TestSandbox {
  sandbox: Sandbox;
  base: string;
  /** A manual clock, when the sandbox was started with `clock: true`. */
  clock: { now: number; advance(ms: number): void };
  token(): Promise<string>;
  authHeaders(token?: string): Promise<Record<string, string>>;
  /** An authenticated call (fresh token cached per sandbox); `headers` override. */
  api(
    method: string,
    path: string,
    init?: { body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  /** A call without the auth headers. */
  raw(method: string, path: string, init?: { body?: string; headers?: Record<string, string> }): Promise<ApiResponse>;
  close(): Promise<void>;
}

export const TEST_CREDENTIALS = { clientId: SANDBOX_DEFAULTS.clientId, clientSecret: SANDBOX_DEFAULTS.clientSecret };

export async function startSandbox(options: SandboxOverrides & { clock?: boolean } = {}): Promise<TestSandbox> {
  const { clock: useClock, ...rest } = options;
  const clock = {
    now: Date.UTC(2026, 10, 20, 12, 0, 0),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const sandbox = createSandbox({
    links: 200,
    transactionsPerLink: 50,
    importDelayMs: 0,
    rateLimits: false,
    ...(useClock ? { now: () => clock.now } : {}),
    ...rest,
  });
  const base = await sandbox.listen(0, "127.0.0.1");
  let cachedToken: string | null = null;

  async function raw(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
    const response = await fetch(`${base}${path}`, { method, headers: init.headers, body: init.body });
    const text = await response.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  async function token(): Promise<string> {
    const response = await raw("POST", "/auth/token", {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: TEST_CREDENTIALS.clientId,
        client_secret: TEST_CREDENTIALS.clientSecret,
      }).toString(),
    });
    expect(response.status).toBe(201);
    return (response.json as { access_token: string }).access_token;
  }

  async function authHeaders(given?: string): Promise<Record<string, string>> {
    const bearer = given ?? (cachedToken ??= await token());
    return {
      Authorization: `Bearer ${bearer}`,
      "X-Client-Id": TEST_CREDENTIALS.clientId,
      "X-Client-Secret": TEST_CREDENTIALS.clientSecret,
    };
  }

  return {
    sandbox,
    base,
    clock,
    token,
    authHeaders,
    raw,
    async api(method, path, init = {}) {
      const send = async () => {
        const headers: Record<string, string> = { ...(await authHeaders()), ...init.headers };
        let body = init.rawBody;
        if (init.body !== undefined) {
          body = JSON.stringify(init.body);
          headers["Content-Type"] ??= "application/json";
        }
        return raw(method, path, { body, headers });
      };
      const response = await send();
      // As the dashboard's client does: one fresh token and one retry when the cached token has expired.
      if (
        response.status === 401 &&
        (response.json as { error_code?: string } | undefined)?.error_code === "api_error.auth.expired_access_token"
      ) {
        cachedToken = null;
        return send();
      }
      return response;
    },
    close: () => sandbox.close(),
  };
}

/** Asserts the upstream error envelope: the code, the status, and a documentation link for that code. */
export function expectError(response: ApiResponse, status: number, code: string): Record<string, unknown> {
  expect({ status: response.status, code: (response.json as { error_code?: string } | undefined)?.error_code }).toEqual(
    { status, code },
  );
  const envelope = errorEnvelopeShape.parse(response.json);
  expect(envelope.error_message.length).toBeGreaterThan(0);
  expect(envelope.documentation_url).toMatch(new RegExp(`/docs/errors#${code.replace(/\./g, "\\.")}$`));
  expect(response.headers.get("content-type")).toBe("application/json");
  if (code === "link_error.bad_state") expect(typeof envelope.link_error_code).toBe("string");
  else expect(response.json).not.toHaveProperty("link_error_code");
  return response.json as Record<string, unknown>;
}

/** The field names in a validation error's locations, e.g. ["body", "transactions", 3, "account_id"]. */
export function validationLocations(response: ApiResponse): string[] {
  const errors = (response.json as { validation_errors?: { location: (string | number)[] }[] }).validation_errors ?? [];
  return errors.map((error) => error.location.join("."));
}

export type Fixtures = Record<string, string[]>;

export async function fixtures(t: TestSandbox): Promise<Fixtures> {
  const response = await t.raw("GET", "/_sandbox/fixtures");
  expect(response.status).toBe(200);
  return response.json as Fixtures;
}

export function first(fixtureIds: Fixtures, role: string): string {
  const id = fixtureIds[role]?.[0];
  if (!id) throw new Error(`no seeded link with role ${role}`);
  return id;
}
