import "server-only";
import { z } from "zod";
import { ROLES } from "./auth/roles";

// Configuration, validated once. Nothing else reads process.env.

const httpUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .transform((url) => url.replace(/\/+$/, ""));
const milliseconds = z.coerce.number().int().positive().max(600_000);
const flag = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

const upstreamSchema = {
  /** Base URL of the linking API, e.g. https://api.example.com. The launcher points it at the bundled sandbox. */
  UPSTREAM_BASE_URL: httpUrl,
  UPSTREAM_CLIENT_ID: z.string().min(1, "must not be empty"),
  UPSTREAM_CLIENT_SECRET: z.string().min(1, "must not be empty"),
  /** Set by the launcher when UPSTREAM_BASE_URL is the bundled sandbox (demo mode). */
  UPSTREAM_SANDBOX: flag.default(false),
  /**
   * Demo mode only, for the made-up Health history: how many links the demo's upstream holds (the history's size when
   * the read model knows none yet), and the share of its links it deals each error code. The defaults are the bundled
   * sandbox's seed: 2,000 links, each error code on one link in 64.
   */
  DEMO_HISTORY_LINKS: z.coerce.number().int().min(0).default(2000),
  DEMO_HISTORY_ERROR_CODE_SHARE: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(1 / 64),
  UPSTREAM_TIMEOUT_MS: milliseconds.default(10_000),
  /** Imports are synchronous upstream and may take 10 s, so they get a longer read timeout. */
  UPSTREAM_IMPORT_TIMEOUT_MS: milliseconds.default(30_000),
  /**
   * Where the upstream serves institution avatars and merchant logos besides its own origin (which is always allowed:
   * the sandbox serves its logos there), comma-separated http(s) origins. Pictures anywhere else are not loaded (the
   * Content-Security-Policy's img-src lists exactly these); initials show instead.
   */
  UPSTREAM_IMAGE_ORIGINS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .pipe(z.array(httpUrl.transform((url) => new URL(url).origin)))
    .default([]),
};

const commaList = z.string().transform((v) =>
  v
    .split(",")
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean),
);

const authSchema = {
  /** Encrypts session cookies. `npm start` generates one for demo mode; set your own (32+ characters) otherwise. */
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters (e.g. `openssl rand -base64 33`)"),
  /**
   * The dashboard's public URL as browsers reach it, e.g. https://linkdesk.example.com (an origin: Linkdesk is served at
   * the root). Auth.js reads this variable itself and builds its own URLs and redirects on it; unset, on the address
   * the server listens on (http://localhost:<port>). Its origin is the one redirects must stay on; https also turns
   * on Strict-Transport-Security.
   */
  AUTH_URL: httpUrl
    .refine(
      (url) => new URL(url).pathname === "/",
      "must be an origin without a path, e.g. https://linkdesk.example.com",
    )
    .optional(),
  /** Sessions end this many hours after sign-in, whatever the activity. */
  SESSION_MAX_AGE_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(8),
  /** Optional company identity provider (OpenID Connect). All three or none. */
  AUTH_OIDC_ISSUER: httpUrl.optional(),
  AUTH_OIDC_CLIENT_ID: z.string().min(1).optional(),
  AUTH_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  AUTH_OIDC_NAME: z.string().min(1).default("Company account"),
  /** Email domains whose identity-provider users may sign in, comma-separated. */
  AUTH_OIDC_ALLOWED_DOMAINS: commaList.default([]),
  AUTH_OIDC_DEFAULT_ROLE: z.enum(ROLES).default("viewer"),
  /**
   * How many reverse proxies in front of the dashboard append to X-Forwarded-For. 0 (default): the header is ignored
   * and the client's address is the connection's; N: the Nth address from the right. Any client can write the header,
   * so only hops we run count: the sign-in throttle and the audit trail key on this address.
   */
  TRUSTED_PROXY_HOPS: z.coerce
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(10, "must be at most 10")
    .default(0),
};

/** The embedded database's page cache unless PGLITE_SHARED_BUFFERS says otherwise (benchmarks open it with this too). */
export const PGLITE_SHARED_BUFFERS_DEFAULT = "32MB";

