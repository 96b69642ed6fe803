// `npm run bench [suite…]`: every benchmark (or the suites named), side by side where they compare. Figures, not
// assertions. Prints each suite as it ends and writes bench-results/report.md and report.json (BENCH_RESULTS_DIR to
// put them elsewhere). The suites that start the dashboard listen on BENCH_PORT and the ports after it (default 3170),
// each with its sandbox 1000 above.
import path from "node:path";
import { benchSandboxServe } from "../sandbox/bench-serve";
import { benchAudit } from "./bench/audit";
import { benchAuditPage } from "./bench/audit-page";
import { benchBudget } from "./bench/budget";
import { benchBudgetThroughput } from "./bench/budget-throughput";
import { benchCorrections } from "./bench/corrections";
import { benchDrift } from "./bench/drift";
import { benchFirstLoadJs } from "./bench/first-load-js";
import { benchHealth } from "./bench/health";
import { benchImport } from "./bench/import";
import { benchImportIdentity } from "./bench/import-identity";
import { benchImportUpstream } from "./bench/import-upstream";
import { benchJobs } from "./bench/jobs";
import { benchLinksList } from "./bench/links-list";
import { benchLoad } from "./bench/load";
import { benchPageCost } from "./bench/page-cost";
import { benchReconnect } from "./bench/reconnect";
import {
  type SuiteReport,
  type SuiteResult,
  atLeast,
  describeMachine,
  printSuite,
  summaryTable,
  writeReport,
} from "./bench/report";
import { benchSync } from "./bench/sync";
import { benchUpstreamClient } from "./bench/upstream-client";
import { benchWebhooks } from "./bench/webhooks";
import { ROOT, stopAllStarted } from "./processes";

const port = Number(process.env.BENCH_PORT ?? 3170);

const suites: Record<string, () => Promise<SuiteResult>> = {
  client: () => benchUpstreamClient({ sandboxPort: port + 1010 }),
  audit: () => benchAudit(),
  "audit-page": () => benchAuditPage({ port: port + 1 }),
  budget: () => benchBudget(),
  "budget-throughput": () => benchBudgetThroughput(),
  corrections: () => benchCorrections({ port: port + 2 }),
  drift: () => benchDrift({ sandboxPort: port + 1011 }),
  "first-load-js": () => benchFirstLoadJs({ port }),
  health: () => benchHealth(),
  import: () => benchImport({ port: port + 4 }),
  "import-identity": () => benchImportIdentity(),
  "import-upstream": () => benchImportUpstream(),
  jobs: () => benchJobs(),
  "links-list": () => benchLinksList(),
  load: () => benchLoad({ port: port + 6 }),
  "page-cost": () => benchPageCost({ port: port + 9 }),
  reconnect: () => benchReconnect(),
  sync: () => benchSync(),
  webhooks: () => benchWebhooks({ port: port + 8 }),
  sandbox: async () => {
    const r = await benchSandboxServe({ seconds: 5 });
    return {
      name: "sandbox serving GET /links/{id} on loopback",
      figures: [
        { label: "throughput, 32 connections, 5 s", value: r.requestsPerSecond, unit: "req/s", goal: atLeast(2000) },
        { label: "latency p50", value: r.p50Ms, unit: "ms" },
        { label: "latency p99", value: r.p99Ms, unit: "ms" },
      ],
    };
  },
};

const only = process.argv.slice(2);
const unknown = only.filter((key) => !(key in suites));
if (unknown.length > 0) {
  console.error(
    `Unknown suite${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}. Known: ${Object.keys(suites).join(", ")}.`,
  );
  process.exit(2);
}

const meta = describeMachine();
const reports: SuiteReport[] = [];
const outDir = path.resolve(ROOT, process.env.BENCH_RESULTS_DIR ?? "bench-results");
for (const [key, run] of Object.entries(suites)) {
  if (only.length > 0 && !only.includes(key)) continue;
  const started = performance.now();
  let report: SuiteReport;
  try {
    report = { key, ...(await run()), seconds: 0 };
  } catch (error) {
    report = {
      key,
      name: key,
      seconds: 0,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
    // A suite that failed midway may leave a dashboard or sandbox running: stop them before the next suite.
    await stopAllStarted();
  }
  report.seconds = (performance.now() - started) / 1000;
  reports.push(report);
  printSuite(report);
  // Written after every suite, so a long run stopped midway still leaves what it measured.
  writeReport(outDir, reports, meta);
}

const files = writeReport(outDir, reports, meta);
console.log(
  `\n${summaryTable(reports)}\n\nReport: ${path.relative(process.cwd(), files.markdown)} and ${path.relative(process.cwd(), files.json)}`,
);
