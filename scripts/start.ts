// `npm start`: builds if needed, starts the bundled sandbox upstream (unless UPSTREAM_BASE_URL points at a real one)
// and the dashboard, prints where to go, and on SIGTERM or SIGINT (Ctrl-C, a process manager) stops everything it
// started, the dashboard first (its graceful shutdown), then exits. package.json's `exec` makes this process the one
// npm's signals reach: npm forwards them to its child, and without `exec` that child would be a shell that ignores them.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError, parseLauncherEnv } from "../lib/env";
import { DEMO_ACCOUNTS } from "../lib/auth/demo";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import {
  type Started,
  build,
  buildIsStale,
  killAllStarted,
  registerBackEndLinks,
  startDashboard,
  startSandbox,
  stopAllStarted,
} from "./processes";

const dev = process.argv.includes("--dev");
let stopping = false;

async function stopAll(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await stopAllStarted();
  process.exit(code);
}

// Last resort if this process is ended abruptly: never leave a sandbox or dashboard behind.
process.on("exit", killAllStarted);

async function main(): Promise<void> {
  let env;
  try {
    env = parseLauncherEnv();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Linkdesk cannot start. ${error.message}\nSee README.md, "Configuration".`);
      process.exit(1);
    }
    throw error;
  }

  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  if (!dev && buildIsStale()) {
    console.log("Building the dashboard (first start or sources changed)…");
    await build();
  }

  let upstreamEnv: Record<string, string>;
  let sandboxUrl: string | null = null;
  if (env.UPSTREAM_BASE_URL) {
    upstreamEnv = {
      UPSTREAM_BASE_URL: env.UPSTREAM_BASE_URL,
      UPSTREAM_CLIENT_ID: env.UPSTREAM_CLIENT_ID ?? "",
      UPSTREAM_CLIENT_SECRET: env.UPSTREAM_CLIENT_SECRET ?? "",
      UPSTREAM_SANDBOX: "0",
    };
    console.log(`Using the upstream at ${new URL(env.UPSTREAM_BASE_URL).origin} (no sandbox started).`);
  } else {
    // The product's page the end user returns to after a relink, registered with the sandbox's app as it would be
    // with the real service's: a link session for another is refused (403 forbidden_config).
    const redirectUri = process.env.LINK_SESSION_REDIRECT_URI ?? `http://${loopbackFor(env.HOST)}:${env.PORT}/links`;
    const sandbox = await startSandbox({
      port: env.SANDBOX_PORT,
      env: {
        SANDBOX_REDIRECT_URIS: redirectUri,
        SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
        SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
        // The seeded links' webhooks reach the dashboard's receiver, whose port is known before it starts.
        SANDBOX_SEED_WEBHOOK_URL: `http://${loopbackFor(env.HOST)}:${env.PORT}/api/webhooks/upstream`,
      },
    });
    sandboxUrl = sandbox.url;
    upstreamEnv = {
      UPSTREAM_BASE_URL: sandbox.url,
      UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
      UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
      UPSTREAM_SANDBOX: "1",
      AUTH_SECRET: env.AUTH_SECRET ?? demoSecret(env.LINKDESK_DATA_DIR, "auth-secret"),
      LINKDESK_SERVICE_TOKEN: env.LINKDESK_SERVICE_TOKEN ?? demoSecret(env.LINKDESK_DATA_DIR, "service-token"),
      // Reconnect requests go to the sandbox's stand-in for the product's back end, whose end users partly reconnect
      // (docs/reconnect.md), unless the environment names a product of its own.
      ...(process.env.PRODUCT_WEBHOOK_URL
        ? {}
        : {
            PRODUCT_WEBHOOK_URL: `${sandbox.url}/_sandbox/demo-product/webhook`,
            PRODUCT_WEBHOOK_SECRET: SANDBOX_DEFAULTS.demoProductSecret,
          }),
      LINK_SESSION_REDIRECT_URI: redirectUri,
    };
    watchExit(sandbox, "sandbox");
  }

  // The dashboard bounds its own shutdown by SHUTDOWN_TIMEOUT_S; it is killed only if it overruns that by far.
  const stopGraceMs = (env.SHUTDOWN_TIMEOUT_S + 5) * 1000;
  const dashboard = await startDashboard({ port: env.PORT, host: env.HOST, env: upstreamEnv, dev, stopGraceMs });
  watchExit(dashboard, "dashboard");

  let registered = "";
  if (sandboxUrl && upstreamEnv.LINKDESK_SERVICE_TOKEN) {
    // The upstream lists active links only: the demo's back end registers every link id it knows, as the product's
    // back end would, so the links in error and half-finished ones are in the list too (docs/discovery.md).
    try {
      const totals = await registerBackEndLinks({
        sandboxUrl,
        dashboardUrl: `http://${loopbackFor(env.HOST)}:${env.PORT}`,
        token: upstreamEnv.LINKDESK_SERVICE_TOKEN,
      });
      registered = `  The demo's back end registered its ${totals.ids.toLocaleString("en")} link ids (${totals.registered.toLocaleString("en")} new to Linkdesk).`;
    } catch (error) {
      registered = `  The demo's back end could not register its link ids (${error instanceof Error ? error.message : String(error)}): only listed links will show.`;
    }
  }

  console.log(
    [
      "",
      `  Linkdesk is ready: ${dashboard.url}`,
      env.UPSTREAM_BASE_URL ? "" : `  Upstream: the bundled sandbox at ${upstreamEnv.UPSTREAM_BASE_URL} (demo data)`,
      registered,
      env.UPSTREAM_BASE_URL
        ? "  Sign in with a staff account (create one: npm run staff -- add --email you@example.com --role admin)"
        : `  Sign in with a demo account, e.g. ${DEMO_ACCOUNTS.map((a) => `${a.email} / ${a.password}`).join(", ")}`,
      "  Press Ctrl-C to stop (or send SIGTERM).",
      "",
    ]
      .filter(Boolean)
      .join("\n"),
  );
}

/**
 * Demo mode keeps its generated secrets in the data folder (the session secret, the back end's service token), so
 * sessions and the token survive a restart.
 */
function demoSecret(dataDir: string, name: "auth-secret" | "service-token"): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(33).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** An address of the dashboard's own machine to reach it on: loopback when it listens on every interface. */
function loopbackFor(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "localhost") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

function watchExit(started: Started, name: string) {
  started.child.once("exit", (code, signal) => {
    if (stopping) return;
    console.error(`The ${name} stopped (${signal ?? `code ${code}`}); stopping Linkdesk.`);
    void stopAll(code === 0 ? 0 : 1);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  void stopAll(1);
});
