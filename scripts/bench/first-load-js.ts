// First-load JavaScript of a page: every script the browser fetches to show it, gzip-compressed, as a newcomer would
// download it. Drives the built dashboard in Debian's Chromium against the sandbox.
import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { DEMO_ACCOUNTS } from "../../lib/auth/demo";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { build, buildIsStale, startDashboard, startSandbox } from "../processes";

export async function benchFirstLoadJs(pages = ["/links", "/health", "/audit", "/rate-limits"]): Promise<{ name: string; rows: string[][] }> {
  if (buildIsStale()) await build();
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const path = await import("node:path");
  const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-js-"));
  const sandbox = await startSandbox({ port: 4170, quiet: true, env: { SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId, SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret } });
  const dashboard = await startDashboard({
    port: 3170,
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
      LOG_LEVEL: "silent",
    },
  });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const context = await browser.newContext({ baseURL: dashboard.url });
    const page = await context.newPage();
    const admin = DEMO_ACCOUNTS.find((a) => a.role === "admin")!;
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
    const rows: string[][] = [];
    for (const target of pages) {
      // A fresh context per page: nothing cached from the previous one.
      const fresh = await browser.newContext({ baseURL: dashboard.url, storageState: await context.storageState() });
      const p = await fresh.newPage();
      const scripts = new Map<string, Promise<Buffer>>();
      p.on("response", (response) => {
        if (response.request().resourceType() === "script") scripts.set(response.url(), response.body());
      });
      await p.goto(target, { waitUntil: "networkidle" });
      let raw = 0;
      let gzipped = 0;
      for (const body of await Promise.all(scripts.values())) {
        raw += body.length;
        gzipped += gzipSync(body, { level: 9 }).length;
      }
      rows.push([`${target}: first-load JS (goal < 250 kB gzip)`, `${(gzipped / 1024).toFixed(1)} kB gzip`, `${(raw / 1024).toFixed(0)} kB raw, ${scripts.size} scripts`]);
      await fresh.close();
    }
    return { name: "first-load JavaScript per page", rows };
  } finally {
    await browser.close();
    await dashboard.stop();
    await sandbox.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
