import { describe, expect, it } from "vitest";
import {
  ACTION_BODY_LIMIT,
  UPLOAD_ACTION_BODY_LIMIT,
  bodyLimitFor,
  checkRequestBody,
  checkRequestHead,
} from "./request-guard";

// The guard's two halves with bodies that count the bytes pulled from them: the head reads none, the body stops at
// the limit whatever the body's size, kind or path.

const ORIGIN = "http://127.0.0.1:3000";
const MB = 1024 * 1024;
const CHUNK = 64 * 1024;

function countedBody(total: number) {
  const pulled = { bytes: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled.bytes >= total) return controller.close();
        pulled.bytes += CHUNK;
        controller.enqueue(new Uint8Array(CHUNK).fill(0x7b /* { */));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled };
}

function post(path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string>) {
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { host: "127.0.0.1:3000", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("the guard's halves", () => {
  it("reads no body to check the head, and refuses a declared length over the limit from the header alone", () => {
    const { stream, pulled } = countedBody(40 * MB);
    expect(
      checkRequestHead(
        post("/api/webhooks/upstream", stream, {
          "content-length": String(40 * MB),
          "content-type": "application/json",
        }),
        "/api/webhooks/upstream",
      ),
    ).toEqual({
      status: 413,
      message: "Refused: the request body is 41,943,040 bytes, more than the 1 MB limit.",
    });
    expect(pulled.bytes).toBe(0);
  });

  it.each([
    ["a webhook's JSON", "/api/webhooks/upstream", { "content-type": "application/json" }],
    ["an Auth.js form post", "/api/auth/callback/credentials", { "content-type": "application/x-www-form-urlencoded" }],
    [
      "an action's multipart body",
      "/links",
      { "next-action": "7f00", "content-type": "multipart/form-data; boundary=b" },
    ],
    ["a body of no declared kind", "/api/webhooks/upstream", {}],
  ])("stops reading %s at the 1 MB limit, a dozen at once", async (_kind, path, headers) => {
    const bodies = Array.from({ length: 12 }, () => countedBody(25 * MB));
    const refusals = await Promise.all(bodies.map(({ stream }) => checkRequestBody(post(path, stream, headers), path)));
    for (const refusal of refusals)
      expect(refusal).toEqual({ status: 413, message: "Refused: the request body is larger than the 1 MB limit." });
    for (const { pulled } of bodies) expect(pulled.bytes).toBeLessThanOrEqual(ACTION_BODY_LIMIT.bytes + 2 * CHUNK);
  });

  it("gives the Import page its upload's limit and no more", async () => {
    expect(bodyLimitFor("/import")).toBe(UPLOAD_ACTION_BODY_LIMIT);
    expect(bodyLimitFor("/api/webhooks/upstream")).toBe(ACTION_BODY_LIMIT);
    const { stream, pulled } = countedBody(40 * MB);
    const refusal = await checkRequestBody(
      post("/import", stream, { "next-action": "7f00", "content-type": "multipart/form-data; boundary=b" }),
      "/import",
    );
    expect(refusal).toEqual({ status: 413, message: "Refused: the request body is larger than the 26 MB limit." });
    expect(pulled.bytes).toBeLessThanOrEqual(UPLOAD_ACTION_BODY_LIMIT.bytes + 2 * CHUNK);
  });

  it("reads nothing of a form post whose declared length is within the limit (HTTP framing holds it to that)", async () => {
    const { stream, pulled } = countedBody(CHUNK);
    const request = post("/api/auth/callback/credentials", stream, {
      "content-type": "application/x-www-form-urlencoded",
      "content-length": String(CHUNK),
    });
    expect(await checkRequestBody(request, "/api/auth/callback/credentials")).toBeNull();
    expect(pulled.bytes).toBe(0);
  });
});
