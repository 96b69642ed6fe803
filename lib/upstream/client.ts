import "server-only";
import { randomUUID } from "node:crypto";
import { isIP, connect as connectTcp } from "node:net";
import { connect as connectTls } from "node:tls";
import type { z } from "zod";
import { UpstreamError, isUpstreamError } from "./errors";
import { parseRetryAfter } from "./retry-after";
import type { RateLimitScope } from "./rate-limits";
import { type ReadNotice, describeIssue, noticing } from "./reading";
import { accessTokenResponseSchema, errorEnvelopeSchema, type Product } from "./schemas";

// The one door to the upstream: base URL, client credentials, the access token, timeouts, error parsing and response
// validation live here and nowhere else.

export interface UpstreamCallLog {
  correlationId: string;
  endpoint: string;
  method: string;
  path: string;
  status?: number;
  errorCode?: string;
  durationMs: number;
  attempt: number;
}

/** Ids that pick a call's rate-limit keys: the link of a link-scoped call, the end user of a link session. */
export interface CallScopes {
  linkId?: string;
  userId?: string;
  relink?: boolean;
  /** The products a refresh asks for (POST /links/{id}/products): the upstream allows one refresh per product per interval. */
  products?: readonly Product[];
}

/** Queued: waits its turn. Interactive: waits a little, then is refused. View: refused at once when there is no room. */
export type CallMode = "interactive" | "queued" | "view";

/**
 * What a queued call waits for, as the rate budget tells it: the limit (the spec's endpoint and scope, never the key's
 * ids) with no room now, and when its next slot frees. "closed": the upstream answered 429 and the limit is shut until
 * its Retry-After.
 */
export interface BudgetWait {
  endpoint: string;
  scope: RateLimitScope;
  reason: "full" | "closed";
  nextSlotAt: Date;
}

/**
 * The rate budget as the client sees it: a slot is reserved before every call is sent (or the call is refused), and
 * a 429 is reported so the budget closes the call's keys.
 */
export interface CallGate {
  reserve(
    endpoint: string,
    scopes: CallScopes,
    opts: { mode?: CallMode; signal?: AbortSignal; onWait?: (wait: BudgetWait) => void },
  ): Promise<unknown>;
  rateLimited(
    endpoint: string,
    scopes: CallScopes,
    retryAt: Date | undefined,
    retryAfterHeader: string | null,
  ): Promise<void>;
  /**
   * The upstream declined the call (a 4xx answer, 429 included): it did nothing. A slot that stands for something
   * done rather than a call sent (a product refresh) is given back.
   */
  declined?(endpoint: string, scopes: CallScopes): Promise<void>;
}

export interface UpstreamClientConfig {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Opens a connection to the upstream's host and closes it (the reachability check); TCP, plus TLS for https. */
  connect?: (url: URL, timeoutMs: number) => Promise<void>;
  now?: () => number;
  /** Receives one record per HTTP exchange (never headers or bodies). */
  onCall?: (call: UpstreamCallLog) => void;
  /**
   * Receives what reading an answer noticed: values outside the lists Linkdesk knows, items set aside, or (kind
   * unreadable, no item id) the field that made a whole answer unreadable. Never the body.
   */
  onRead?: (notices: ReadNotice[], call: { endpoint: string; correlationId: string }) => void;
  gate?: CallGate;
}

export interface UpstreamRequest<S extends z.ZodType> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Route template as in the spec's tables, e.g. "GET /links/{id}": used in errors, logs and rate budgets. */
  endpoint: string;
  path: string;
  query?: Record<string, string | number | string[] | undefined>;
  body?: unknown;
  schema: S;
  timeoutMs?: number;
  correlationId?: string;
  scopes?: CallScopes;
  /** Interactive calls are refused when the budget has no room soon; queued ones wait their turn. */
  mode?: CallMode;
  /** Stops waiting for a budget slot. A request already sent is never aborted: its outcome would be unknown. */
  signal?: AbortSignal;
  /** A queued call hears each time it has to wait for a slot, on which limit and until when. */
  onWait?: (wait: BudgetWait) => void;
  /**
   * Runs after the budget slot is reserved and right before the request goes out; throwing stops the call unsent. A
   * durable job records "sent" here, so a crash after this point is known to need checking before any resend.
   */
  beforeSend?: () => Promise<void>;
}

export interface TokenStatus {
  expiresAt: Date;
}

interface CachedToken {
  value: string;
  expiresAt: number;
  renewAt: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export class UpstreamClient {
  readonly baseUrl: string;
  private readonly clientId: string;
  private readonly clientSecret: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly connectImpl: (url: URL, timeoutMs: number) => Promise<void>;
  private readonly now: () => number;
  private readonly onCall?: (call: UpstreamCallLog) => void;
  private readonly onRead?: UpstreamClientConfig["onRead"];
  private readonly gate?: CallGate;
  private token?: CachedToken;
  private minting?: Promise<CachedToken>;

  constructor(config: UpstreamClientConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, "");
    this.clientId = config.clientId;
    this.clientSecret = config.clientSecret;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetchImpl = config.fetch ?? fetch;
    this.connectImpl = config.connect ?? openAndClose;
    this.now = config.now ?? Date.now;
    this.onCall = config.onCall;
    this.onRead = config.onRead;
    this.gate = config.gate;
  }