const storageSchema = {
  /** A PostgreSQL server shared by every dashboard instance. Unset: the embedded PGlite database in LINKDESK_DATA_DIR. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" }).optional(),
  /** Folder for local state; the embedded database lives in its pglite/ subfolder. Relative paths start at the working directory. */
  LINKDESK_DATA_DIR: z.string().min(1, "must not be empty").default(".data"),
  /**
   * The embedded database's page cache (PostgreSQL's shared_buffers), held in the dashboard's own memory. PGlite's
   * default, 128MB, is most of an idle dashboard's footprint; the read model of a few thousand links is a few MB, and
   * pages beyond the cache are read from the operating system's file cache. Ignored with DATABASE_URL.
   */
  PGLITE_SHARED_BUFFERS: z
    .string()
    .regex(/^\d+(kB|MB|GB)$/, "must be a size such as 32MB")
    .default(PGLITE_SHARED_BUFFERS_DEFAULT),
};

const share = z.coerce.number().gt(0, "must be above 0").max(1, "must be at most 1");

const budgetSchema = {
  /** Linkdesk's share of each per-app limit: the production back end uses the same credentials and keeps the rest. */
  BUDGET_APP_SHARE: share.default(0.5),
  /** Linkdesk's share of each per-link, per-user and per-client limit. */
  BUDGET_LINK_SHARE: share.default(0.5),
  BUDGET_USER_SHARE: share.default(0.5),
  BUDGET_CLIENT_SHARE: share.default(0.5),
  /** A click waits at most this long for a rate-budget slot; beyond it, it is refused with the time of the next slot. */
  BUDGET_INTERACTIVE_MAX_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
};

const syncSchema = {
  /** Minutes between background syncs of the links read model (from the end of one to the start of the next); 0 = only on demand. */
  SYNC_INTERVAL_MINUTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 60)
    .default(15),
  /**
   * The fraction of Linkdesk's per-app GET /links/{id} budget the background sync may use; the rest stays free for
   * people's clicks (a detail view, "refresh now").
   */
  SYNC_SHARE: share.default(0.8),
  /** Seconds between evaluations of the alert rules, besides the one after each sync run; 0 = after syncs only. */
  ALERTS_EVALUATE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
};

const webhookSchema = {
  /**
   * How far a webhook's signature time (`iat`) may be from this server's clock, in seconds, before the request is
   * refused as a replay (or a clock gone wrong). The upstream signs every attempt afresh, so a retry is always recent.
   */
  WEBHOOK_MAX_AGE_S: z.coerce.number().int().min(10).max(3600).default(300),
  /** Requests to the webhook receiver per second from one source address (the upstream, or the product's back end). */
  WEBHOOK_RATE_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(5000),
  /** While webhooks flow (one verified in the last hour), the background sync runs this many times less often. */
  SYNC_WEBHOOK_SLOWDOWN: z.coerce.number().min(1).max(100).default(4),
  /**
   * The credential of the product's back end for POST /api/links/register (bulk registration of link ids it knows),
   * sent as `Authorization: Bearer <token>`; 32+ characters. Unset: the endpoint refuses everything. `npm start`
   * generates one in demo mode.
   */
  LINKDESK_SERVICE_TOKEN: z
    .string()
    .min(32, "must be at least 32 characters (e.g. `openssl rand -base64 33`)")
    .optional(),
};

/**
 * An address Linkdesk sends to or hands out (the product's webhook, its reconnect page, the upstream's redirect_uri):
 * http(s), kept as written (a trailing slash may matter to the receiver), with no user name or password in it (it is
 * shown on the link's page and in the delivery log). Whether it must be https is decided with the mode, below.
 */
const endpointUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).refine((url) => {
  const parsed = new URL(url);
  return parsed.username === "" && parsed.password === "";
}, "must not hold a user name or password (it is shown in the delivery log)");

/** Standard Webhooks: `whsec_` and the key in base64, of 24 to 64 bytes (192 to 512 bits). */
const standardWebhooksSecret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, { message: "must be `whsec_` followed by a key in base64", abort: true })
  .refine((value) => {
    const bytes = Buffer.from(value.slice("whsec_".length), "base64").length;
    return bytes >= 24 && bytes <= 64;
  }, "must hold a key of 24 to 64 bytes (e.g. `echo whsec_$(openssl rand -base64 32)`)");

