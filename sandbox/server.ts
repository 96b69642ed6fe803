// The sandbox: a local stand-in for the financial-data linking API (the "upstream"). One request goes through
// route match -> faults -> auth -> rate limit -> handler; every failure on the way leaves as the error envelope.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { IMPORT_MAX_BYTES, RATE_LIMIT_WINDOW_MS } from "./limits";
import { absoluteLogoUrls } from "./logos";
import { TokenStore } from "./auth";
import type { Reply, RequestContext, Route, SandboxOptions, SandboxOverrides, SandboxWorld } from "./context";
import { SANDBOX_DEFAULTS } from "./defaults";
import { Drift, DRIFT_OFF, driftSettingsSchema } from "./drift";
import { FaultController, faultSettingsSchema, malformedBody, type ActiveFaults } from "./faults";
import { ApiError, apiErrors, envelopeOf, isWebAddress, parseJsonBody, readBody } from "./http";
import { rngFor } from "./random";
import { RateLimiter } from "./rate-limiter";
import { Router } from "./router";
import { accountRoutes } from "./routes/accounts";
import { authRoutes } from "./routes/auth-token";
import { controlRoutes } from "./routes/control";
import { demoProductRoutes } from "./routes/demo-product";
import { outageRoutes } from "./routes/outages";
import { Outages } from "./outages";
import { driftRoutes } from "./routes/drift";
import { importRoutes } from "./routes/import";
import { institutionRoutes } from "./routes/institutions";
import { linkSessionRoutes } from "./routes/link-session";
import { linkRoutes } from "./routes/links";
import { investmentRoutes } from "./routes/investments";
import { productRoutes } from "./routes/products";
import { transactionRoutes } from "./routes/transactions";
import { userDataRoutes } from "./routes/user-data";
import { webhookRoutes } from "./routes/webhooks";
import { Stats } from "./stats";
import { LINKS_LISTINGS, Store } from "./store";
import { SigningKeys } from "./webhook-signing";
import { WebhookDispatcher } from "./webhooks";
import { Wire } from "./wire";

export type { SandboxOptions, SandboxOverrides } from "./context";
export type { FaultSettings } from "./faults";

/** Seeded data counts back from this day, so every run (and every machine) serves the same data for a seed. */
export const DEFAULT_ANCHOR_DATE = "2026-11-01";

export type SandboxState = SandboxWorld;

export interface Sandbox {
  /** Starts listening; resolves with the base URL, e.g. http://127.0.0.1:4010. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
  /** Live state for tests: store, tokens, rate-limit counters (`state.limiter.counters()`), faults, stats. */
  state: SandboxState;
}

const ROUTES: Route[] = [
  ...authRoutes,
  // Before /links/{id}: "import" is a literal segment, not a link id.
  ...importRoutes,
  ...linkRoutes,
  ...productRoutes,
  ...accountRoutes,
  ...transactionRoutes,
  ...userDataRoutes,
  ...investmentRoutes,
  ...institutionRoutes,
  ...linkSessionRoutes,
  ...webhookRoutes,
  ...controlRoutes,
  ...demoProductRoutes,
  ...outageRoutes,
  ...driftRoutes,
];

function resolveOptions(overrides: SandboxOverrides): SandboxOptions {
  const options: SandboxOptions = {
    clientId: SANDBOX_DEFAULTS.clientId,
    clientSecret: SANDBOX_DEFAULTS.clientSecret,
    tokenTtlSeconds: SANDBOX_DEFAULTS.tokenTtlSeconds,
    links: SANDBOX_DEFAULTS.links,
    transactionsPerLink: SANDBOX_DEFAULTS.transactionsPerLink,
    seed: SANDBOX_DEFAULTS.seed,
    rateLimits: true,
    rateLimitWindowMs: RATE_LIMIT_WINDOW_MS,
    amountsAsStrings: false,
    importDelayMs: 2000,
    faults: null,
    now: Date.now,
    anchorDate: DEFAULT_ANCHOR_DATE,
    // As the upstream lists: active links only (upstream-facts §2). "all" is a switch for tests about the listing.
    linksListing: "active",
    redirectUris: null,
    seedWebhookUrl: null,
    webhookRetryBaseMs: 1000,
    webhookMaxAttempts: 5,
    webhookTimeoutMs: 10_000,
    webhookConcurrency: 8,
    webhookKeyRetentionMs: 24 * 60 * 60_000,
    refreshDelayMs: 1000,
    demoProductSecret: SANDBOX_DEFAULTS.demoProductSecret,
    demoReconnectShare: 0.6,
    demoReconnectWithinMs: 300_000,
    ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
    drift: DRIFT_OFF,
  };
  const wholeNumbers = [
    "tokenTtlSeconds",
    "links",
    "transactionsPerLink",
    "importDelayMs",
    "seed",
    "rateLimitWindowMs",
    "webhookRetryBaseMs",
    "webhookMaxAttempts",
    "webhookTimeoutMs",
    "webhookConcurrency",
    "webhookKeyRetentionMs",
    "refreshDelayMs",
  ] as const;
  for (const key of wholeNumbers) {
    if (!Number.isSafeInteger(options[key]) || options[key] < 0)
      throw new RangeError(`sandbox option ${key} must be a whole number ≥ 0`);
  }
  if (options.tokenTtlSeconds < 1) throw new RangeError("sandbox option tokenTtlSeconds must be ≥ 1");
  if (options.rateLimitWindowMs < 1) throw new RangeError("sandbox option rateLimitWindowMs must be ≥ 1");
  for (const key of ["webhookMaxAttempts", "webhookTimeoutMs", "webhookConcurrency"] as const) {
    if (options[key] < 1) throw new RangeError(`sandbox option ${key} must be ≥ 1`);
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(options.anchorDate) || Number.isNaN(Date.parse(`${options.anchorDate}T00:00:00Z`))) {
    throw new RangeError("sandbox option anchorDate must be a date as YYYY-MM-DD");
  }
  if (!LINKS_LISTINGS.includes(options.linksListing))
    throw new RangeError(`sandbox option linksListing must be one of ${LINKS_LISTINGS.join(", ")}`);
  if (options.seedWebhookUrl !== null && !isWebAddress(options.seedWebhookUrl))
    throw new RangeError("sandbox option seedWebhookUrl must be an absolute http or https URL");
  if (!options.clientId || !options.clientSecret)
    throw new RangeError("sandbox options clientId and clientSecret must not be empty");
  if (options.faults && !faultSettingsSchema.safeParse(options.faults).success)
    throw new RangeError("sandbox option faults is not valid");
  const drift = driftSettingsSchema.safeParse(overrides.drift ?? {});
  if (!drift.success) throw new RangeError(`sandbox option drift is not valid: ${drift.error.message}`);
  options.drift = { ...DRIFT_OFF, ...drift.data };
  return options;
}

