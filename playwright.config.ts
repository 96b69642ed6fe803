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
  // One worker: specs share one sandbox, and some switch its fault injection on for a moment.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  use: {
    baseURL: `http://127.0.0.1:${process.env.E2E_PORT ?? 3110}`,
    trace: "retain-on-failure",
    ...devices["Desktop Chrome"],
    launchOptions: {
      executablePath: chromium,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
});