const outboundSchema = {
  /**
   * Where Linkdesk posts its messages to the product's back end (a reconnect request for an end user), signed by the
   * Standard Webhooks scheme with PRODUCT_WEBHOOK_SECRET. Unset: nothing is sent, and reconnect requests are off.
   * https unless in demo mode.
   */
  PRODUCT_WEBHOOK_URL: endpointUrl.optional(),
  /** The signing secret the product's back end verifies with: `whsec_` and 24 to 64 bytes in base64. */
  PRODUCT_WEBHOOK_SECRET: standardWebhooksSecret.optional(),
  /**
   * The product's page where an end user picks up a link session token and reconnects; an email carries it with the
   * token added (`?link_session_token=…`). https unless in demo mode.
   */
  PRODUCT_RECONNECT_URL: endpointUrl.optional(),
  /**
   * The `redirect_uri` of the link sessions Linkdesk creates (POST /link-session): where an institution's OAuth sends
   * the end user back. No query string; its host must be allowed in the upstream's dashboard. https unless in demo mode.
   */
  LINK_SESSION_REDIRECT_URI: endpointUrl
    .refine((url) => new URL(url).search === "", "must have no query string (the upstream refuses one)")
    .optional(),
  /** A mail server for email to end users, as one URL (`smtps://user:password@mail.example.com:465`)... */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
  /** ...or its host and port (587 by default; 465 speaks TLS from the start), and optionally who signs in. */
  SMTP_HOST: z.string().min(1).optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().min(1).optional(),
  /** The sender of every email, e.g. `Example Support <support@example.com>`. Required with a mail server. */
  SMTP_FROM: z
    .string()
    .min(3)
    .refine(
      (value) => /@[^@\s>]+\.[^@\s>]+>?$/.test(value.trim()),
      "must be an email address, e.g. support@example.com",
    )
    .optional(),
  /** How long one delivery attempt (a webhook's answer, a mail server's) may take before it counts as failed. */
  OUTBOUND_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(10_000),
};

const lifecycleSchema = {
  /**
   * On SIGTERM/SIGINT the server stops taking work, lets work and requests in flight finish, releases its leases, closes
   * the database and exits within this many seconds (lib/shutdown.ts). `npm start` waits this long plus a margin for
   * the dashboard before it kills it.
   */
  SHUTDOWN_TIMEOUT_S: z.coerce.number().positive().max(600).default(10),
  /**
   * On SIGTERM the readiness probe answers 503 for this many seconds before the server closes its listener, so a load
   * balancer sees "not ready" and moves people away instead of meeting refused connections. At most half of
   * SHUTDOWN_TIMEOUT_S is used; 0: none. SIGINT (Ctrl-C) does not wait.
   */
  SHUTDOWN_DRAIN_S: z.coerce.number().min(0).max(600).default(5),
};

const serverSchema = z.object({
  ...upstreamSchema,
  ...authSchema,
  ...budgetSchema,
  ...syncSchema,
  ...webhookSchema,
  ...outboundSchema,
  ...lifecycleSchema,
  /**
   * Set by `npm start` (scripts/processes.ts): Next.js then leaves SIGTERM/SIGINT to Linkdesk's shutdown. Without it
   * Next.js's own handler exits as soon as its HTTP server has closed, possibly before the database is closed.
   */
  NEXT_MANUAL_SIG_HANDLE: flag.default(false),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ...storageSchema,
});

const checkedServerSchema = serverSchema.superRefine((env, ctx) => {
  const oidc = ["AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID", "AUTH_OIDC_CLIENT_SECRET"] as const;
  const set = oidc.filter((name) => env[name] !== undefined);
  if (set.length > 0 && set.length < oidc.length) {
    for (const name of oidc.filter((n) => env[n] === undefined)) {
      ctx.addIssue({ code: "custom", path: [name], message: `is required when ${set.join(", ")} is set` });
    }
  }
  checkOutbound(env, ctx);
});