  /** Obtains (or reuses) an access token and says until when it is valid. The token itself never leaves this class. */
  async tokenStatus(): Promise<TokenStatus> {
    const token = await this.accessToken();
    return { expiresAt: new Date(token.expiresAt) };
  }

  /**
   * Reachability: a connection to the upstream's host opens (TCP, and the TLS handshake for https), then closes at
   * once. No HTTP request is sent: the spec defines no health route, and a request to a route it does not define
   * (GET /) is a stray call the upstream answers 404 to. Nor does it spend any rate limit.
   */
  async probe(timeoutMs = 3_000): Promise<{ latencyMs: number }> {
    const started = this.now();
    const url = new URL(this.baseUrl);
    try {
      await this.connectImpl(url, timeoutMs);
      return { latencyMs: this.now() - started };
    } catch (cause) {
      const timedOut = cause instanceof Error && cause.name === "TimeoutError";
      throw new UpstreamError({ kind: timedOut ? "timeout" : "network", endpoint: `CONNECT ${url.host}`, cause });
    }
  }

  async request<S extends z.ZodType>(req: UpstreamRequest<S>): Promise<z.infer<S>> {
    const correlationId = req.correlationId ?? randomUUID();
    const token = await this.accessToken(correlationId);
    try {
      return await this.send(req, token.value, correlationId, 1);
    } catch (error) {
      // An expired token means the upstream processed nothing, so repeating this one call with a fresh token is safe
      // even for a POST. Any other failure is final here: a POST that timed out may have been processed (an import
      // sent twice makes two links), so nothing is resent blindly.
      if (!isUpstreamError(error) || error.errorCode !== "api_error.auth.expired_access_token") throw error;
      this.forget(token);
      const fresh = await this.accessToken(correlationId);
      return this.send(req, fresh.value, correlationId, 2);
    }
  }

  private forget(token: CachedToken): void {
    // Only drop the token that failed: a concurrent call may already have minted its successor.
    if (this.token === token) this.token = undefined;
  }

  private async accessToken(correlationId: string = randomUUID()): Promise<CachedToken> {
    if (this.token && this.now() < this.token.renewAt) return this.token;
    // One mint at a time: concurrent calls share it instead of each spending the per-client token limit.
    this.minting ??= this.mint(correlationId).finally(() => {
      this.minting = undefined;
    });
    this.token = await this.minting;
    return this.token;
  }

