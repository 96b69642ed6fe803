// First-load JavaScript of a page: every script the browser fetches to show it, gzip-compressed, as a newcomer would
// download it. Drives the built dashboard in Debian's Chromium against the sandbox.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { BrowserContext } from "@playwright/test";
import { launchChromium, signedInContext, startBenchDashboard } from "./dashboard";
import { type SuiteResult, below } from "./report";

/** Every script a fresh browser context fetches to show `target`, raw and gzip-compressed (level 9), in bytes. */
export async function measureFirstLoadJs(
  signedIn: BrowserContext,
  baseURL: string,
  target: string,
): Promise<{ raw: number; gzipped: number; scripts: number }> {
  // A fresh context per page: nothing cached from the previous one.
  const fresh = await signedIn.browser()!.newContext({ baseURL, storageState: await signedIn.storageState() });
  try {
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
    return { raw, gzipped, scripts: scripts.size };
  } finally {
    await fresh.close();
  }
}

export async function benchFirstLoadJs({
  pages = ["/links", "/health", "/audit", "/rate-limits"],
  port = 3170,
} = {}): Promise<SuiteResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-js-"));
  const dashboard = await startBenchDashboard({ port, dataDir });
  const browser = await launchChromium();
  try {
    const signedIn = await signedInContext(browser, dashboard.url, "admin");
    const figures: SuiteResult["figures"] = [];
    for (const target of pages) {
      const { raw, gzipped, scripts } = await measureFirstLoadJs(signedIn, dashboard.url, target);
      figures.push({
        label: `${target}: first-load JS, gzip`,
        value: gzipped / 1024,
        unit: "kB",
        goal: below(250),
        note: `${(raw / 1024).toFixed(0)} kB raw, ${scripts} scripts`,
      });
    }
    return { name: "first-load JavaScript per page", figures };
  } finally {
    await browser.close();
    await dashboard.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
