// What a route handler sees: the request, the sandbox's state, and the reply it gives back. Handlers return data or
// throw an ApiError; the server turns either into bytes, which keeps faults (e.g. a truncated body) in one place.
import type { IncomingMessage } from "node:http";
import type { RateLimitScope } from "../lib/upstream/rate-limits";
import type { TokenStore } from "./auth";
import type { FaultController, FaultSettings } from "./faults";
import type { RateLimiter } from "./rate-limiter";
import type { Stats } from "./stats";
import type { Store } from "./store";

export interface SandboxOptions {
  clientId: string;
  clientSecret: string;
  tokenTtlSeconds: number;
  links: number;
  transactionsPerLink: number;
  seed: number;
  /** Enforce the spec's Limits table (default true). */
  rateLimits: boolean;
  /** Imports wait a random time up to this long, as the upstream may take seconds (default 2000; tests use 0). */
  importDelayMs: number;
  /** Fault settings in force from the start. */
  faults: FaultSettings | null;
  now: () => number;
  /** Day the seeded data counts back from (YYYY-MM-DD); fixed so every run gives the same data. */
  anchorDate: string;
}

export interface SandboxWorld {
  options: SandboxOptions;
  /** The one app the sandbox's client belongs to (the `app` rate-limit scope). */
  appId: string;
  store: Store;
  tokens: TokenStore;
  limiter: RateLimiter;
  faults: FaultController;
  stats: Stats;
  baseUrl: () => string;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export interface RequestContext {
  req: IncomingMessage;
  method: string;
  path: string;
  query: URLSearchParams;
  params: Record<string, string>;
  world: SandboxWorld;
  /** Set once the auth headers have been checked. */
  clientId: string | null;
  rawBody(): Promise<Buffer>;
  json(): Promise<unknown>;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type ScopeKeys = Partial<Record<RateLimitScope, string>>;

export interface Route {
  method: "GET" | "POST" | "DELETE" | "PATCH";
  /** The spec's route template, e.g. "/links/{id}"; `${method} ${template}` keys the rate-limit table. */
  template: string;
  /** Sandbox control and docs routes: no auth, no faults, no rate limits, not in the stats. */
  control?: boolean;
  /** Scope keys that only the request body knows (POST /link-session's user and relinked link). */
  scopeKeys?: (ctx: RequestContext) => Promise<ScopeKeys>;
  handle: (ctx: RequestContext) => Promise<Reply>;
}
