// Errors and body handling shared by every route. Every failure leaves the server as an ApiError so that it is
// answered with the upstream's error envelope, whatever went wrong.
import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import { IMPORT_MAX_BYTES } from "./limits";

export interface ValidationIssue {
  location: (string | number)[];
  message: string;
  type: string;
}

export interface ErrorExtras {
  link_error_code?: string;
  validation_errors?: ValidationIssue[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extras: ErrorExtras = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const RATE_LIMIT_MESSAGE = "Rate limit exceeded. Use the Retry-After header value to decide when to retry.";

/** The error codes the sandbox emits, with their statuses; also served at GET /docs/errors. */
export const ERROR_CATALOG: readonly { code: string; status: number; message: string }[] = [
  {
    code: "api_error.auth.unauthorized",
    status: 401,
    message: "Invalid or missing credentials (400 on POST /auth/token for a bad grant_type).",
  },
  { code: "api_error.auth.expired_access_token", status: 401, message: "Access token expired" },
  { code: "api_error.request.malformed_json", status: 400, message: "The request body is not valid JSON." },
  {
    code: "api_error.request.validation_failed",
    status: 422,
    message: "Request validation error; validation_errors names the fields.",
  },
  {
    code: "api_error.request.too_large",
    status: 413,
    message: `The request body is larger than ${IMPORT_MAX_BYTES} bytes.`,
  },
  {
    code: "api_error.request.invalid_fault_header",
    status: 400,
    message: "Sandbox only: the X-Sandbox-Fault header could not be parsed.",
  },
  { code: "api_error.not_found", status: 404, message: "No such route." },
  {
    code: "api_error.method_not_allowed",
    status: 405,
    message: "The route exists but not for this method; see the Allow header.",
  },
  { code: "api_error.rate_limit_exceeded", status: 429, message: RATE_LIMIT_MESSAGE },
  { code: "api_error.internal", status: 500, message: "Internal error (sandbox: injected fault, any 5xx)." },
  { code: "link_error.not_found", status: 404, message: "Link not found." },
  { code: "link_error.deleted", status: 410, message: "This link was deleted at some earlier time." },
  { code: "link_error.forbidden_action", status: 403, message: "The end user did not give permission for this data." },
  {
    code: "link_error.bad_state",
    status: 422,
    message: "The link's state does not allow the call; link_error_code adds detail.",
  },
  {
    code: "link_error.bad_config",
    status: 400,
    message: "The link is not set up for the call (a test webhook for a link without a webhook).",
  },
  { code: "transaction_error.not_found", status: 404, message: "Transaction not found." },
  {
    code: "account_error.not_found",
    status: 404,
    message: "Sandbox choice (the spec names no code): the link has no account with that id.",
  },
  { code: "institution_error.not_found", status: 404, message: "Institution not found" },
  { code: "link_session_error.invalid_token_exchange", status: 400, message: "Invalid token for link" },
  { code: "link_session_error.not_found", status: 404, message: "Sandbox only: no such link session." },
  {
    code: "link_session_error.already_completed",
    status: 409,
    message: "Sandbox only: the link session was already completed.",
  },
];

export const apiErrors = {
  unauthorized: (message = "Invalid or missing credentials.") =>
    new ApiError(401, "api_error.auth.unauthorized", message),
  expiredToken: () => new ApiError(401, "api_error.auth.expired_access_token", "Access token expired"),
  malformedJson: (detail: string) =>
    new ApiError(400, "api_error.request.malformed_json", `Malformed JSON body: ${detail}`),
  validation: (issues: ValidationIssue[]) =>
    new ApiError(422, "api_error.request.validation_failed", "Request validation error", { validation_errors: issues }),
  tooLarge: (limit: number) =>
    new ApiError(
      413,
      "api_error.request.too_large",
      `Request body exceeds the limit of ${limit} bytes (1 MB); import accounts first and add transactions in batches.`,
    ),
  routeNotFound: (method: string, path: string) =>
    new ApiError(404, "api_error.not_found", `No route for ${method} ${path}.`),
  methodNotAllowed: (allowed: string[]) =>
    new ApiError(
      405,
      "api_error.method_not_allowed",
      `Method not allowed; use ${allowed.join(", ")}.`,
      {},
      {
        Allow: allowed.join(", "),
      },
    ),
  /** With `nowMs`, Retry-After is the HTTP-date of the first whole second at least that many seconds from now. */
  rateLimited: (retryAfterSeconds: number, nowMs?: number) =>
    new ApiError(
      429,
      "api_error.rate_limit_exceeded",
      RATE_LIMIT_MESSAGE,
      {},
      {
        "Retry-After":
          nowMs === undefined
            ? String(retryAfterSeconds)
            : new Date(Math.ceil((nowMs + retryAfterSeconds * 1000) / 1000) * 1000).toUTCString(),
      },
    ),
  internal: (status: number, why: string) => new ApiError(status, "api_error.internal", `Internal error (${why}).`),
  linkNotFound: () => new ApiError(404, "link_error.not_found", "Link not found."),
  linkDeleted: () => new ApiError(410, "link_error.deleted", "This link was deleted at some earlier time."),
  forbidden: (message: string) => new ApiError(403, "link_error.forbidden_action", message),
  badState: (linkErrorCode: string, message: string) =>
    new ApiError(422, "link_error.bad_state", message, { link_error_code: linkErrorCode }),
  badConfig: (message: string) => new ApiError(400, "link_error.bad_config", message),
  /** POST /links/{id}/products for a product refreshed too recently: 429, Retry-After in seconds. */
  refreshTooSoon: (message: string, retryAfterSeconds: number) =>
    new ApiError(
      429,
      "api_error.rate_limit_exceeded",
      `${message} Use the Retry-After header value to decide when to retry.`,
      {},
      {
        "Retry-After": String(retryAfterSeconds),
      },
    ),
  transactionNotFound: () => new ApiError(404, "transaction_error.not_found", "Transaction not found."),
  accountNotFound: () => new ApiError(404, "account_error.not_found", "Account not found."),
  institutionNotFound: () => new ApiError(404, "institution_error.not_found", "Institution not found"),
  invalidTokenExchange: (detail: string) =>
    new ApiError(400, "link_session_error.invalid_token_exchange", `Invalid token for link: ${detail}`),
};

/** An absolute http(s) address: what a webhook may be, as the sandbox delivers to it. */
export function isWebAddress(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

export function issue(location: (string | number)[], message: string, type: string): ValidationIssue {
  return { location, message, type };
}

/** FastAPI-style locations (`["body", "transactions", 3, "account_id"]`), as the upstream's validation errors are. */
export function issuesFromZod(error: z.ZodError, root: "body" | "query"): ValidationIssue[] {
  return error.issues.map((zodIssue) => ({
    location: [root, ...zodIssue.path.map((part) => (typeof part === "number" ? part : String(part)))],
    message: zodIssue.message,
    type: zodIssue.code,
  }));
}

export function parseWith<T extends z.ZodType>(
  schema: T,
  value: unknown,
  root: "body" | "query" = "body",
): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw apiErrors.validation(issuesFromZod(result.error, root));
  return result.data;
}

// Past the limit the body is counted but not kept; a sender that goes on far beyond it loses the connection rather
// than the server reading forever.
const HARD_CAP_FACTOR = 16;

/** Reads a request body, buffering at most `limit` bytes; throws 413 once the whole body has arrived. */
export function readBody(req: IncomingMessage, limit = IMPORT_MAX_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > limit * HARD_CAP_FACTOR) {
      req.destroy();
      reject(apiErrors.tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limit) {
        chunks.push(chunk);
      } else if (received > limit * HARD_CAP_FACTOR) {
        req.destroy();
      } else if (chunks.length > 0) {
        chunks.length = 0;
      }
    });
    let ended = false;
    req.on("end", () => {
      ended = true;
      if (received > limit) reject(apiErrors.tooLarge(limit));
      else resolve(Buffer.concat(chunks));
    });
    req.on("error", reject);
    // A client that hangs up mid-body (or is cut off above) must not leave the handler waiting forever.
    req.on("close", () => {
      if (ended) return;
      reject(received > limit ? apiErrors.tooLarge(limit) : apiErrors.malformedJson("the request body ended early"));
    });
  });
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw apiErrors.malformedJson("the body is empty; expected a JSON object");
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (error) {
    throw apiErrors.malformedJson(error instanceof Error ? error.message : "not JSON");
  }
}

export function envelopeOf(error: ApiError, baseUrl: string): Record<string, unknown> {
  return {
    error_code: error.code,
    error_message: error.message,
    documentation_url: `${baseUrl}/docs/errors#${error.code}`,
    ...(error.code === "link_error.bad_state" ? { link_error_code: error.extras.link_error_code ?? "unknown" } : {}),
    ...(error.extras.validation_errors ? { validation_errors: error.extras.validation_errors } : {}),
  };
}