/** Pairs and modes of the outbound settings: what is set must be enough to send, and plain http only in demo mode. */
function checkOutbound(env: z.infer<typeof serverSchema>, ctx: z.RefinementCtx): void {
  const requireWith = (name: keyof typeof outboundSchema, because: string) => {
    if (env[name] === undefined) ctx.addIssue({ code: "custom", path: [name], message: `is required when ${because}` });
  };
  if (env.PRODUCT_WEBHOOK_URL) requireWith("PRODUCT_WEBHOOK_SECRET", "PRODUCT_WEBHOOK_URL is set");
  if (env.PRODUCT_WEBHOOK_SECRET) requireWith("PRODUCT_WEBHOOK_URL", "PRODUCT_WEBHOOK_SECRET is set");
  if (env.SMTP_URL && env.SMTP_HOST)
    ctx.addIssue({ code: "custom", path: ["SMTP_HOST"], message: "and SMTP_URL name the same thing: set one of them" });
  const smtp = env.SMTP_URL ? "SMTP_URL" : env.SMTP_HOST ? "SMTP_HOST" : null;
  if (smtp) {
    requireWith("SMTP_FROM", `${smtp} is set`);
    // An email without the product's page would hand the user a token with nowhere to use it.
    requireWith("PRODUCT_RECONNECT_URL", `${smtp} is set (the email links to it)`);
  }
  for (const name of ["SMTP_PORT", "SMTP_USER", "SMTP_PASSWORD"] as const) {
    if (env[name] !== undefined && !env.SMTP_HOST) requireWith("SMTP_HOST", `${name} is set`);
  }
  if (env.SMTP_USER) requireWith("SMTP_PASSWORD", "SMTP_USER is set");
  if (env.SMTP_PASSWORD) requireWith("SMTP_USER", "SMTP_PASSWORD is set");
  if (env.SMTP_FROM && !smtp) requireWith("SMTP_HOST", "SMTP_FROM is set (or SMTP_URL)");
  if (env.UPSTREAM_SANDBOX) return;
  // Outside demo mode what Linkdesk sends (a link session token) and hands out travels encrypted.
  for (const name of ["PRODUCT_WEBHOOK_URL", "PRODUCT_RECONNECT_URL", "LINK_SESSION_REDIRECT_URI"] as const) {
    const value = env[name];
    if (value && URL.canParse(value) && new URL(value).protocol === "http:")
      ctx.addIssue({ code: "custom", path: [name], message: "must be an https URL (plain http only in demo mode)" });
  }
}

export type Env = z.infer<typeof serverSchema>;

/** Raised when configuration is missing or invalid; the message names every offending variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

function parseWith<T extends z.ZodType>(schema: T, source: Record<string, string | undefined>): z.infer<T> {
  // Empty strings count as unset, so `FOO=` in a shell falls back to the default instead of failing oddly.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? "environment");
        return issue.code === "invalid_type" && cleaned[name] === undefined
          ? `${name} is required`
          : `${name} ${issue.message}`;
      }),
    );
  }
  return result.data;
}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  return parseWith(checkedServerSchema, source);
}

const storageOnlySchema = z.object(storageSchema);

export type StorageEnv = z.infer<typeof storageOnlySchema>;

/** Where the database is, and nothing else: for command-line tools, which need no upstream or session secret. */
export function parseStorageEnv(source: Record<string, string | undefined> = process.env): StorageEnv {
  return parseWith(storageOnlySchema, source);
}

let cached: Env | undefined;

/** The dashboard's configuration; throws ConfigError naming the wrong variables. */
export function getEnv(): Env {
  cached ??= parseEnv();
  return cached;
}

// The launcher (npm start) decides whether to start the bundled sandbox: with no UPSTREAM_BASE_URL it does.
const launcherSchema = z
  .object({
    UPSTREAM_BASE_URL: httpUrl.optional(),
    UPSTREAM_CLIENT_ID: z.string().optional(),
    UPSTREAM_CLIENT_SECRET: z.string().optional(),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    HOST: z.string().min(1).default("127.0.0.1"),
    SANDBOX_PORT: z.coerce.number().int().min(1).max(65535).default(4010),
    AUTH_SECRET: authSchema.AUTH_SECRET.optional(),
    LINKDESK_SERVICE_TOKEN: webhookSchema.LINKDESK_SERVICE_TOKEN,
    LINKDESK_DATA_DIR: storageSchema.LINKDESK_DATA_DIR,
    SHUTDOWN_TIMEOUT_S: lifecycleSchema.SHUTDOWN_TIMEOUT_S,
  })
  .superRefine((env, ctx) => {
    if (!env.UPSTREAM_BASE_URL) return;
    // Against a real upstream nothing is generated: no demo accounts, no made-up session secret.
    for (const name of ["UPSTREAM_CLIENT_ID", "UPSTREAM_CLIENT_SECRET", "AUTH_SECRET"] as const) {
      if (!env[name])
        ctx.addIssue({ code: "custom", path: [name], message: "is required when UPSTREAM_BASE_URL is set" });
    }
  });

export type LauncherEnv = z.infer<typeof launcherSchema>;

export function parseLauncherEnv(source: Record<string, string | undefined> = process.env): LauncherEnv {
  return parseWith(launcherSchema, source);
}

/** True under `next dev` (Next.js fixes NODE_ENV when it builds): the dev server needs a looser script policy. */
export const isDevelopmentServer = process.env.NODE_ENV === "development";
