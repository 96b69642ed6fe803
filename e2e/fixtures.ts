import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type BrowserContextOptions,
  type Page,
  type PlaywrightWorkerArgs,
  test as base,
  expect,
} from "@playwright/test";
import { DEMO_ACCOUNTS } from "../lib/auth/demo";
import type { Role } from "../lib/auth/roles";
import { SPEC_ENDPOINTS } from "../lib/upstream/spec-endpoints";
import { type ProductReceiver, startProductReceiver } from "../lib/testing/product-receiver";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { type Started, registerBackEndLinks, startDashboard, startSandbox } from "../scripts/processes";
import { signInAs } from "./session";

// The suite's fixtures. Each Playwright worker owns a sandbox and a production dashboard on ports of its own, with an
// embedded database of its own, so specs that switch the sandbox's standing faults on, or count its calls, meet only
// their own worker's traffic and several workers run side by side. Each worker signs in once per role through the
// sign-in page and keeps that session (storageState) for every spec that only needs to be signed in; specs about
// signing in itself use `signInAs` from ./session.

/** The dashboards' session secret in the end-to-end run (the leak test looks for it in what browsers get). */
export const E2E_AUTH_SECRET = "e2e-secret-0123456789abcdef0123456789";
/** The product's back end's credential for POST /api/links/register on the workers' dashboards. */
export const E2E_SERVICE_TOKEN = "e2e-service-token-0123456789abcdef0123";
/** The redirect_uri of the link sessions the workers' dashboards make (the sandbox takes any). */
export const E2E_LINK_SESSION_REDIRECT_URI = "https://customer.example/linked";

/** Ports of worker N: its dashboard and sandbox sit 20 + 2N above E2E_PORT / E2E_SANDBOX_PORT (specs with servers of
 * their own take the 20 ports above each base), the dashboard with a dead upstream one above its dashboard. */
export function workerPorts(parallelIndex: number) {
  const dashboard = Number(process.env.E2E_PORT ?? 3110) + 20 + 2 * parallelIndex;
  const sandbox = Number(process.env.E2E_SANDBOX_PORT ?? 4110) + 20 + 2 * parallelIndex;
  return { dashboard, down: dashboard + 1, sandbox, deadUpstream: sandbox + 1 };
}

/**
 * Links the workers' sandboxes seed: twelve cycles of 64 (sandbox/seed-links.ts), so every state, error code, provider
 * and fixture is there, and 588 of them are active, enough for the status page's read of a full 500-id page. A sync
 * reads them all in about two minutes at the default budget (2,000 would take five), and the links the listing leaves
 * out, which it reads first, within half a minute.
 */
export const E2E_SANDBOX_LINKS = 12 * 64;

export interface Stack {
  sandboxUrl: string;
  dashboardUrl: string;
  dataRoot: string;
}

type StorageState = Exclude<BrowserContextOptions["storageState"], string | undefined>;

interface WorkerFixtures {
  /**
   * The product's back end as far as Linkdesk's own messages go (reconnect requests): a receiver on loopback that
   * verifies each message's Standard Webhooks signature. The worker's dashboard sends to it (PRODUCT_WEBHOOK_URL).
   */
  productReceiver: ProductReceiver;
  /** This worker's sandbox and dashboard, started before its first test and stopped after its last. */
  stack: Stack;
  /** This worker's dashboard whose upstream is down (nothing listens on its port), started on first use. */
  downDashboardUrl: string;
  /** One session per role, made by signing in through the sign-in page once per worker, on first use. */
  roleSessions: {
    of(role: Role): Promise<StorageState>;
    renew(role: Role, stale: Promise<StorageState>): Promise<StorageState>;
  };
  /**
   * Resolves once the first sync of this worker's dashboard has listed the links and reads their details (its progress
   * bar shows), before the worker's first test: a link a spec makes upstream is then new to the dashboard until a
   * webhook, a lookup or a later run tells it, as it is for a long-running dashboard.
   */
  syncListed: void;
  /**
   * Resolves once this worker's dashboard has finished its first sync (the links page says "Synced …"), for specs
   * that read the newest links' details from the list: a worker's first spec may start while the sync still reads.
   */
  linksSynced: void;
}

