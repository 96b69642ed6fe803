// Client credentials and access tokens. The upstream wants all three headers on every call (Bearer token, client id,
// client secret); an expired token is told apart from an unknown one so clients know to mint a new token and retry.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { apiErrors } from "./http";

interface IssuedToken {
  clientId: string;
  seq: number;
  expiresAtMs: number;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** Expired tokens are kept this long to answer "expired" rather than "unknown", then dropped. */
const EXPIRED_TOKEN_MEMORY_MS = 24 * 3_600_000;

export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class TokenStore {
  private tokens = new Map<string, IssuedToken>();
  private seq = 0;

  constructor(
    private readonly credentials: Credentials,
    private readonly ttlSeconds: number,
    private readonly now: () => number,
  ) {}

  get lastSeq(): number {
    return this.seq;
  }

  issue(clientId: string): { access_token: string; token_type: "bearer"; expires_in: number } {
    const now = this.now();
    if (this.tokens.size > 1000) {
      for (const [token, issued] of this.tokens) {
        if (issued.expiresAtMs + EXPIRED_TOKEN_MEMORY_MS < now) this.tokens.delete(token);
      }
    }
    const accessToken = randomBytes(24).toString("base64url");
    this.tokens.set(accessToken, { clientId, seq: ++this.seq, expiresAtMs: now + this.ttlSeconds * 1000 });
    return { access_token: accessToken, token_type: "bearer", expires_in: this.ttlSeconds };
  }

  /**
   * Every token issued and not yet forgotten, for tests that must prove a client never shows its token to anyone
   * (GET /_sandbox/tokens). A sandbox token opens only the sandbox.
   */
  issued(): { access_token: string; client_id: string; expires_at: string }[] {
    return [...this.tokens].map(([token, issued]) => ({
      access_token: token,
      client_id: issued.clientId,
      expires_at: new Date(issued.expiresAtMs).toISOString(),
    }));
  }

  /**
   * Checks the three auth headers and returns the client id. `expireUpToSeq` (a fault) expires matching tokens for
   * good, as if their lifetime had run out.
   */
  authenticate(headers: IncomingHttpHeaders, expireUpToSeq: number | null): string {
    const authorization = headers.authorization ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const clientId = headerValue(headers["x-client-id"]);
    const clientSecret = headerValue(headers["x-client-secret"]);
    if (!match?.[1]) throw apiErrors.unauthorized("Missing bearer access token.");
    if (clientId === undefined || clientSecret === undefined) {
      throw apiErrors.unauthorized("Missing X-Client-Id or X-Client-Secret header.");
    }
    if (!sameSecret(clientId, this.credentials.clientId) || !sameSecret(clientSecret, this.credentials.clientSecret)) {
      throw apiErrors.unauthorized("Invalid client credentials.");
    }
    const token = this.tokens.get(match[1]);
    if (!token || token.clientId !== clientId) throw apiErrors.unauthorized("Unknown access token.");
    const now = this.now();
    if (expireUpToSeq !== null && token.seq <= expireUpToSeq && token.expiresAtMs > now) token.expiresAtMs = now;
    if (token.expiresAtMs <= now) throw apiErrors.expiredToken();
    return clientId;
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Form fields or HTTP Basic, as the upstream's token endpoint accepts both. */
export function presentedCredentials(
  headers: IncomingHttpHeaders,
  form: URLSearchParams,
): { clientId: string | undefined; clientSecret: string | undefined } {
  const basic = /^Basic\s+(\S+)$/i.exec(headers.authorization ?? "");
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0) return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
  }
  return { clientId: form.get("client_id") ?? undefined, clientSecret: form.get("client_secret") ?? undefined };
}
