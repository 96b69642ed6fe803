import type { FullConfig } from "@playwright/test";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { build, buildIsStale, startDashboard, startSandbox } from "../scripts/processes";

// Builds if needed, starts one sandbox and one production dashboard on test ports, and stops exactly those on teardown.
export default async function globalSetup(config: FullConfig) {
  void config;
  if (buildIsStale()) await build();
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
      },
    });
  } catch (error) {
    await sandbox.stop();
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
        LOG_LEVEL: "silent",
      },
    });
  } catch (error) {
    await Promise.all([dashboard.stop(), sandbox.stop()]);
    throw error;
  }
  process.env.E2E_SANDBOX_URL = sandbox.url;
  process.env.E2E_DOWN_URL = downDashboard.url;
  return async () => {
    await Promise.all([dashboard.stop(), downDashboard.stop(), sandbox.stop()]);
  };
}
