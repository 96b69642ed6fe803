// Requests that change something are checked at the door (proxy.ts) before Next.js decodes them: left to Next.js, a
// foreign origin, an oversized body, a truncated or deeply nested payload all end as a bare 500 carrying only an
// error digest. Here each gets a status and a sentence that says what is wrong.
//
// The checks come in two halves so that the door can put the session check between them: checkRequestHead reads only
// the request line and headers; checkRequestBody reads the body, as a stream that stops at the limit, and runs only
// for someone signed in or on a path that is public by design (sign-in, Auth.js, a webhook receiver). Nobody can make
// Linkdesk read a body by posting it anonymously to a page that needs a session.
//
// Next.js shows the text of a failed server action call to the person when the answer is `text/plain` with a 4xx or
// 5xx status (next/dist/client/components/router-reducer/reducers/server-action-reducer.js), so action refusals are
// plain text; route handlers under /api/ get JSON like their other errors.

/**
 * The largest body a server action accepts. next.config.mjs sets `experimental.serverActions.bodySizeLimit` to the
 * same value (request-guard.test.ts checks they agree), so Next.js never meets a body this guard let through.
 */
export const ACTION_BODY_LIMIT = { bytes: 1024 * 1024, label: "1 MB" } as const;

/**
 * The Import page's actions alone take an uploaded file (up to 25 MB, lib/import/limits.ts) plus its multipart framing.
 * next.config.mjs sets this larger value for Next.js (and its proxy buffer); this guard keeps every other path at 1 MB.
 */
export const UPLOAD_ACTION_BODY_LIMIT = { bytes: 26 * 1024 * 1024, label: "26 MB" } as const;
/** The Import page itself: its job pages and exports under /import/ take no upload. */
const UPLOAD_PATHS = /^\/import\/?$/;

/**
 * The admin page that registers a file of link ids (up to 2 MB: lib/schemas/discovery.ts) takes it plus its multipart
 * framing. Within the 26 MB Next.js is told, like the Import page's.
 */
export const REGISTER_UPLOAD_BODY_LIMIT = { bytes: 3 * 1024 * 1024, label: "3 MB" } as const;
const REGISTER_UPLOAD_PATHS = /^\/admin\/link-ids\/?$/;

export type BodyLimit = { bytes: number; label: string };
/**
 * The largest body a request to `pathname` may carry: the upload's on the Import page and on the link-id registration
 * page, 1 MB everywhere else, public paths included (Auth.js's sign-in under /api/auth, a webhook receiver under
 * /api/webhooks, the back end's registration at /api/links/register).
 */
export const bodyLimitFor = (pathname: string): BodyLimit =>
  UPLOAD_PATHS.test(pathname)
    ? UPLOAD_ACTION_BODY_LIMIT
    : REGISTER_UPLOAD_PATHS.test(pathname)
      ? REGISTER_UPLOAD_BODY_LIMIT
      : ACTION_BODY_LIMIT;

/** Linkdesk's own payloads nest a handful of levels; 64 leaves room and keeps a parser's recursion short. */
export const MAX_JSON_DEPTH = 64;

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/**
 * Auth.js guards its own POSTs with a CSRF token, and an identity provider may post its answer from its own site. The
 * webhook receiver and the back end's registration are called by servers, each with a credential a browser lacks.
 */
const OWN_CSRF_PROTECTION = /^\/api\/(auth\/|webhooks\/upstream$|links\/register$)/;
/**
 * Routes that read and judge their own bodies (the webhook receiver verifies a signature over the exact bytes and
 * counts every refusal on the Webhooks page): the door only holds them to the size limit.
 */
const OWN_BODY_CHECKS = /^\/api\/(webhooks\/upstream|links\/register)$/;
const ACTION_CONTENT_TYPES = new Set(["text/plain", "multipart/form-data"]);
// React's encoding of action arguments names its JSON parts with numbers ("0" is the root); form fields get a prefix.
const REPLY_PART = /^\d+$/;

export interface Refusal {
  status: 400 | 403 | 413;
  message: string;
}

/** The first problem with a request that changes something, or null when it may go on to Next.js. Both halves. */
export async function checkRequest(request: Request, pathname: string): Promise<Refusal | null> {
  return checkRequestHead(request, pathname) ?? (await checkRequestBody(request, pathname));
}

/** The problems a request's line and headers show (origin, declared length, content type); reads no body. */
export function checkRequestHead(request: Pick<Request, "method" | "headers">, pathname: string): Refusal | null {
  if (!UNSAFE_METHODS.has(request.method)) return null;

  if (!OWN_CSRF_PROTECTION.test(pathname)) {
    const foreign = foreignOrigin(request.headers);
    if (foreign) {
      return {
        status: 403,
        message: `Refused: this request came from another site (${foreign}). Linkdesk accepts changes only from its own pages.`,
      };
    }
  }

  const limit = bodyLimitFor(pathname);
  const declared = Number(request.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > limit.bytes) return tooLarge(declared, limit);

  const contentType = mediaType(request.headers.get("content-type"));
  if (request.headers.has("next-action") && !ACTION_CONTENT_TYPES.has(contentType)) {
    return {
      status: 400,
      message: `Refused: an action's body must be text/plain or multipart/form-data, not ${contentType ? contentType : "a body without a content type"}.`,
    };
  }
  return null;
}

