import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

// Playwright cannot download browsers here: the suite drives Debian's Chromium.
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  throw new Error(
    `No Chromium at ${chromium}. Install Debian's package: apt-get install -y chromium (or set CHROMIUM_PATH to a Chromium binary).`,
  );
}

export default defineConfig({
  testDir: "./e2e",
  testMatch: "**/*.spec.ts",
  globalSetup: "./e2e/global-setup.ts",
  // Each worker owns a sandbox and a dashboard (e2e/fixtures.ts), so specs that switch the sandbox's faults on meet
  // only their own worker's traffic. The tests of one file run in order, in one worker.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  use: {
    trace: "retain-on-failure",
    ...devices["Desktop Chrome"],
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
