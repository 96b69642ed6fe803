import "server-only";
import { isBudgetExceeded, isBudgetUnavailable } from "../budget/budget";
import { getEnv } from "../env";
import { describeUpstreamError, isUpstreamError } from "./errors";
import { upstream } from "./index";

type Check<T> = ({ ok: true } & T) | { ok: false; title: string; detail: string };

export interface UpstreamStatus {
  mode: "sandbox" | "live";
  /** The base URL without any user-info, safe to show. */
  displayUrl: string;
  checkedAt: Date;
  /** A connection to the upstream's host opens (no request is sent). */
  reachable: Check<{ latencyMs: number }>;
  /** An access token could be obtained with the client credentials (the token itself never leaves the server). */
  token: Check<{ expiresAt: Date }>;
  /** A real, validated read (GET /links): only when asked for, as it spends one call of the app's budget. */
  read?: Check<{ latencyMs: number; links: number }>;
}

const MAX_AGE_MS = 10_000;
const cache = new Map<string, { at: number; status: Promise<UpstreamStatus> }>();

/**
 * Whether the upstream answers, whether a token can be obtained and (with `read`) whether data can be read. Cached for
 * a few seconds and shared by concurrent renders, because every page's header asks.
 */
export function checkUpstream({
  fresh = false,
  read = false,
}: { fresh?: boolean; read?: boolean } = {}): Promise<UpstreamStatus> {
  const key = read ? "read" : "basic";
  const hit = cache.get(key);
  if (!fresh && hit && Date.now() - hit.at <= MAX_AGE_MS) return hit.status;
  const status = runCheck(read);
  cache.set(key, { at: Date.now(), status });
  return status;
}

export function upstreamMode(): { mode: UpstreamStatus["mode"]; displayUrl: string } {
  const env = getEnv();
  return { mode: env.UPSTREAM_SANDBOX ? "sandbox" : "live", displayUrl: displayUrl(env.UPSTREAM_BASE_URL) };
}

async function runCheck(read: boolean): Promise<UpstreamStatus> {
  const api = upstream();
  const [reachable, token, readResult] = await Promise.all([
    api.client.probe().then((r): UpstreamStatus["reachable"] => ({ ok: true, latencyMs: r.latencyMs }), explain),
    api.client.tokenStatus().then((t): UpstreamStatus["token"] => ({ ok: true, expiresAt: t.expiresAt }), explain),
    read ? timedRead(api) : undefined,
  ]);
  return { ...upstreamMode(), checkedAt: new Date(), reachable, token, ...(readResult ? { read: readResult } : {}) };
}

async function timedRead(api: ReturnType<typeof upstream>): Promise<NonNullable<UpstreamStatus["read"]>> {
  const started = Date.now();
  try {
    // 500 is the smallest page GET /links allows.
    const page = await api.listLinks({ limit: 500 });
    return { ok: true, latencyMs: Date.now() - started, links: page.links.length };
  } catch (error) {
    return explain(error);
  }
}

function explain(error: unknown): { ok: false; title: string; detail: string } {
  if (isUpstreamError(error)) return { ok: false, ...describeUpstreamError(error) };
  if (isBudgetExceeded(error)) {
    return { ok: false, title: "No room in the rate budget", detail: `${error.message}. Nothing was sent.` };
  }
  if (isBudgetUnavailable(error)) return { ok: false, title: "The rate budget is unavailable", detail: error.message };
  return {
    ok: false,
    title: "Unexpected error while checking the upstream",
    detail: error instanceof Error ? error.name : "unknown",
  };
}

function displayUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.username = "";
  url.password = "";
  return url.toString().replace(/\/$/, "");
}
