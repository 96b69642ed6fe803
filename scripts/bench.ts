// `npm run bench`: every benchmark, side by side where they compare. Figures, not assertions.
import { benchSandboxServe } from "../sandbox/bench-serve";
import { benchAudit } from "./bench/audit";
import { benchAuditPage } from "./bench/audit-page";
import { benchBudget } from "./bench/budget";
import { benchBudgetThroughput } from "./bench/budget-throughput";
import { benchFirstLoadJs } from "./bench/first-load-js";
import { benchHealth } from "./bench/health";
import { benchLinksList } from "./bench/links-list";
import { benchSync } from "./bench/sync";
import { benchUpstreamClient } from "./bench/upstream-client";

interface Result {
  name: string;
  rows: string[][];
}

const suites: Record<string, () => Promise<Result>> = {
  client: () => benchUpstreamClient(),
  audit: () => benchAudit(),
  "audit-page": () => benchAuditPage(),
  budget: () => benchBudget(),
  "budget-throughput": () => benchBudgetThroughput(),
  "first-load-js": () => benchFirstLoadJs(),
  health: () => benchHealth(),
  "links-list": () => benchLinksList(),
  sync: () => benchSync(),
  sandbox: async () => {
    const r = await benchSandboxServe({ seconds: 5 });
    return {
      name: "sandbox serving GET /links/{id} on loopback",
      rows: [[`${Math.round(r.requestsPerSecond)} req/s (goal ≥ 2000)`, `p50 ${r.p50Ms.toFixed(2)} ms`, `p99 ${r.p99Ms.toFixed(2)} ms`]],
    };
  },
};

const only = process.argv.slice(2);
for (const [key, run] of Object.entries(suites)) {
  if (only.length > 0 && !only.includes(key)) continue;
  const result = await run();
  console.log(`\n## ${result.name}`);
  for (const row of result.rows) console.log(`  ${row.join("  |  ")}`);
}