function splitUrl(rawUrl: string): { path: string; query: URLSearchParams } {
  const at = rawUrl.indexOf("?");
  return at < 0
    ? { path: rawUrl, query: new URLSearchParams() }
    : { path: rawUrl.slice(0, at), query: new URLSearchParams(rawUrl.slice(at + 1)) };
}

export function createSandbox(overrides: SandboxOverrides = {}): Sandbox {
  const options = resolveOptions(overrides);
  let baseUrl = `http://${SANDBOX_DEFAULTS.host}:${SANDBOX_DEFAULTS.port}`;
  const tokens = new TokenStore(options, options.tokenTtlSeconds, options.now);
  const faults = new FaultController(rngFor(options.seed, "faults"), () => tokens.lastSeq);
  faults.set(options.faults);
  const signingKeys = new SigningKeys(options.now, options.webhookKeyRetentionMs);
  const webhooks = new WebhookDispatcher(options.now, signingKeys, {
    retryBaseMs: options.webhookRetryBaseMs,
    maxAttempts: options.webhookMaxAttempts,
    timeoutMs: options.webhookTimeoutMs,
    concurrency: options.webhookConcurrency,
  });
  const scheduled = new Set<NodeJS.Timeout>();
  const drift = new Drift(options.drift);
  const world: SandboxWorld = {
    options,
    settings: { linksListing: options.linksListing, redirectUris: options.redirectUris },
    appId: `app_${options.clientId}`,
    store: new Store({
      seed: options.seed,
      links: options.links,
      transactionsPerLink: options.transactionsPerLink,
      anchorMs: Date.parse(`${options.anchorDate}T00:00:00Z`),
      now: options.now,
      seedWebhookUrl: options.seedWebhookUrl,
    }),
    tokens,
    limiter: new RateLimiter(options.now, options.rateLimitWindowMs),
    faults,
    stats: new Stats(),
    signingKeys,
    webhooks,
    drift,
    outages: new Outages(() => world),
    wire: new Wire(drift, options.amountsAsStrings),
    later(ms, work) {
      const timer = setTimeout(() => {
        scheduled.delete(timer);
        work();
      }, ms);
      timer.unref();
      scheduled.add(timer);
    },
    cancelLater() {
      for (const timer of scheduled) clearTimeout(timer);
      scheduled.clear();
    },
    baseUrl: () => baseUrl,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    random: rngFor(options.seed, "delays"),
  };
  const router = new Router(ROUTES);

  function contextFor(
    req: IncomingMessage,
    method: string,
    path: string,
    query: URLSearchParams,
    params: Record<string, string>,
  ): RequestContext {
    let body: Promise<Buffer> | null = null;
    let json: Promise<unknown> | null = null;
    return {
      req,
      method,
      path,
      query,
      params,
      world,
      clientId: null,
      rawBody: () => (body ??= readBody(req, IMPORT_MAX_BYTES)),
      json() {
        json ??= this.rawBody().then(parseJsonBody);
        return json;
      },
    };
  }

  async function dispatch(
    ctx: RequestContext,
    route: Route | null,
    match: ReturnType<Router["match"]>,
    activeFaults: ActiveFaults | null,
  ): Promise<Reply> {
    if (activeFaults?.latencyMs) {
      // The request is read first, as a server busy with it would have: a client that gives up during the wait does
      // not stop the call from being handled (its error, if the body is unreadable, is the route's to report).
      if (ctx.method !== "GET" && ctx.method !== "HEAD") await ctx.rawBody().catch(() => undefined);
      await world.sleep(activeFaults.latencyMs);
    }
    if (match.kind === "not_found") throw apiErrors.routeNotFound(ctx.method, ctx.path);
    if (match.kind === "method_not_allowed" || !route)
      throw apiErrors.methodNotAllowed(match.kind === "method_not_allowed" ? match.allowed : []);
    if (route.control) return route.handle(ctx);
    if (activeFaults?.rateLimitStormSeconds) {
      throw apiErrors.rateLimited(
        activeFaults.rateLimitStormSeconds,
        activeFaults.retryAfterDate ? options.now() : undefined,
      );
    }
    if (activeFaults?.status) throw apiErrors.internal(activeFaults.status, "injected fault");
    if (activeFaults && activeFaults.failRate > 0 && world.faults.roll() < activeFaults.failRate) {
      throw apiErrors.internal(503, "injected fault: failRate");
    }
    if (route.template !== "/auth/token" && !route.public) {
      ctx.clientId = world.tokens.authenticate(ctx.req.headers, activeFaults?.expireTokensUpToSeq ?? null);
    }
    if (options.rateLimits) {
      const keys = {
        client: ctx.clientId ?? undefined,
        app: world.appId,
        link: ctx.params.id,
        ...(route.scopeKeys ? await route.scopeKeys(ctx) : {}),
      };
      const decision = world.limiter.check(`${route.method} ${route.template}`, keys);
      if (!decision.allowed) throw apiErrors.rateLimited(decision.retryAfterSeconds);
    }
    return route.handle(ctx);
  }

  function errorReply(error: unknown): Reply {
    if (error instanceof ApiError)
      return { status: error.status, body: envelopeOf(error, baseUrl), headers: error.headers };
    console.error("sandbox: unexpected error", error);
    return { status: 500, body: envelopeOf(apiErrors.internal(500, "unexpected sandbox error"), baseUrl) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const { path, query } = splitUrl(req.url ?? "/");
    const match = router.match(method, path);
    const route = match.kind === "found" ? match.route : null;
    const ctx = contextFor(req, method, path, query, match.kind === "found" ? match.params : {});
    let reply: Reply;
    let activeFaults: ActiveFaults | null = null;
    const control = route?.control === true || path.startsWith("/_sandbox/");
    try {
      if (!control) {
        const header = req.headers["x-sandbox-fault"];
        activeFaults = world.faults.forRequest(path, Array.isArray(header) ? header.join(",") : header);
      }
      reply = await dispatch(ctx, route, match, control ? null : activeFaults);
    } catch (error) {
      reply = errorReply(error);
    }
    // A call to a route the sandbox lacks is named with its path, so a run's stats show what called it.
    if (!control)
      world.stats.record(
        route ? `${route.method} ${route.template}` : `(unmatched) ${method} ${path}`,
        reply.status,
        `${method} ${path}`,
      );
    if (activeFaults?.answerDelayMs) await world.sleep(activeFaults.answerDelayMs);
    // Read what the client sent even when answering early, so a keep-alive connection stays in step.
    if (!req.readableEnded) await ctx.rawBody().catch(() => undefined);
    send(res, reply, activeFaults?.malformed ?? false, baseUrl);
  }

  const server: Server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error("sandbox: failed to answer", error);
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;

  return {
    state: world,
    listen(port = SANDBOX_DEFAULTS.port, host = SANDBOX_DEFAULTS.host) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          // The host as asked for (localhost stays localhost); the port as bound (0 becomes a real port).
          const shownHost = host.includes(":") ? `[${host}]` : host;
          baseUrl = `http://${shownHost}:${address.port}`;
          resolve(baseUrl);
        });
      });
    },
    close() {
      world.cancelLater();
      webhooks.close();
      return new Promise((resolve, reject) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function send(res: ServerResponse, reply: Reply, malformed: boolean, baseUrl: string): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.status === 204 && !malformed) {
    res.writeHead(204, headers);
    res.end();
    return;
  }
  if (reply.raw && !malformed) {
    headers["Content-Type"] = reply.raw.contentType;
    headers["Content-Length"] = String(Buffer.byteLength(reply.raw.text));
    res.writeHead(reply.status, headers);
    res.end(reply.raw.text);
    return;
  }
  // Seed data names the sandbox's own logos by path; the address they are served from is known only now.
  let body = reply.body === undefined ? "" : absoluteLogoUrls(JSON.stringify(reply.body), baseUrl);
  let status = reply.status;
  if (malformed) {
    status = 200;
    body = malformedBody(body || "{}");
    delete headers["Retry-After"];
  }
  headers["Content-Type"] = "application/json";
  headers["Content-Length"] = String(Buffer.byteLength(body));
  res.writeHead(status, headers);
  res.end(body);
}
