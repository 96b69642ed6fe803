import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

// Playwright cannot download browsers here: the suite drives Debian's Chromium. Its headless shell (the package
// chromium-headless-shell) first: the browser without the desktop browser's user interface, which is what Playwright
// itself runs headless; it took about a third less CPU than `chromium --headless` over the same specs
// (docs/benchmarks.md). Debian's full chromium serves too.
const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
const chromium = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");
if (!existsSync(chromium)) {
  throw new Error(
    `No Chromium at ${chromium}. Install Debian's package: apt-get install -y chromium-headless-shell (or set CHROMIUM_PATH to a Chromium binary).`,
  );
}

export default defineConfig({
  testDir: "./e2e",
  testMatch: "**/*.spec.ts",
  globalSetup: "./e2e/global-setup.ts",
  // Each worker owns a sandbox and a dashboard (e2e/fixtures.ts), so specs that switch the sandbox's faults on meet
  // only their own worker's traffic. The tests of one file run in order, in one worker. Three workers on two cores:
  // much of a spec's time is waiting (on a rate window, a job, a webhook), and a third worker fills it (560 s for the
  // specs instead of 808-884 s with two; docs/benchmarks.md, "The suite").
  workers: Number(process.env.E2E_WORKERS ?? 3),
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  use: {
    // A trace records every action's page (DOM snapshots, a screencast): about a quarter of the browser chain's CPU.
    // CI runs on a clean clone nobody opens afterwards, so there a failure keeps its screenshot and the log; a run here
    // keeps the failed test's trace too.
    trace: process.env.CI ? "off" : "retain-on-failure",
    screenshot: "only-on-failure",
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
