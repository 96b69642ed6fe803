import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FullConfig } from "@playwright/test";
import { SPEC_ENDPOINTS } from "../lib/upstream/spec-endpoints";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { build, buildIsStale, registerBackEndLinks, startDashboard, startSandbox } from "../scripts/processes";

/** The dashboards' session secret in the end-to-end run (the leak test looks for it in what browsers get). */
export const E2E_AUTH_SECRET = "e2e-secret-0123456789abcdef0123456789";
/** The product's back end's credential for POST /api/links/register on the main e2e dashboard. */
export const E2E_SERVICE_TOKEN = "e2e-service-token-0123456789abcdef0123";

// Builds if needed, starts one sandbox and one production dashboard on test ports, and stops exactly those on teardown.
export default async function globalSetup(config: FullConfig) {
  void config;
  if (buildIsStale()) await build();
  // Each dashboard gets a fresh embedded database of its own (PGlite: one process per data folder), whatever
  // DATABASE_URL the shell has: the specs must not depend on, or leave rows in, a shared server.
  const dataRoot = mkdtempSync(path.join(tmpdir(), "linkdesk-e2e-"));
  const storage = (name: string) => ({ LINKDESK_DATA_DIR: path.join(dataRoot, name), DATABASE_URL: "" });
  const authSecret = { AUTH_SECRET: E2E_AUTH_SECRET };
  const sandboxPort = Number(process.env.E2E_SANDBOX_PORT ?? 4110);
  const dashboardPort = Number(process.env.E2E_PORT ?? 3110);
  const sandbox = await startSandbox({
    port: sandboxPort,
    quiet: true,
    env: {
      SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
      SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
      SANDBOX_IMPORT_DELAY_MS: "200",
    },
  });
  let dashboard: Awaited<ReturnType<typeof startDashboard>>;
  try {
    dashboard = await startDashboard({
      port: dashboardPort,
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
        ...storage("main"),
        ...authSecret,
      },
    });
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
  try {
    // The sandbox lists active links only, as the upstream does: the back end registers every link id it knows, as
    // the product's does, so the links in error and half-finished ones reach the read model (docs/discovery.md).
    await registerBackEndLinks({ sandboxUrl: sandbox.url, dashboardUrl: dashboard.url, token: E2E_SERVICE_TOKEN });
  } catch (error) {
    await Promise.all([dashboard.stop(), sandbox.stop()]);
    throw error;
  }
  // A second dashboard whose upstream is down (nothing listens on its port), for the "upstream down" specs.
  let downDashboard: Awaited<ReturnType<typeof startDashboard>>;
  try {
    downDashboard = await startDashboard({
      port: dashboardPort + 1,
      host: "127.0.0.1",
      quiet: true,
      env: {
        UPSTREAM_BASE_URL: `http://127.0.0.1:${sandboxPort + 9}`,
        UPSTREAM_CLIENT_ID: "nobody",
        UPSTREAM_CLIENT_SECRET: "nothing",
        // Demo mode (demo accounts) with a dead upstream: what staff see when the sandbox or the real service is down.
        UPSTREAM_SANDBOX: "1",
        LOG_LEVEL: "silent",
        ...storage("down"),
        ...authSecret,
      },
    });
  } catch (error) {
    await Promise.all([dashboard.stop(), sandbox.stop()]);
    throw error;
  }
  process.env.E2E_SANDBOX_URL = sandbox.url;
  process.env.E2E_DOWN_URL = downDashboard.url;
  return async () => {
    // Every call the run made to the sandbox (the dashboard's, and the specs' own fixtures) was to a route the spec
    // defines: a stray call shows up as "(unmatched) METHOD /path" (control routes are not counted).
    const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as { byEndpoint: Record<string, unknown> };
    await Promise.all([dashboard.stop(), downDashboard.stop(), sandbox.stop()]);
    rmSync(dataRoot, { recursive: true, force: true });
    const stray = Object.keys(stats.byEndpoint).filter((endpoint) => !SPEC_ENDPOINTS.includes(endpoint));
    if (stray.length > 0) throw new Error(`The e2e run called routes the spec does not define: ${stray.join(", ")}`);
  };
}
