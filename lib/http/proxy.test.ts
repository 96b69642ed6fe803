import { NextRequest, type NextFetchEvent } from "next/server";
import { beforeAll, describe, expect, it, vi } from "vitest";

// proxy.ts, the door, called as Next.js calls it, with request bodies that count what is pulled from them: a body is
// never read for someone without a session on a page that needs one, and is read up to the limit and no further.

let session: { user: { id: string } } | null = null;
// Auth.js cannot load outside Next.js; its middleware wrapper only attaches the session (read from the cookie) here.
vi.mock("next-auth", () => ({
  default: () => ({
    auth:
      (handler: (request: NextRequest & { auth: unknown }, event: NextFetchEvent) => Promise<Response>) =>
      (request: NextRequest, event: NextFetchEvent) =>
        handler(Object.assign(request, { auth: session }), event),
  }),
}));

type Proxy = (request: NextRequest, event: NextFetchEvent) => Promise<Response>;
let proxy: Proxy;

beforeAll(async () => {
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: "http://127.0.0.1:9",
    UPSTREAM_CLIENT_ID: "proxy-test",
    UPSTREAM_CLIENT_SECRET: "proxy-test",
    AUTH_SECRET: "proxy-test-secret-0123456789abcdef0123456789",
    LOG_LEVEL: "silent",
  });
  const rootModule: string = "../../proxy";
  ({ proxy } = (await import(rootModule)) as { proxy: Proxy });
});

const ORIGIN = "http://127.0.0.1:3000";
const MB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** A body of `total` bytes in 64 KB chunks, produced only when pulled, that counts how many bytes were pulled. */
function countedBody(total: number) {
  const pulled = { bytes: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled.bytes >= total) return controller.close();
        pulled.bytes += CHUNK;
        controller.enqueue(new Uint8Array(CHUNK).fill(0x5b /* [ */));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled };
}

/** A POST as a browser sends a server action (or, with a content type, a form or a script's JSON), chunked. */
function post(path: string, body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) {
  const kind = headers["content-type"] ? {} : { "next-action": "7f00", "content-type": "text/plain;charset=UTF-8" };
  return new NextRequest(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { host: "127.0.0.1:3000", origin: ORIGIN, ...kind, ...headers },
    body,
    duplex: "half",
  } as ConstructorParameters<typeof NextRequest>[1]);
}

const event = {} as NextFetchEvent;
const call = (request: NextRequest) => proxy(request, event);

describe("bodies at the door", () => {
  it("never reads a body posted without a session to a page that needs one", async () => {
    session = null;
    const bodies = Array.from({ length: 12 }, () => countedBody(25 * MB));
    const answers = await Promise.all(bodies.map(({ stream }) => call(post("/links", stream))));
    for (const answer of answers) expect(answer.status).toBe(307);
    expect(bodies.map(({ pulled }) => pulled.bytes)).toEqual(Array(12).fill(0));
    const api = countedBody(25 * MB);
    const answer = await call(post("/api/jobs", api.stream, { "content-type": "application/json" }));
    expect(answer.status).toBe(401);
    expect(api.pulled.bytes).toBe(0);
  });

  it("reads a signed-in person's chunked bodies only up to the limit, then refuses with 413 in words", async () => {
    session = { user: { id: "00000000-0000-4000-8000-000000000001" } };
    const bodies = Array.from({ length: 12 }, () => countedBody(25 * MB));
    const answers = await Promise.all(bodies.map(({ stream }) => call(post("/links/mk_1", stream))));
    for (const answer of answers) {
      expect(answer.status).toBe(413);
      expect(answer.headers.get("content-type")).toBe("text/plain");
      expect(await answer.text()).toBe("Refused: the request body is larger than the 1 MB limit.");
    }
    // Up to the limit and the chunk that passed it (a copy of the body may pull one more ahead).
    for (const { pulled } of bodies) expect(pulled.bytes).toBeLessThanOrEqual(MB + 2 * CHUNK);
  });

  it("caps the public paths that take bodies the same way: Auth.js's endpoints, the sign-in page's actions", async () => {
    session = null;
    for (const [path, headers] of [
      ["/api/auth/callback/credentials", { "content-type": "application/x-www-form-urlencoded" }],
      ["/sign-in", {}],
    ] as const) {
      const { stream, pulled } = countedBody(25 * MB);
      const answer = await call(post(path, stream, headers));
      expect(answer.status, path).toBe(413);
      expect(pulled.bytes, path).toBeLessThanOrEqual(MB + 2 * CHUNK);
    }
  });

  it("refuses a declared length over the limit at once, reading nothing", async () => {
    session = null;
    const { stream, pulled } = countedBody(40 * MB);
    const answer = await call(
      post("/api/auth/callback/credentials", stream, {
        "content-length": String(40 * MB),
        "content-type": "application/x-www-form-urlencoded",
      }),
    );
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({
      error: "Refused: the request body is 41,943,040 bytes, more than the 1 MB limit.",
    });
    expect(pulled.bytes).toBe(0);
  });

  it("lets a signed-in person's well-formed action through", async () => {
    session = { user: { id: "00000000-0000-4000-8000-000000000001" } };
    const answer = await call(post("/links/mk_1", JSON.stringify([{ linkId: "mk_1" }])));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-middleware-next")).toBe("1");
  });
});

describe("addresses at the door", () => {
  it.each([
    ["/api/links/%ff%fe", "path", "a malformed %-escape (%ff%fe)"],
    ["/api/links/mk_%00", "path", "a NUL character (%00)"],
    ["/api/links/%ED%A0%80", "path", "a malformed %-escape (%ED%A0%80)"],
    ["/api/jobs?state=%E0%A4%A", "query", "a malformed %-escape"],
    ["/api/jobs?state=fail%00ed", "query", "a NUL character (%00)"],
  ])("refuses %s with 400 in words, signed in or not", async (path, where, what) => {
    for (const who of [null, { user: { id: "00000000-0000-4000-8000-000000000001" } }]) {
      session = who;
      const answer = await call(new NextRequest(`${ORIGIN}${path}`, { headers: { host: "127.0.0.1:3000" } }));
      expect(answer.status).toBe(400);
      const { error } = (await answer.json()) as { error: string };
      expect(error).toContain(`Refused: the address's ${where} holds ${what}`);
    }
  });

  it("answers a page's unreadable address in plain words too", async () => {
    session = { user: { id: "00000000-0000-4000-8000-000000000001" } };
    const answer = await call(new NextRequest(`${ORIGIN}/links?q=%00`, { headers: { host: "127.0.0.1:3000" } }));
    expect(answer.status).toBe(400);
    expect(answer.headers.get("content-type")).toBe("text/plain");
    expect(await answer.text()).toMatch(/^Refused: the address's query holds a NUL character/);
  });

  it("lets ordinary addresses through, escapes, Unicode and right-to-left marks included", async () => {
    session = { user: { id: "00000000-0000-4000-8000-000000000001" } };
    for (const path of ["/links?q=caf%C3%A9", "/links?q=%E2%80%8F%D7%90", "/links/mk_1?tag=a+b", "/api/links/mk%201"]) {
      const answer = await call(new NextRequest(`${ORIGIN}${path}`, { headers: { host: "127.0.0.1:3000" } }));
      expect(answer.status, path).toBe(200);
    }
  });
});
