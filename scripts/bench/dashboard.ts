import { existsSync } from "node:fs";
import path from "node:path";
import { type Browser, type BrowserContext, chromium } from "@playwright/test";
import { DEMO_ACCOUNTS } from "../../lib/auth/demo";
import type { Role } from "../../lib/auth/roles";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { build, buildIsStale, registerBackEndLinks, type Started, startDashboard, startSandbox } from "../processes";

// The built dashboard on a sandbox, for benchmarks that measure what a browser or a client over HTTP sees. As in the
// demo, the back end registers every link id it knows: the sandbox lists active links only, as the upstream does.

const BENCH_SERVICE_TOKEN = "bench-service-token-0123456789abcdef01234";

export async function startBenchDashboard(opts: {
  port: number;
  /** Default: port + 1000. */
  sandboxPort?: number;
  dataDir: string;
  env?: Record<string, string>;
  sandboxEnv?: Record<string, string>;
  /** Dashboards on one database (DATABASE_URL in env), as at scale: on port, port + 1, … Default 1. */
  instances?: number;
  /** Another checkout of Linkdesk, already built, to serve instead of this one (see startDashboard). */
  root?: string;
}) {
  if (opts.root) {
    if (!existsSync(path.join(opts.root, ".next", "BUILD_ID")))
      throw new Error(`${opts.root} has no build: run npm install and npm run build there first.`);
  } else if (buildIsStale()) await build();
  const sandbox = await startSandbox({
    port: opts.sandboxPort ?? opts.port + 1000,
    quiet: true,
    env: {
      SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
      SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
      ...opts.sandboxEnv,
    },
  });
  const dashboards: Started[] = [];
  try {
    for (let i = 0; i < (opts.instances ?? 1); i++) {
      dashboards.push(
        await startDashboard({
          port: opts.port + i,
          host: "127.0.0.1",
          quiet: true,
          root: opts.root,
          env: {
            UPSTREAM_BASE_URL: sandbox.url,
            UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
            UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
            UPSTREAM_SANDBOX: "1",
            AUTH_SECRET: "bench-secret-0123456789abcdef0123456789",
            LINKDESK_DATA_DIR: opts.dataDir,
            DATABASE_URL: "",
            LOG_LEVEL: "silent",
            LINKDESK_SERVICE_TOKEN: BENCH_SERVICE_TOKEN,
            ...opts.env,
          },
        }),
      );
    }
    await registerBackEndLinks({
      sandboxUrl: sandbox.url,
      dashboardUrl: dashboards[0]!.url,
      token: BENCH_SERVICE_TOKEN,
    });
    const stop = async () => {
      for (const dashboard of dashboards) await dashboard.stop();
      await sandbox.stop();
    };
    return {
      url: dashboards[0]!.url,
      urls: dashboards.map((d) => d.url),
      sandboxUrl: sandbox.url,
      /** The process `next start` runs in (it may serve from a child: see proc.ts). */
      pid: dashboards[0]!.child.pid!,
      pids: dashboards.map((d) => d.child.pid!),
      stop,
    };
  } catch (error) {
    for (const dashboard of dashboards) await dashboard.stop();
    await sandbox.stop();
    throw error;
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
}

/** A browser context signed in as the demo account of `role`, through the sign-in page. */
export async function signedInContext(browser: Browser, baseURL: string, role: Role): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  const account = DEMO_ACCOUNTS.find((a) => a.role === role)!;
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  return context;
}
