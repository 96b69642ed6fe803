// The Audit page's first page rendered by the server (HTML through HTTP, signed in) with 1,000,000 audit rows in the
// embedded database: the whole request, not only the query.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { DEMO_ACCOUNTS } from "../../lib/auth/demo";
import { createDatabase } from "../../lib/db/client";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { build, buildIsStale, startDashboard, startSandbox } from "../processes";
import { bulkLoad } from "./audit";
import { median, ms, percentile } from "./stats";

export async function benchAuditPage({ runs = 30 } = {}): Promise<{ name: string; rows: string[][] }> {
  if (buildIsStale()) await build();
  const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-audit-page-"));
  try {
    const database = await createDatabase({ dataDir: path.join(dataDir, "pglite") });
    await bulkLoad(database);
    await database.close();

    const sandbox = await startSandbox({ port: 4171, quiet: true, env: { SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId, SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret } });
    const dashboard = await startDashboard({
      port: 3171,
      host: "127.0.0.1",
      quiet: true,
      env: {
        UPSTREAM_BASE_URL: sandbox.url,
        UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
        UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
        UPSTREAM_SANDBOX: "1",
        AUTH_SECRET: "bench-secret-0123456789abcdef0123456789",
        LINKDESK_DATA_DIR: dataDir,
        DATABASE_URL: "",
        SYNC_INTERVAL_MINUTES: "0",
        LOG_LEVEL: "silent",
      },
    });
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
    try {
      const page = await (await browser.newContext({ baseURL: dashboard.url })).newPage();
      const viewer = DEMO_ACCOUNTS.find((a) => a.role === "viewer")!;
      await page.goto("/sign-in");
      await page.getByLabel("Email").fill(viewer.email);
      await page.getByLabel("Password").fill(viewer.password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
      const rows: string[][] = [];
      for (const [label, url] of [
        ["unfiltered", "/audit"],
        ["person filter", "/audit?person=staff7@example.com"],
        ["action + outcome", "/audit?action=link.import&outcome=upstream_error"],
      ] as const) {
        const times: number[] = [];
        for (let i = 0; i < runs + 3; i++) {
          const started = performance.now();
          const response = await page.request.get(url);
          await response.text();
          if (i >= 3) times.push(performance.now() - started);
        }
        rows.push([`first Audit page, ${label}, 1,000,000 rows, PGlite (goal < 100 ms)`, `median ${ms(median(times))}`, `p99 ${ms(percentile(times, 99))}`]);
      }
      return { name: "the Audit page rendered by the server through HTTP", rows };
    } finally {
      await browser.close();
      await dashboard.stop();
      await sandbox.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