interface TestFixtures {
  /**
   * Signs `page` in as the demo account of `role` with the worker's saved session of that role (its cookies added to
   * the page's context) and opens `from` (default "/links", where "/" leads). For specs where being signed in is
   * the setting, not the subject; those about signing in use `signInAs`.
   */
  signIn: (page: Page, role: Role, opts?: { from?: string }) => Promise<(typeof DEMO_ACCOUNTS)[number]>;
}

/** The `signIn` fixture's function, for helpers that open pages of their own. */
export type SignIn = TestFixtures["signIn"];

export const test = base.extend<TestFixtures, WorkerFixtures>({
  productReceiver: [
    async ({}, provide) => {
      const receiver = await startProductReceiver();
      await provide(receiver);
      await receiver.close();
    },
    { scope: "worker" },
  ],

  stack: [
    async ({ productReceiver }, provide, workerInfo) => {
      const ports = workerPorts(workerInfo.parallelIndex);
      // A fresh embedded database (PGlite: one process per data folder) whatever DATABASE_URL the shell has: the specs
      // must not depend on, or leave rows in, a shared server.
      const dataRoot = mkdtempSync(path.join(tmpdir(), `linkdesk-e2e-w${workerInfo.parallelIndex}-`));
      const sandbox = await startSandbox({
        port: ports.sandbox,
        quiet: true,
        env: {
          SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
          SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
          SANDBOX_IMPORT_DELAY_MS: "200",
          SANDBOX_LINKS: String(E2E_SANDBOX_LINKS),
        },
      });
      let dashboard: Started | undefined;
      try {
        dashboard = await startDashboard({
          port: ports.dashboard,
          host: "127.0.0.1",
          quiet: true,
          env: {
            UPSTREAM_BASE_URL: sandbox.url,
            UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
            UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
            UPSTREAM_SANDBOX: "1",
            UPSTREAM_TIMEOUT_MS: "3000",
            LOG_LEVEL: "warn",
            LINKDESK_SERVICE_TOKEN: E2E_SERVICE_TOKEN,
            LINKDESK_DATA_DIR: path.join(dataRoot, "main"),
            DATABASE_URL: "",
            AUTH_SECRET: E2E_AUTH_SECRET,
            // Reconnect requests go to this worker's receiver (demo mode: plain http on loopback is allowed).
            PRODUCT_WEBHOOK_URL: productReceiver.url,
            PRODUCT_WEBHOOK_SECRET: productReceiver.secret,
            LINK_SESSION_REDIRECT_URI: E2E_LINK_SESSION_REDIRECT_URI,
          },
        });
        // The sandbox lists active links only, as the upstream does: the back end registers every link id it knows,
        // as the product's does, so the links in error and half-finished ones reach the read model (docs/discovery.md).
        await registerBackEndLinks({ sandboxUrl: sandbox.url, dashboardUrl: dashboard.url, token: E2E_SERVICE_TOKEN });
      } catch (error) {
        await Promise.all([dashboard?.stop(), sandbox.stop()]);
        rmSync(dataRoot, { recursive: true, force: true });
        throw error;
      }
      // The helpers in ./sandbox-control and ./session, and the specs, find this worker's sandbox here.
      process.env.E2E_SANDBOX_URL = sandbox.url;
      process.env.E2E_DASHBOARD_URL = dashboard.url;
      await provide({ sandboxUrl: sandbox.url, dashboardUrl: dashboard.url, dataRoot });
      // Every call this worker made to its sandbox (the dashboard's, and the specs' own fixtures) was to a route the
      // spec defines: a stray call shows up as "(unmatched) METHOD /path" (control routes are not counted).
      const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
        byEndpoint: Record<string, unknown>;
      };
      await Promise.all([dashboard.stop(), sandbox.stop()]);
      rmSync(dataRoot, { recursive: true, force: true });
      const stray = Object.keys(stats.byEndpoint).filter((endpoint) => !SPEC_ENDPOINTS.includes(endpoint));
      if (stray.length > 0) throw new Error(`The e2e run called routes the spec does not define: ${stray.join(", ")}`);
    },
    { scope: "worker", auto: true, timeout: 180_000 },
  ],

  downDashboardUrl: [
    async ({ stack }, provide, workerInfo) => {
      const ports = workerPorts(workerInfo.parallelIndex);
      const down = await startDashboard({
        port: ports.down,
        host: "127.0.0.1",
        quiet: true,
        env: {
          UPSTREAM_BASE_URL: `http://127.0.0.1:${ports.deadUpstream}`,
          UPSTREAM_CLIENT_ID: "nobody",
          UPSTREAM_CLIENT_SECRET: "nothing",
          // Demo mode (demo accounts) with a dead upstream: what staff see when the sandbox or the real service is down.
          UPSTREAM_SANDBOX: "1",
          LOG_LEVEL: "silent",
          LINKDESK_DATA_DIR: path.join(stack.dataRoot, "down"),
          DATABASE_URL: "",
          AUTH_SECRET: E2E_AUTH_SECRET,
        },
      });
      await provide(down.url);
      await down.stop();
    },
    { scope: "worker", timeout: 180_000 },
  ],

  roleSessions: [
    async ({ browser, stack }, provide) => {
      const made = new Map<Role, Promise<StorageState>>();
      const signInOnce = (role: Role) => {
        const session = (async () => {
          const context = await browser.newContext({ baseURL: stack.dashboardUrl });
          try {
            await signInAs(await context.newPage(), role);
            return await context.storageState();
          } finally {
            await context.close();
          }
        })();
        made.set(role, session);
        session.catch(() => made.delete(role));
        return session;
      };
      await provide({
        of: (role) => made.get(role) ?? signInOnce(role),
        // Signing out ends every session of the account (its sessions_valid_after moves): a spec that signs a role out
        // ends the saved one too, and the next spec of that role signs in afresh.
        renew: (role, stale) => (made.get(role) === stale ? signInOnce(role) : (made.get(role) ?? signInOnce(role))),
      });
    },
    { scope: "worker" },
  ],

  syncListed: [
    async ({ playwright, roleSessions, stack }, provide) => {
      await waitForLinksPage(playwright, stack, roleSessions, /aria-label="Links sync progress"|>Synced /);
      await provide();
    },
    { scope: "worker", auto: true, timeout: 120_000 },
  ],

  linksSynced: [
    async ({ playwright, roleSessions, stack, syncListed }, provide) => {
      void syncListed;
      // "Not synced yet" until the first run ends, "Synced 5 s ago" from then on.
      await waitForLinksPage(playwright, stack, roleSessions, />Synced /, 280_000);
      await provide();
    },
    { scope: "worker", timeout: 300_000 },
  ],

  baseURL: async ({ stack }, provide) => {
    await provide(stack.dashboardUrl);
  },

  signIn: async ({ roleSessions }, provide) => {
    await provide(async (page, role, opts = {}) => {
      const account = DEMO_ACCOUNTS.find((a) => a.role === role);
      if (!account) throw new Error(`no demo account for ${role}`);
      // The links list, where "/" leads (straight there: "/" redirects once the page streams, and a navigation the
      // spec starts meanwhile would be cut short).
      const from = opts.from ?? "/links";
      const session = roleSessions.of(role);
      await page.context().addCookies((await session).cookies);
      await page.goto(from);
      if (/\/sign-in/.test(new URL(page.url()).pathname)) {
        await page.context().clearCookies();
        await page.context().addCookies((await roleSessions.renew(role, session)).cookies);
        await page.goto(from);
      }
      await expect(page).not.toHaveURL(/\/sign-in/);
      return account;
    });
  },
});

/**
 * Reloads the links page as the worker's viewer until its HTML matches `wanted` (the sync status line, the progress
 * bar). A spec that signed the viewer out ended the saved session (auth.spec, staff.spec): then a fresh one is made.
 */
async function waitForLinksPage(
  playwright: PlaywrightWorkerArgs["playwright"],
  stack: Stack,
  roleSessions: WorkerFixtures["roleSessions"],
  wanted: RegExp,
  timeout = 100_000,
) {
  let session = roleSessions.of("viewer");
  const contextOf = async () =>
    playwright.request.newContext({ baseURL: stack.dashboardUrl, storageState: await session });
  let request = await contextOf();
  try {
    await expect(async () => {
      const response = await request.get("/links");
      if (new URL(response.url()).pathname.startsWith("/sign-in")) {
        await request.dispose();
        session = roleSessions.renew("viewer", session);
        request = await contextOf();
        throw new Error("the viewer's saved session had ended: signed in afresh");
      }
      expect(await response.text()).toMatch(wanted);
    }).toPass({ timeout, intervals: [1_000] });
  } finally {
    await request.dispose();
  }
}

export { expect };
