// The Audit page's first page rendered by the server (HTML through HTTP, signed in) with 1,000,000 audit rows in the
// embedded database: the whole request, not only the query.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase } from "../../lib/db/client";
import { bulkLoad } from "./audit";
import { launchChromium, signedInContext, startBenchDashboard } from "./dashboard";
import { type SuiteResult, below, fromRuns } from "./report";
import { percentile, time } from "./stats";

export async function benchAuditPage({ runs = 30, port = 3171 } = {}): Promise<SuiteResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-audit-page-"));
  try {
    const database = await createDatabase({ dataDir: path.join(dataDir, "pglite") });
    await bulkLoad(database);
    await database.close();

    const dashboard = await startBenchDashboard({ port, dataDir, env: { SYNC_INTERVAL_MINUTES: "0" } });
    const browser = await launchChromium();
    try {
      const { request } = await signedInContext(browser, dashboard.url, "viewer");
      const figures: SuiteResult["figures"] = [];
      for (const [label, url] of [
        ["unfiltered", "/audit"],
        ["person filter", "/audit?person=staff7@example.com"],
        ["action + outcome", "/audit?action=link.import&outcome=upstream_error"],
      ] as const) {
        const times = await time(runs, 3, async () => (await request.get(url)).text());
        figures.push(
          fromRuns(`first Audit page, ${label}, 1,000,000 rows, PGlite`, times, "ms", {
            goal: below(100),
            note: `p99 ${percentile(times, 99).toFixed(1)} ms`,
          }),
        );
      }
      return { name: "the Audit page rendered by the server through HTTP", figures };
    } finally {
      await browser.close();
      await dashboard.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