  private async mint(correlationId: string): Promise<CachedToken> {
    const endpoint = "POST /auth/token";
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: this.clientId,
      client_secret: this.clientSecret,
    });
    await this.gate?.reserve(endpoint, {}, { mode: "interactive" });
    const issuedAt = this.now();
    const body = await this.gated(endpoint, {}, () =>
      this.exchange({
        endpoint,
        method: "POST",
        url: `${this.baseUrl}/auth/token`,
        headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
        body: form.toString(),
        timeoutMs: this.timeoutMs,
        correlationId,
        attempt: 1,
      }),
    );
    const parsed = this.validate(accessTokenResponseSchema, body, endpoint, correlationId);
    const lifetimeMs = parsed.expires_in * 1000;
    // Renew shortly before expiry (a minute, or a tenth of a short lifetime) so no call carries a token that dies in flight.
    const margin = Math.min(60_000, lifetimeMs / 10);
    return { value: parsed.access_token, expiresAt: issuedAt + lifetimeMs, renewAt: issuedAt + lifetimeMs - margin };
  }

  private async send<S extends z.ZodType>(
    req: UpstreamRequest<S>,
    accessToken: string,
    correlationId: string,
    attempt: number,
  ): Promise<z.infer<S>> {
    const url = new URL(this.baseUrl + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
    }
    const headers: Record<string, string> = {
      Authorization: `Bearer ${accessToken}`,
      "X-Client-Id": this.clientId,
      "X-Client-Secret": this.clientSecret,
      Accept: "application/json",
      "X-Request-Id": correlationId,
    };
    if (req.body !== undefined) headers["Content-Type"] = "application/json";
    const scopes = req.scopes ?? {};
    await this.gate?.reserve(req.endpoint, scopes, { mode: req.mode, signal: req.signal, onWait: req.onWait });
    await req.beforeSend?.();
    const body = await this.gated(req.endpoint, scopes, () =>
      this.exchange({
        endpoint: req.endpoint,
        method: req.method,
        url: url.toString(),
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        timeoutMs: req.timeoutMs ?? this.timeoutMs,
        correlationId,
        attempt,
      }),
    );
    return this.validate(req.schema, body, req.endpoint, correlationId);
  }

  /**
   * Reads an answer with its schema. What the reading noticed goes to onRead; an answer that cannot be read at all
   * throws, naming the field and what was there (never the body).
   */
  private validate<S extends z.ZodType>(schema: S, body: unknown, endpoint: string, correlationId: string): z.infer<S> {
    const { result, notices } = noticing(() => schema.safeParse(body, { reportInput: true }));
    if (!result.success) {
      const issue = result.error.issues[0];
      const field = issue ? issue.path.join(".") : undefined;
      notices.push({
        kind: "unreadable",
        field: `answer${field ? `.${field}` : ""}`,
        value: describeIssue(result.error),
      });
    }
    if (notices.length > 0) this.report(notices, endpoint, correlationId);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    throw new UpstreamError({
      kind: "invalid_response",
      endpoint,
      correlationId,
      field: issue ? issue.path.join(".") : undefined,
      errorMessage: issue?.message,
    });
  }

  private report(notices: ReadNotice[], endpoint: string, correlationId: string): void {
    try {
      this.onRead?.(notices, { endpoint, correlationId });
    } catch {
      // Noting what was odd must never fail the read itself.
    }
  }

  /**
   * Reports a 429 to the budget (which closes the call's keys) and any 4xx as declined, before passing the error on.
   * Never retried here. A timeout, a lost connection or a 5xx may have been processed: nothing is given back for them.
   */
  private async gated<T>(endpoint: string, scopes: CallScopes, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (this.gate && isUpstreamError(error) && error.kind === "http" && error.status !== undefined) {
        if (error.status === 429)
          await this.gate.rateLimited(endpoint, scopes, error.retryAfter, error.retryAfterHeader ?? null);
        // Giving a slot back only frees it sooner: should the budget fail to, the upstream's own error still counts.
        if (error.status >= 400 && error.status < 500)
          await this.gate.declined?.(endpoint, scopes).catch(() => undefined);
      }
      throw error;
    }
  }

  /** One HTTP exchange: returns the parsed JSON of a 2xx answer, throws UpstreamError for anything else. */
  private async exchange(call: {
    endpoint: string;
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
    timeoutMs: number;
    correlationId: string;
    attempt: number;
  }): Promise<unknown> {
    const started = this.now();
    const path = new URL(call.url).pathname;
    const log = (status?: number, errorCode?: string) =>
      this.onCall?.({
        correlationId: call.correlationId,
        endpoint: call.endpoint,
        method: call.method,
        path,
        status,
        errorCode,
        durationMs: this.now() - started,
        attempt: call.attempt,
      });
    const base = { endpoint: call.endpoint, correlationId: call.correlationId };

    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        signal: AbortSignal.timeout(call.timeoutMs),
      });
      text = await response.text();
    } catch (cause) {
      const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
      log(undefined, timedOut ? "timeout" : "network");
      throw new UpstreamError({ ...base, kind: timedOut ? "timeout" : "network", cause });
    }

    let json: unknown = undefined;
    let jsonError: string | undefined;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        jsonError = "the body is not valid JSON";
      }
    }

    if (response.ok) {
      log(response.status);
      if (jsonError)
        throw new UpstreamError({
          ...base,
          kind: "invalid_response",
          status: response.status,
          errorMessage: jsonError,
        });
      return json;
    }

    const envelope = errorEnvelopeSchema.safeParse(json);
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"), this.now());
    log(response.status, envelope.success ? envelope.data.error_code : undefined);
    throw new UpstreamError({
      ...base,
      kind: "http",
      status: response.status,
      retryAfter,
      retryAfterHeader: response.headers.get("retry-after") ?? undefined,
      ...(envelope.success
        ? {
            errorCode: envelope.data.error_code,
            errorMessage: envelope.data.error_message,
            linkErrorCode: envelope.data.link_error_code ?? undefined,
            documentationUrl: envelope.data.documentation_url ?? undefined,
          }
        : { errorMessage: "The error response carried no error envelope." }),
    });
  }
}

/** Opens a TCP connection to the URL's host (completing the TLS handshake for https) and closes it. */
function openAndClose(url: URL, timeoutMs: number): Promise<void> {
  const secure = url.protocol === "https:";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port) || (secure ? 443 : 80);
  return new Promise((resolve, reject) => {
    const socket = secure
      ? connectTls({ host, port, servername: isIP(host) ? undefined : host })
      : connectTcp({ host, port });
    const timer = setTimeout(
      () => finish(Object.assign(new Error(`no connection within ${timeoutMs} ms`), { name: "TimeoutError" })),
      timeoutMs,
    );
    function finish(error?: Error) {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    }
    socket.once(secure ? "secureConnect" : "connect", () => finish());
    socket.once("error", finish);
  });
}
