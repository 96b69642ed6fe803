// Requests that change something are checked at the door (proxy.ts) before Next.js decodes them: left to Next.js, a
// foreign origin, an oversized body, a truncated or deeply nested payload all end as a bare 500 carrying only an
// error digest. Here each gets a status and a sentence that says what is wrong.
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

type BodyLimit = { bytes: number; label: string };
const limitFor = (pathname: string): BodyLimit => (UPLOAD_PATHS.test(pathname) ? UPLOAD_ACTION_BODY_LIMIT : ACTION_BODY_LIMIT);

/** Linkdesk's own payloads nest a handful of levels; 64 leaves room and keeps a parser's recursion short. */
export const MAX_JSON_DEPTH = 64;

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Auth.js guards its own POSTs with a CSRF token, and an identity provider may post its answer from its own site. */
const OWN_CSRF_PROTECTION = /^\/api\/auth\//;
const ACTION_CONTENT_TYPES = new Set(["text/plain", "multipart/form-data"]);
// React's encoding of action arguments names its JSON parts with numbers ("0" is the root); form fields get a prefix.
const REPLY_PART = /^\d+$/;

export interface Refusal {
  status: 400 | 403 | 413;
  message: string;
}

/** The first problem with a request that changes something, or null when it may go on to Next.js. */
export async function checkRequest(request: Request, pathname: string): Promise<Refusal | null> {
  if (!UNSAFE_METHODS.has(request.method)) return null;

  if (!OWN_CSRF_PROTECTION.test(pathname)) {
    const foreign = foreignOrigin(request.headers);
    if (foreign) {
      return { status: 403, message: `Refused: this request came from another site (${foreign}). Linkdesk accepts changes only from its own pages.` };
    }
  }

  const limit = limitFor(pathname);
  const declared = Number(request.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > limit.bytes) return tooLarge(declared, limit);

  const contentType = mediaType(request.headers.get("content-type"));
  if (request.headers.has("next-action")) {
    if (!ACTION_CONTENT_TYPES.has(contentType)) {
      return {
        status: 400,
        message: `Refused: an action's body must be text/plain or multipart/form-data, not ${contentType ? contentType : "a body without a content type"}.`,
      };
    }
    return contentType === "multipart/form-data" ? checkMultipart(request, limit) : checkJsonBody(request, limit);
  }
  if (contentType === "application/json") return checkJsonBody(request, limit);
  return null;
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

const isRefusal = (value: ArrayBuffer | Refusal): value is Refusal => "status" in value;

async function boundedBody(request: Request, limit: BodyLimit): Promise<ArrayBuffer | Refusal> {
  // Chunked bodies declare no length: count what actually arrives.
  const body = await request.clone().arrayBuffer();
  return body.byteLength > limit.bytes ? tooLarge(body.byteLength, limit) : body;
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
    form = await new Response(body, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
  } catch {
    return { status: 400, message: "Refused: the request body is not valid multipart/form-data; it may have been cut off." };
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
    return { status: 400, message: `Refused: the request body is not valid JSON (${detail}); it may have been cut off.` };
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
