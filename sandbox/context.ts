// What a route handler sees: the request, the sandbox's state, and the reply it gives back. Handlers return data or
// throw an ApiError; the server turns either into bytes, which keeps faults (e.g. a truncated body) in one place.
import type { Outages } from "./outages";
import type { IncomingMessage } from "node:http";
import type { RateLimitScope } from "./limits";
import type { TokenStore } from "./auth";
import type { Drift, DriftSettings } from "./drift";
import type { FaultController, FaultSettings } from "./faults";
import type { RateLimiter } from "./rate-limiter";
import type { Stats } from "./stats";
import type { LinksListing, Store } from "./store";
import type { SigningKeys } from "./webhook-signing";
import type { WebhookDispatcher } from "./webhooks";
import type { Wire } from "./wire";

export interface SandboxOptions {
  clientId: string;
  clientSecret: string;
  tokenTtlSeconds: number;
  links: number;
  transactionsPerLink: number;
  seed: number;
  /** Enforce the spec's Limits table (default true). */
  rateLimits: boolean;
  /**
   * The window the Limits table's "calls per minute" are counted over (default 60 000). Shorter only for benchmarks:
   * a run at the same calls per window, in a tenth of the time, shows the same share of the limit reached.
   */
  rateLimitWindowMs: number;
  /**
   * Serve transaction amounts as decimal strings ("12.30"), as the public SDKs carry them, instead of the spec's
   * numbers (default false). Clients must read both.
   */
  amountsAsStrings: boolean;
  /** Imports wait a random time up to this long, as the upstream may take seconds (default 2000; tests use 0). */
  importDelayMs: number;
  /** Fault settings in force from the start. */
  faults: FaultSettings | null;
  now: () => number;
  /** Day the seeded data counts back from (YYYY-MM-DD); fixed so every run gives the same data. */
  anchorDate: string;
  /**
   * What GET /links lists at start and after a reset: "active" (default) is the upstream's rule, connected links whose
   * data was fetched at least once; "all" lists every link not deleted, for tests about the listing itself.
   */
  linksListing: LinksListing;
  /**
   * The redirect URIs registered for the app, as the service's dashboard keeps them: a link session asked for with
   * another is refused 403 link_session_error.forbidden_config. Null (the default) registers every URI.
   */
  redirectUris: string[] | null;
  /**
   * The webhook of every seeded link when set (demo mode: the dashboard's receiver), instead of the display addresses
   * under hooks.acme.example that about a third of them carry and that are never contacted (default null).
   */
  seedWebhookUrl: string | null;
  /** First wait before a webhook is sent again; each later wait doubles (default 1000: 1 s, 2 s, 4 s, 8 s). */
  webhookRetryBaseMs: number;
  /** Attempts per webhook delivery, the first included (default 5). */
  webhookMaxAttempts: number;
  /** A receiver that has not answered within this long counts as a failed attempt (default 10 000). */
  webhookTimeoutMs: number;
  /** Webhook attempts in flight at once, across all links (default 8); one link's deliveries go one at a time. */
  webhookConcurrency: number;
  /** How long a signing key stays in the JWKS after a rotation replaced it (default 24 h, as receivers cache it). */
  webhookKeyRetentionMs: number;
  /** How long a product refresh (POST /links/{id}/products) takes before it completes (default 1000; tests use 0). */
  refreshDelayMs: number;
  /**
   * The demo's product back end (routes/demo-product.ts): the Standard Webhooks secret Linkdesk signs reconnect
   * requests with, the share of asked end users who reconnect, and the longest they take to (default 0.6 and 300 s).
   */
  demoProductSecret: string;
  demoReconnectShare: number;
  demoReconnectWithinMs: number;
  /**
   * Drift mode at start and after a reset (drift.ts): off by default; on, a share of objects are sent as the real
   * service may send them. Switchable at run time through /_sandbox/drift.
   */
  drift: DriftSettings;
}

/** What createSandbox takes: any option, and of drift only what differs from off. */
export type SandboxOverrides = Partial<Omit<SandboxOptions, "drift">> & { drift?: Partial<DriftSettings> };

/** Behaviour a test may switch while the sandbox runs (POST /_sandbox/settings); a reset restores the options'. */
export interface SandboxSettings {
  linksListing: LinksListing;
  redirectUris: string[] | null;
}

export interface SandboxWorld {
  options: SandboxOptions;
  settings: SandboxSettings;
  /** The one app the sandbox's client belongs to (the `app` rate-limit scope). */
  appId: string;
  store: Store;
  tokens: TokenStore;
  limiter: RateLimiter;
  faults: FaultController;
  stats: Stats;
  /** Signs webhooks; its public half is served at GET /.well-known/jwks.json. */
  signingKeys: SigningKeys;
  /** Sends webhooks in the background and records every delivery (GET /_sandbox/webhooks). */
  webhooks: WebhookDispatcher;
  /** Staged outages (GET/POST /_sandbox/outages, outages.ts). */
  outages: Outages;
  /** Which objects drift, and how (GET/POST/DELETE /_sandbox/drift). */
  drift: Drift;
  /** Writes records to the wire, drift applied: every answer and webhook that carries a link goes through it. */
  wire: Wire;
  /** Work after the answer (a product refresh completing): cancelled by a reset or by closing the sandbox. */
  later: (ms: number, work: () => void) => void;
  /** Cancels all work scheduled with later() (a reset). */
  cancelLater: () => void;
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
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is instead of JSON (the sandbox's logos). */
  raw?: { contentType: string; text: string };
  headers?: Record<string, string>;
}

export type ScopeKeys = Partial<Record<RateLimitScope, string>>;

export interface Route {
  method: "GET" | "POST" | "DELETE" | "PATCH";
  /** The spec's route template, e.g. "/links/{id}"; `${method} ${template}` keys the rate-limit table. */
  template: string;
  /** Sandbox control and docs routes: no auth, no faults, no rate limits, not in the stats. */
  control?: boolean;
  /** An upstream route anyone may call (the JWKS): no auth, but faulted and counted like the rest. */
  public?: boolean;
  /** Scope keys that only the request body knows (POST /link-session's user and relinked link). */
  scopeKeys?: (ctx: RequestContext) => Promise<ScopeKeys>;
  handle: (ctx: RequestContext) => Promise<Reply>;
}
