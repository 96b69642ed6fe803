import { describe, expect, it } from "vitest";
import { REGISTER_FILE_MAX_BYTES } from "../schemas/discovery";
import {
  ACTION_BODY_LIMIT,
  MAX_JSON_DEPTH,
  REGISTER_UPLOAD_BODY_LIMIT,
  UPLOAD_ACTION_BODY_LIMIT,
  checkRequest,
  jsonProblem,
  nestingDepthExceeds,
} from "./request-guard";

const ORIGIN = "http://127.0.0.1:3000";

function action(body: BodyInit, headers: Record<string, string> = {}) {
  // A FormData body brings its own multipart content type and boundary, as the browser's does.
  const contentType: Record<string, string> =
    body instanceof FormData ? {} : { "content-type": "text/plain;charset=UTF-8" };
  return new Request(`${ORIGIN}/links/mk_1`, {
    method: "POST",
    headers: { host: "127.0.0.1:3000", origin: ORIGIN, "next-action": "7f00", ...contentType, ...headers },
    body,
  });
}

describe("checkRequest", () => {
  it("lets reads and well-formed actions through", async () => {
    expect(await checkRequest(new Request(`${ORIGIN}/links`), "/links")).toBeNull();
    expect(await checkRequest(action(JSON.stringify([{ linkId: "mk_1" }])), "/links/mk_1")).toBeNull();
    const form = new FormData();
    form.set("0", '["$K1"]');
    form.set("1_email", "not json, a form field");
    expect(await checkRequest(action(form), "/sign-in")).toBeNull();
  });

  it("refuses a change from another site, naming it, but leaves Auth.js its own CSRF check", async () => {
    const refusal = await checkRequest(action("[]", { origin: "https://evil.example" }), "/links/mk_1");
    expect(refusal).toEqual({ status: 403, message: expect.stringContaining("another site (https://evil.example)") });
    expect(await checkRequest(action("[]", { origin: "null" }), "/links/mk_1")).toMatchObject({ status: 403 });
    // A proxy that forwards the public host: the origin matches it.
    expect(
      await checkRequest(
        action("[]", { origin: "https://desk.example.com", "x-forwarded-host": "desk.example.com" }),
        "/links/mk_1",
      ),
    ).toBeNull();
    const authPost = new Request(`${ORIGIN}/api/auth/callback/oidc`, {
      method: "POST",
      headers: { origin: "https://idp.example", host: "127.0.0.1:3000" },
      body: "code=1",
    });
    expect(await checkRequest(authPost, "/api/auth/callback/oidc")).toBeNull();
  });

  it("refuses a body over the limit with 413 naming the limit, declared or not", async () => {
    const big = "x".repeat(5 * 1024 * 1024);
    const declared = await checkRequest(action(big, { "content-length": String(big.length) }), "/links/mk_1");
    expect(declared).toEqual({
      status: 413,
      message: "Refused: the request body is 5,242,880 bytes, more than the 1 MB limit.",
    });
    expect(await checkRequest(action(`["${big}"]`), "/links/mk_1")).toMatchObject({
      status: 413,
      message: expect.stringContaining("1 MB limit"),
    });
  });

  it("refuses truncated, deeply nested or empty JSON with 400 saying what is wrong", async () => {
    expect(await checkRequest(action('[{"linkId":"mk_'), "/links/mk_1")).toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /^Refused: the request body is not valid JSON \(.+\); it may have been cut off\.$/,
      ),
    });
    expect(await checkRequest(action(`${"[".repeat(5000)}${"]".repeat(5000)}`), "/links/mk_1")).toEqual({
      status: 400,
      message: `Refused: the request body nests more than ${MAX_JSON_DEPTH} levels deep.`,
    });
    expect(await checkRequest(action(""), "/links/mk_1")).toMatchObject({
      status: 400,
      message: expect.stringContaining("empty"),
    });
  });

  it("refuses an action body of the wrong content type, and checks the JSON parts of a multipart action", async () => {
    expect(await checkRequest(action("[]", { "content-type": "application/xml" }), "/links/mk_1")).toEqual({
      status: 400,
      message: "Refused: an action's body must be text/plain or multipart/form-data, not application/xml.",
    });
    const form = new FormData();
    form.set("0", '{"a":');
    expect(await checkRequest(action(form), "/sign-in")).toMatchObject({ status: 400 });
    const cut = action('--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n[1', {
      "content-type": "multipart/form-data; boundary=x",
    });
    expect(await checkRequest(cut, "/sign-in")).toMatchObject({
      status: 400,
      message: expect.stringContaining("multipart"),
    });
  });

  it("checks JSON posted to a route handler too", async () => {
    const request = new Request(`${ORIGIN}/api/jobs`, {
      method: "POST",
      headers: { host: "127.0.0.1:3000", "content-type": "application/json" },
      body: "{",
    });
    expect(await checkRequest(request, "/api/jobs")).toMatchObject({ status: 400 });
  });
});

