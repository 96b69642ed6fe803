// `npm run screenshots`: the README's pictures of the console, made the way a person sees it. Starts its own sandbox and
// dashboard in demo mode on spare ports (or uses a started dashboard: `npm run screenshots -- --url http://127.0.0.1:3000`,
// signing in with the demo accounts), waits for the first sync to read the links, and writes docs/screenshots/*.png.
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import { DEMO_ACCOUNTS } from "../lib/auth/demo";
import type { Role } from "../lib/auth/roles";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import {
  build,
  buildIsStale,
  registerBackEndLinks,
  ROOT,
  type Started,
  startDashboard,
  startSandbox,
} from "./processes";

const OUT = path.join(ROOT, "docs", "screenshots");
const VIEWPORT = { width: 1280, height: 800 };
const PORT = Number(process.env.SCREENSHOTS_PORT ?? 3230);

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function signIn(page: Page, base: string, role: Role) {
  const account = DEMO_ACCOUNTS.find((a) => a.role === role)!;
  await page.goto(`${base}/sign-in`);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
}

/** Waits until the sync has read every listed link (the banner no longer counts links not read yet). */
async function waitForFirstSync(page: Page, base: string) {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    await page.goto(`${base}/links`);
    const banner =
      (await page
        .getByTestId("sync-status")
        .innerText()
        .catch(() => "")) ?? "";
    if (/Synced/.test(banner) && !/not read yet/.test(banner)) return;
    if (Date.now() > deadline) throw new Error(`The first sync did not finish in 10 minutes: ${banner}`);
    process.stdout.write(`  waiting for the first sync: ${banner.split("\n")[0]}\n`);
    await page.waitForTimeout(15_000);
  }
}

async function shoot(page: Page, name: string) {
  // Relative times and the pointer's hover must not differ between runs more than they must.
  await page.mouse.move(0, 0);
  await page.waitForLoadState("networkidle");
  await page.evaluate(() => document.fonts.ready);
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file, animations: "disabled" });
  console.log(`  ${path.relative(ROOT, file)} (${Math.round(statSync(file).size / 1024)} KB)`);
}

const SERVICE_TOKEN = "screenshots-service-token-0123456789abcdef";

async function main() {
  const given = argument("--url");
  const started: Started[] = [];
  let dataDir: string | null = null;
  let base = given ?? "";
  try {
    if (!given) {
      if (buildIsStale()) await build();
      dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-screenshots-"));
      const sandbox = await startSandbox({
        port: PORT + 1,
        quiet: true,
        env: { SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId, SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret },
      });
      started.push(sandbox);
      const dashboard = await startDashboard({
        port: PORT,
        host: "127.0.0.1",
        quiet: true,
        env: {
          UPSTREAM_BASE_URL: sandbox.url,
          UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
          UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
          UPSTREAM_SANDBOX: "1",
          AUTH_SECRET: "screenshots-secret-0123456789abcdef012345",
          LINKDESK_SERVICE_TOKEN: SERVICE_TOKEN,
          LINKDESK_DATA_DIR: dataDir,
          DATABASE_URL: "",
          LOG_LEVEL: "warn",
        },
      });
      started.push(dashboard);
      base = dashboard.url;
      // As in the demo: the sandbox lists active links only, and the back end registers every link id it knows.
      await registerBackEndLinks({ sandboxUrl: sandbox.url, dashboardUrl: dashboard.url, token: SERVICE_TOKEN });
    }
    mkdirSync(OUT, { recursive: true });
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
    });
    try {
      const page = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
      await signIn(page, base, "viewer");
      await waitForFirstSync(page, base);
      console.log(`Screenshots of ${base}:`);
      await page.goto(`${base}/links`);
      await shoot(page, "links");
      await page.goto(`${base}/links?state=error`);
      const first = await page
        .getByRole("table", { name: "Links" })
        .getByRole("link", { name: /^mk_/ })
        .first()
        .getAttribute("href");
      await page.goto(`${base}${first}`);
      await shoot(page, "link");
      await page.goto(`${base}/health?days=90`);
      await page.getByRole("heading", { name: "Over time" }).scrollIntoViewIfNeeded();
      await shoot(page, "health");
      const admin = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
      await signIn(admin, base, "admin");
      await admin.goto(`${base}/audit`);
      await shoot(admin, "audit");
    } finally {
      await browser.close();
    }
  } finally {
    await Promise.all(started.reverse().map((p) => p.stop()));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
