// First-load JavaScript of a page: every script the browser fetches to show it, gzip-compressed, as a newcomer would
// download it. Drives the built dashboard in Debian's Chromium against the sandbox.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { launchChromium, signedInContext, startBenchDashboard } from "./dashboard";

export async function benchFirstLoadJs(pages = ["/links", "/health", "/audit", "/rate-limits"]): Promise<{ name: string; rows: string[][] }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-js-"));
  const dashboard = await startBenchDashboard({ port: 3170, dataDir });
  const browser = await launchChromium();
  try {
    const signedIn = await signedInContext(browser, dashboard.url, "admin");
    const rows: string[][] = [];
    for (const target of pages) {
      // A fresh context per page: nothing cached from the previous one.
      const fresh = await browser.newContext({ baseURL: dashboard.url, storageState: await signedIn.storageState() });
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
    rmSync(dataDir, { recursive: true, force: true });
  }
}