describe("the limits", () => {
  it("allow the Import page's upload and nothing that large anywhere else", async () => {
    const big = (path: string) =>
      new Request(`${ORIGIN}${path}`, {
        method: "POST",
        headers: {
          host: "127.0.0.1:3000",
          "next-action": "x",
          "content-type": "multipart/form-data; boundary=b",
          "content-length": String(5 * 1024 * 1024),
        },
        body: "x",
      });
    expect(await checkRequest(big("/links"), "/links")).toMatchObject({
      status: 413,
      message: expect.stringContaining("1 MB limit"),
    });
    const upload = await checkRequest(big("/import"), "/import");
    expect(upload?.status).not.toBe(413);
    // Only the page that takes the file: an import's own pages and exports keep the 1 MB limit.
    expect(
      await checkRequest(
        big("/import/00000000-0000-4000-8000-000000000000/export"),
        "/import/00000000-0000-4000-8000-000000000000/export",
      ),
    ).toMatchObject({ status: 413 });
  });

  it("allow the link-id registration page a file of up to 2 MB and its framing, and no more", async () => {
    const post = (path: string, bytes: number) =>
      new Request(`${ORIGIN}${path}`, {
        method: "POST",
        headers: {
          host: "127.0.0.1:3000",
          "next-action": "x",
          "content-type": "multipart/form-data; boundary=b",
          "content-length": String(bytes),
        },
        body: "x",
      });
    expect(REGISTER_UPLOAD_BODY_LIMIT.bytes).toBeGreaterThanOrEqual(REGISTER_FILE_MAX_BYTES + 64 * 1024);
    expect(REGISTER_UPLOAD_BODY_LIMIT.bytes).toBeLessThan(UPLOAD_ACTION_BODY_LIMIT.bytes);
    expect(
      (await checkRequest(post("/admin/link-ids", REGISTER_FILE_MAX_BYTES + 10_000), "/admin/link-ids"))?.status,
    ).not.toBe(413);
    expect(await checkRequest(post("/admin/link-ids", 5 * 1024 * 1024), "/admin/link-ids")).toMatchObject({
      status: 413,
      message: expect.stringContaining("3 MB limit"),
    });
    expect(await checkRequest(post("/admin/staff", REGISTER_FILE_MAX_BYTES), "/admin/staff")).toMatchObject({
      status: 413,
      message: expect.stringContaining("1 MB limit"),
    });
    // The back end's endpoint takes at most 1 MB, like every other route.
    const json = new Request(`${ORIGIN}/api/links/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) },
      body: "x",
    });
    expect(await checkRequest(json, "/api/links/register")).toMatchObject({ status: 413 });
  });

  it("match the server-action body limit Next.js enforces behind the guard", async () => {
    const configPath: string = "../../next.config.mjs";
    const { default: nextConfig } = (await import(configPath)) as {
      default: { experimental?: { serverActions?: { bodySizeLimit?: string } } };
    };
    const configured = nextConfig.experimental?.serverActions?.bodySizeLimit;
    const match = /^(\d+)mb$/i.exec(configured ?? "");
    expect(match, "next.config.mjs sets experimental.serverActions.bodySizeLimit in mb").toBeTruthy();
    // Next.js gets the largest (the upload's); the guard holds every other path to ACTION_BODY_LIMIT.
    expect(Number(match![1]) * 1024 * 1024).toBe(UPLOAD_ACTION_BODY_LIMIT.bytes);
    expect(UPLOAD_ACTION_BODY_LIMIT.label).toBe(`${match![1]} MB`);
    expect(ACTION_BODY_LIMIT.bytes).toBeLessThan(UPLOAD_ACTION_BODY_LIMIT.bytes);
  });

  it("measures depth without being fooled by brackets inside strings", () => {
    expect(nestingDepthExceeds(`["${"[".repeat(100)}"]`, 2)).toBe(false);
    expect(nestingDepthExceeds('[[["\\"[["]]]', 2)).toBe(true);
    expect(jsonProblem('{"a":[1,2,{"b":null}]}')).toBeNull();
  });
});
