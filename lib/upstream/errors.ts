// One error class for everything that can go wrong talking to the upstream. Pure module (no server-only): pages and
// error boundaries turn it into words with describeUpstreamError.
import { brandError, hasErrorBrand } from "../error-brand";

export type UpstreamErrorKind =
  /** The upstream answered with an error status (its envelope, when it sent one, is in errorCode/errorMessage). */
  | "http"
  /** No answer within the timeout. For a POST the call may still have been processed upstream. */
  | "timeout"
  /** Connection refused, DNS failure, reset: the upstream could not be reached. */
  | "network"
  /** The upstream answered 2xx with a body that does not match the wire schema (or is not JSON). */
  | "invalid_response";

export interface UpstreamErrorInit {
  kind: UpstreamErrorKind;
  endpoint: string;
  status?: number;
  errorCode?: string;
  errorMessage?: string;
  linkErrorCode?: string;
  documentationUrl?: string;
  retryAfter?: Date;
  retryAfterHeader?: string;
  field?: string;
  correlationId?: string;
  cause?: unknown;
}

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  /** Route template, e.g. "GET /links/{id}". */
  readonly endpoint: string;
  readonly status?: number;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly linkErrorCode?: string;
  readonly documentationUrl?: string;
  /** When the upstream allows the next call (from Retry-After), for 429s. */
  readonly retryAfter?: Date;
  /** Retry-After as the upstream wrote it (seconds or HTTP-date), for the record. */
  readonly retryAfterHeader?: string;
  /** The first field of a response that failed validation, as a dotted path. */
  readonly field?: string;
  readonly correlationId?: string;

  constructor(init: UpstreamErrorInit) {
    super(summarize(init), { cause: init.cause });
    this.name = "UpstreamError";
    this.kind = init.kind;
    this.endpoint = init.endpoint;
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.errorMessage = init.errorMessage;
    this.linkErrorCode = init.linkErrorCode;
    this.documentationUrl = init.documentationUrl;
    this.retryAfter = init.retryAfter;
    this.retryAfterHeader = init.retryAfterHeader;
    this.field = init.field;
    this.correlationId = init.correlationId;
    brandError(this, "UpstreamError");
  }
}

function summarize(init: UpstreamErrorInit): string {
  switch (init.kind) {
    case "timeout":
      return `${init.endpoint}: no answer from the upstream in time`;
    case "network":
      return `${init.endpoint}: upstream unreachable`;
    case "invalid_response":
      return `${init.endpoint}: unexpected response${init.field !== undefined ? ` at field "${init.field}"` : ""}${
        init.errorMessage ? `: ${init.errorMessage}` : ""
      }`;
    case "http":
      return `${init.endpoint}: HTTP ${init.status}${init.errorCode ? ` ${init.errorCode}` : ""}${
        init.errorMessage ? `: ${init.errorMessage}` : ""
      }`;
  }
}

/** Whether `error` is an UpstreamError, whichever server chunk's copy of the class made it (never use instanceof). */
export function isUpstreamError(error: unknown): error is UpstreamError {
  return hasErrorBrand(error, "UpstreamError");
}

/**
 * A plain-words explanation of an upstream failure for staff. Upstream text is included as text only; callers render
 * it escaped. Never contains credentials or tokens (the error never holds them).
 */
export function describeUpstreamError(error: UpstreamError): { title: string; detail: string } {
  switch (error.kind) {
    case "timeout":
      return {
        title: "The upstream did not answer in time",
        detail: `${error.endpoint} got no answer before the timeout. The upstream may be slow or overloaded; try again shortly.`,
      };
    case "network":
      return {
        title: "The upstream cannot be reached",
        detail: `${error.endpoint} could not connect (${causeText(error)}). Check that the upstream is running and UPSTREAM_BASE_URL is right.`,
      };
    case "invalid_response":
      return {
        title: "The upstream answered with data Linkdesk does not understand",
        detail: `${error.endpoint} returned a response that does not match the API contract${
          error.field !== undefined
            ? ` (field "${error.field}"${error.errorMessage ? `: ${error.errorMessage}` : ""})`
            : error.errorMessage
              ? ` (${error.errorMessage})`
              : ""
        }. Nothing was changed on Linkdesk's side.`,
      };
    case "http":
      return describeHttp(error);
  }
}

const codeTitles: Record<string, string> = {
  "api_error.auth.unauthorized": "The upstream refused Linkdesk's client credentials",
  "api_error.auth.expired_access_token": "The upstream access token expired and could not be renewed",
  "api_error.rate_limit_exceeded": "The upstream's rate limit was reached",
  "link_error.not_found": "This link does not exist upstream",
  "link_error.deleted": "This link was deleted",
  "link_error.forbidden_action": "The end user did not permit this data for the link",
  "link_error.bad_state": "The link is in a state that does not allow this",
  "link_error.unauthorized_access": "Linkdesk's credentials may not access this link",
  "link_session_error.invalid_token_exchange": "The token cannot be exchanged",
  "link_session_error.forbidden_config":
    "The upstream's configuration for this app forbids this link session (check LINK_SESSION_REDIRECT_URI against the app's registered redirect URIs)",
};

function describeHttp(error: UpstreamError): { title: string; detail: string } {
  const title =
    (error.errorCode && codeTitles[error.errorCode]) ??
    (error.status !== undefined && error.status >= 500
      ? `The upstream had an internal error (HTTP ${error.status})`
      : `The upstream refused the request (HTTP ${error.status})`);
  const parts = [error.errorMessage, error.linkErrorCode ? `Reason: ${error.linkErrorCode}.` : undefined];
  if (error.retryAfter) parts.push(`Next attempt allowed at ${error.retryAfter.toISOString()}.`);
  if (error.status !== undefined && error.status >= 500)
    parts.push("This is on the upstream's side; try again shortly.");
  return { title, detail: parts.filter(Boolean).join(" ") || `${error.endpoint} answered HTTP ${error.status}.` };
}

function causeText(error: UpstreamError): string {
  const cause = error.cause as { code?: string; cause?: { code?: string }; message?: string } | undefined;
  return cause?.cause?.code ?? cause?.code ?? cause?.message ?? "connection failed";
}
