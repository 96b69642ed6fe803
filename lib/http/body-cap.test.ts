import { type IncomingMessage, type Server, createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
// The code that buffers a body for proxy.ts, as `next start` runs it: the cap must work against this, not a stand-in.
// Should a Next.js upgrade move or change it, this test says so.
import { getCloneableBody } from "next/dist/server/body-streams";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_TICKET_HEADER, abandonRequestBody, capRequestBodies } from "./body-cap";
import { ACTION_BODY_LIMIT, UPLOAD_ACTION_BODY_LIMIT } from "./request-guard";

// A plain Node HTTP server stands in for Next.js's (both publish their requests on the same diagnostics channel) and
// handles each request as Next.js does around its proxy: a copy of the body buffered as it arrives, for the proxy,
// and an answer only once the body has ended. The answer says how many bytes reached those buffers.

const MB = 1024 * 1024;
/** The most one socket read hands the HTTP parser: what may pass beyond a limit before the cap stops a body. */
const SLACK = 256 * 1024;

let server: Server;
let port = 0;
const ticketsSeen: (string | undefined)[] = [];

beforeAll(async () => {
  capRequestBodies();
  server = createServer(async (request, response) => {
    ticketsSeen.push(request.headers[BODY_TICKET_HEADER] as string | undefined);
    const body = getCloneableBody(request, UPLOAD_ACTION_BODY_LIMIT.bytes);
    const forProxy = body.cloneBodyStream();
    // The proxy turning someone away without reading: as proxy.ts does for a request without a session.
    if (request.url?.startsWith("/turned-away")) abandonRequestBody(headersOf(request));
    let seen = 0;
    for await (const chunk of forProxy) seen += (chunk as Buffer).length;
    await body.finalize();
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ seen }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
  return headers;
}

/** POSTs `total` bytes chunked (no Content-Length); resolves with the answer and how long it took. */
/**
 * Posts `total` bytes in 64 kB chunks. The server may answer and close while the client still writes; on a loaded
 * machine the client's next write can fail (EPIPE, ECONNRESET) before it has read that answer. Such a request is sent
 * again (twice at most): every answer counted is still the server's own count of what it passed on.
 */
async function postChunked(
  path: string,
  total: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; seen: number; ms: number }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await postChunkedOnce(path, total, headers);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 3 || (code !== "EPIPE" && code !== "ECONNRESET")) throw error;
    }
  }
}

function postChunkedOnce(
  path: string,
  total: number,
  headers: Record<string, string>,
): Promise<{ status: number; seen: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { "transfer-encoding": "chunked", ...headers },
        agent: false,
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString()));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            seen: (JSON.parse(text) as { seen: number }).seen,
            ms: performance.now() - started,
          }),
        );
      },
    );
    // Once the answer is in, the server may close the connection on a body it no longer wants.
    request.on("error", (error) => (answered ? undefined : reject(error)));
    let answered = false;
    request.on("response", () => (answered = true));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const write = () => {
      while (sent < total && !answered) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", write);
      }
      request.end();
    };
    write();
  });
}

/** Sends only the head of a POST that declares `declared` bytes and never sends them. */
function postDeclaredOnly(path: string, declared: number): Promise<{ head: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
    });
    let head = "";
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString();
      if (head.includes("\r\n\r\n")) {
        resolve({ head, ms: performance.now() - started });
        socket.destroy();
      }
    });
    socket.on("error", reject);
  });
}

describe("bodies capped where they enter the process", () => {
  it("lets a body within its limit through whole", async () => {
    expect(await postChunked("/links", 320 * 1024)).toMatchObject({ status: 200, seen: 320 * 1024 });
    expect(await postChunked("/import", 25 * MB)).toMatchObject({ status: 200, seen: 25 * MB });
  });

  it("passes a dozen chunked 25 MB bodies only up to the 1 MB limit, and answers each", async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => postChunked("/links/mk_1", 25 * MB)));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.seen).toBeGreaterThan(ACTION_BODY_LIMIT.bytes);
      expect(answer.seen).toBeLessThanOrEqual(ACTION_BODY_LIMIT.bytes + SLACK);
    }
  });

  it("passes nothing of a body the proxy turned away, even on the Import page, and answers at once", async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => postChunked("/turned-away/import", 25 * MB)));
    for (const answer of answers) expect(answer.seen).toBe(0);
  });

  it("answers at once a request that declares 40 MB and sends none of it", async () => {
    const { head, ms } = await postDeclaredOnly("/links", 40 * MB);
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(ms).toBeLessThan(1_000);
  });

  it("hands out its own tickets: a client's is never taken", async () => {
    ticketsSeen.length = 0;
    await postChunked("/links", 1024, { [BODY_TICKET_HEADER]: "forged" });
    expect(ticketsSeen).toHaveLength(1);
    expect(ticketsSeen[0]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