/**
 * The problems of a request's body: over the limit (counted as it arrives, and no further), JSON cut off or nested too
 * deep. Call it after checkRequestHead, and only once the session check let the request through.
 */
export async function checkRequestBody(request: Request, pathname: string): Promise<Refusal | null> {
  if (!UNSAFE_METHODS.has(request.method)) return null;
  const limit = bodyLimitFor(pathname);
  const contentType = mediaType(request.headers.get("content-type"));
  if (request.headers.has("next-action")) {
    return contentType === "multipart/form-data" ? checkMultipart(request, limit) : checkJsonBody(request, limit);
  }
  if (contentType === "application/json" && !OWN_BODY_CHECKS.test(pathname)) return checkJsonBody(request, limit);
  // Any other body (Auth.js's form posts, a webhook's payload) is only counted: a declared length was checked with the
  // headers, and HTTP framing holds the body to it; a chunked one declares nothing, so it is read up to the limit.
  if (request.headers.has("content-length")) return null;
  const body = await boundedBody(request, limit);
  return isRefusal(body) ? body : null;
}

function tooLarge(bytes: number, limit: BodyLimit): Refusal {
  return {
    status: 413,
    message: `Refused: the request body is ${bytes.toLocaleString("en-US")} bytes, more than the ${limit.label} limit.`,
  };
}

/** The Origin's host when it is not this site's (as Next.js compares it: x-forwarded-host, else host); null otherwise. */
function foreignOrigin(headers: Headers): string | null {
  const origin = headers.get("origin");
  // Browsers send Origin on every cross-site POST; a request without one carries no cross-site cookies (SameSite=Lax).
  if (origin === null) return null;
  if (origin === "null") return "an opaque origin";
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return "an unreadable origin";
  }
  const ownHost = headers.get("x-forwarded-host")?.split(",")[0]?.trim() || headers.get("host");
  return ownHost && originHost === ownHost ? null : origin.slice(0, 200);
}

function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

const isRefusal = (value: Uint8Array<ArrayBuffer> | Refusal): value is Refusal => "status" in value;

/**
 * The body, read chunk by chunk from a copy of the request, and abandoned as soon as it passes the limit: a chunked
 * body declares no length, and reading it whole first (a 25 MB one, a dozen at once) is what the limit is there to
 * prevent.
 */
async function boundedBody(request: Request, limit: BodyLimit): Promise<Uint8Array<ArrayBuffer> | Refusal> {
  const reader = request.clone().body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit.bytes) {
      // Not awaited: a copy's cancel settles only once the original is cancelled too, and nobody reads that one.
      reader.cancel().catch(() => undefined);
      return { status: 413, message: `Refused: the request body is larger than the ${limit.label} limit.` };
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

async function checkJsonBody(request: Request, limit: BodyLimit): Promise<Refusal | null> {
  const body = await boundedBody(request, limit);
  if (isRefusal(body)) return body;
  return jsonProblem(new TextDecoder().decode(body));
}

async function checkMultipart(request: Request, limit: BodyLimit): Promise<Refusal | null> {
  const body = await boundedBody(request, limit);
  if (isRefusal(body)) return body;
  let form: FormData;
  try {
    form = await new Response(body, {
      headers: { "content-type": request.headers.get("content-type") ?? "" },
    }).formData();
  } catch {
    return {
      status: 400,
      message: "Refused: the request body is not valid multipart/form-data; it may have been cut off.",
    };
  }
  for (const [name, value] of form) {
    if (typeof value !== "string" || !REPLY_PART.test(name)) continue;
    const problem = jsonProblem(value);
    if (problem) return problem;
  }
  return null;
}

/** Why a text is not JSON Linkdesk will read, in words; null when it is fine. Depth is checked before parsing. */
export function jsonProblem(text: string): Refusal | null {
  if (text.trim() === "") return { status: 400, message: "Refused: the request body is empty; JSON was expected." };
  if (nestingDepthExceeds(text, MAX_JSON_DEPTH)) {
    return { status: 400, message: `Refused: the request body nests more than ${MAX_JSON_DEPTH} levels deep.` };
  }
  try {
    JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message.slice(0, 200) : "unreadable";
    return {
      status: 400,
      message: `Refused: the request body is not valid JSON (${detail}); it may have been cut off.`,
    };
  }
  return null;
}

/** True when brackets outside strings open deeper than `limit`; one pass, no recursion, whatever the input. */
export function nestingDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* \ */) i++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}
