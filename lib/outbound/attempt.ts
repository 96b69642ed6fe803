import { STATUS_CODES } from "node:http";

// What one try of a delivery came to, in words for the delivery log, and whether to try again.

export interface AttemptResult {
  /** delivered: done. retry: try again later (if tries are left). failed: trying again would fail the same way. */
  outcome: "delivered" | "retry" | "failed";
  /** The HTTP status, or the mail server's reply code; null when no answer came. */
  status: number | null;
  /** What happened, in words. */
  detail: string;
  /** The receiver asked to wait this long (a 429's or 503's Retry-After). */
  retryAfterMs?: number;
}

/** "HTTP 503 (Service Unavailable)". */
export function httpStatusText(status: number): string {
  const name = STATUS_CODES[status];
  return name ? `HTTP ${status} (${name})` : `HTTP ${status}`;
}

/** "the mail server (…)" at the start of a sentence. */
export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A network failure in words, from the error a connection gave (Node's, undici's and nodemailer's codes). `where` is
 * a noun phrase in lower case: "the product's webhook (hooks.example.com)".
 */
export function describeNetworkError(error: unknown, where: string, timeoutMs: number): string {
  const startWhere = capitalized(where);
  if (isTimeout(error)) return `No answer from ${where} within ${formatSeconds(timeoutMs)}.`;
  const code = errorCode(error);
  switch (code) {
    case "ECONNREFUSED":
      return `${startWhere} refused the connection (nothing listens there, or a firewall says no).`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `${startWhere}: the host name could not be resolved.`;
    case "ECONNRESET":
    case "EPIPE":
    case "UND_ERR_SOCKET":
    case "UND_ERR_CLOSED":
      return `${startWhere} closed the connection before answering.`;
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
    case "UND_ERR_HEADERS_TIMEOUT":
      return `No answer from ${where} within ${formatSeconds(timeoutMs)}.`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `${startWhere} cannot be reached from this server (no route).`;
    default:
      if (code && /CERT|SSL|TLS/.test(code)) return `${startWhere}: the TLS connection failed (${code}).`;
      return `${startWhere} could not be reached${code ? ` (${code})` : ""}.`;
  }
}

export function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === "TimeoutError" || errorCode(error) === "ETIMEDOUT";
}

/**
 * The first error code along the cause chain: fetch wraps the socket's error in a TypeError, and nodemailer gives its
 * own code (ESOCKET) with the socket's as `originalCode`.
 */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const { code, originalCode } = current as { code?: unknown; originalCode?: unknown };
    if (typeof originalCode === "string") return originalCode;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
