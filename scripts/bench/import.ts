// Importing links: checking a 1 MB file in the Import page's Web Worker (Chromium, the real page) and with the same
// code in Node; planning a 20 MB legacy file; a fleet import's pace against the binding limit (POST /links/import
// per app) through the real budget and the rate-limited sandbox; the server's memory during a 20 MB job.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { Budget } from "../../lib/budget/budget";
import { createMemoryStore } from "../../lib/budget/memory-store";
import { createDatabase } from "../../lib/db/client";
import { jobItems } from "../../lib/db/schema";
import { analyzeImportFile } from "../../lib/import/reader";
import { JobRunner } from "../../lib/jobs/engine";
import { importKind } from "../../lib/jobs/import";
import { IMPORT_ENDPOINT, IMPORT_KIND } from "../../lib/jobs/import-items";
import { importConcurrency, startImportJob } from "../../lib/jobs/import-start";
import type { JobKind } from "../../lib/jobs/kind-contract";
import { readJob } from "../../lib/jobs/store";
import { UpstreamClient } from "../../lib/upstream/client";
import { UpstreamApi } from "../../lib/upstream/index";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { createSandbox } from "../../sandbox/server";
import { ROOT, build, buildIsStale, startDashboard, startSandbox } from "../processes";
import { launchChromium, signedInContext } from "./dashboard";
import { legacyFleet, legacyLink } from "./import-files";
import { createScratchDatabase } from "./scratch-database";
import { type Figure, type SuiteResult, atLeast, below, exactly, fromRuns, skipped } from "./report";
import { median } from "./stats";

const FULL = Boolean(process.env.LINKDESK_BENCH_FULL);
/** The dashboard and sandbox this suite starts by default (IMPORT_BENCH_PORT and the next port). */
const PORT = Number(process.env.IMPORT_BENCH_PORT ?? 3640);

/** CPU time of this process since `since` (user and system), in ms. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** One link of 4000 transactions: about 1 MB, the upstream's limit for one call. */
const oneMegabyte = () => JSON.stringify(legacyLink(`mb-${randomUUID()}`, 4000));

async function validateInNode(): Promise<Figure[]> {
  const samples: number[] = [];
  const cpu: number[] = [];
  let first = 0;
  for (let run = 0; run < 7; run++) {
    const bytes = new TextEncoder().encode(oneMegabyte());
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const { report } = await analyzeImportFile(bytes);
    const elapsed = performance.now() - started;
    cpu.push(cpuMs(cpuStarted));
    if (report.valid !== 1) throw new Error("the 1 MB file did not validate");
    if (run === 0) first = elapsed;
    samples.push(elapsed);
  }
  return [
    fromRuns("1 MB, 4000 transactions: read, checked, planned (the worker's code, in Node)", samples, "ms", {
      goal: below(300),
      note: `first ${first.toFixed(0)} ms; CPU time median ${median(cpu).toFixed(0)} ms, first ${cpu[0]!.toFixed(0)} ms (on a shared machine the CPU time is the steadier figure)`,
    }),
  ];
}

/** The real Import page in Chromium: each file read in a fresh Web Worker, the page showing the worker's own time. */
async function validateInChromium(port: number): Promise<Figure[]> {
  if (buildIsStale()) await build();
  const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-import-"));
  const sandbox = await startSandbox({ port: port + 1, quiet: true, env: { SANDBOX_LINKS: "100" } });
  const dashboard = await startDashboard({
    port,
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
      SYNC_INTERVAL_MINUTES: "0",
    },
  });
  const browser = await launchChromium();
  try {
    const context = await signedInContext(browser, dashboard.url, "ops");
    const page = await context.newPage();
    await page.goto("/import");
    const samples: number[] = [];
    for (let run = 0; run < 5; run++) {
      await page
        .locator("#import-file")
        .setInputFiles({ name: `mb-${run}.json`, mimeType: "application/json", buffer: Buffer.from(oneMegabyte()) });
      const summary = page.getByTestId("file-summary");
      await summary.filter({ hasText: `mb-${run}.json` }).waitFor();
      const match = /checked in (\d+) ms/.exec((await summary.textContent()) ?? "");
      samples.push(Number(match?.[1] ?? NaN));
    }
    return [
      fromRuns("1 MB, 4000 transactions in the Import page's Web Worker (Chromium)", samples, "ms", {
        goal: below(300),
      }),
    ];
  } finally {
    await browser.close();
    await dashboard.stop();
    await sandbox.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** 20 MB: 16 links of 5000 transactions (80,000), checked and split into calls. */
function twentyMegabytes(): string {
  return legacyFleet(`legacy-${randomUUID()}`, 16, 5000);
}

async function planTwentyMegabytes(): Promise<Figure[]> {
  const text = twentyMegabytes();
  const bytes = new TextEncoder().encode(text);
  const samples: number[] = [];
  const cpu: number[] = [];
  let calls = "";
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const { report } = await analyzeImportFile(bytes, { keepPlans: true });
    samples.push(performance.now() - started);
    cpu.push(cpuMs(cpuStarted));
    calls = `${report.transactions.toLocaleString("en-US")} transactions → ${report.calls.imports} imports + ${report.calls.batches} batches`;
  }
  return [
    fromRuns(`${(bytes.length / 2 ** 20).toFixed(1)} MB legacy file: read, checked, planned (Node)`, samples, "ms", {
      goal: below(2000),
      note: `first ${samples[0]!.toFixed(0)} ms; CPU time median ${median(cpu).toFixed(0)} ms, first ${cpu[0]!.toFixed(0)} ms; ${calls}`,
    }),
  ];
}

/** A fleet of small links through the budget at Linkdesk's default share, against the sandbox's limits and delays. */
async function fleetRate(): Promise<Figure[]> {
  const share = 0.5;
  const links = FULL ? 300 : 45;
  const sandbox = createSandbox({ links: 50, importDelayMs: FULL ? 10_000 : 2_000 });
  const url = await sandbox.listen(0, "127.0.0.1");
  const database = await createDatabase({ dataDir: "memory" });
  try {
    const { clientId, clientSecret } = sandbox.state.options;
    const budget = new Budget({
      store: createMemoryStore(),
      clientId,
      appId: clientId,
      shares: { app: share, link: share, user: share, client: share },
      interactiveMaxWaitMs: 0,
    });
    const api = new UpstreamApi(new UpstreamClient({ baseUrl: url, clientId, clientSecret, gate: budget }), 30_000);
    const limit = budget.keys(IMPORT_ENDPOINT, {})[0]!.limit;
    const bytes = new TextEncoder().encode(legacyFleet(`fleet-${randomUUID()}`, links, 3));
    const concurrency = importConcurrency({ importsPerMinute: limit, batchesPerMinute: limit * 2, hasBatches: false });
    const result = await startImportJob(
      database.db,
      { id: randomUUID(), email: "ops@bench.test", role: "ops" },
      { bytes, name: "fleet.ndjson" },
      concurrency,
    );
    if (result.outcome !== "started") throw new Error("not started");
    const runner = new JobRunner({
      db: database.db,
      api,
      kinds: new Map([[IMPORT_KIND, importKind as JobKind]]),
      pollMs: 50,
    });
    runner.start();
    for (;;) {
      const job = await readJob(database.db, result.job.id);
      if (job?.finishedAt) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await runner.stop(1_000);
    const [span] = await database.db
      .select({
        first: sql<string>`min(${jobItems.sentAt})::text`,
        last: sql<string>`max(${jobItems.sentAt})::text`,
        done: sql<number>`count(*) filter (where ${jobItems.state} = 'done')::int`,
      })
      .from(jobItems)
      .where(and(eq(jobItems.jobId, result.job.id)));
    const seconds = (Date.parse(span!.last) - Date.parse(span!.first)) / 1000;
    // The fastest schedule the limit allows: a burst of `limit`, then `limit` per 61 s window (60 s and the margin).
    const idealSeconds = Math.floor((links - 1) / limit) * 61;
    const stats = sandbox.state.stats.snapshot();
    return [
      {
        label: `fleet of ${links} links at ${share * 100} % of POST /links/import (${limit}/min), concurrency ${concurrency}, answers up to ${FULL ? 10 : 2} s: share of the binding limit`,
        value: (idealSeconds / seconds) * 100,
        unit: "%",
        goal: atLeast(90),
        // Each link's item looks for the link under its customer (GET /users/{id}/links) before importing it.
        note: `first to last call ${seconds.toFixed(1)} s, fastest allowed ${idealSeconds} s; ${span!.done}/${links} done; ${stats.byEndpoint["GET /users/{id}/links"]?.requests ?? 0} GET /users/{id}/links for ${stats.byEndpoint["POST /links/import"]?.requests ?? 0} POST /links/import${FULL ? "" : " (LINKDESK_BENCH_FULL=1: 300 links, 10 s)"}`,
      },
      { label: "fleet import: 429s from the upstream", value: stats.rateLimited, unit: "", goal: exactly(0) },
    ];
  } finally {
    await database.close();
    await sandbox.close();
  }
}

/** The server's side of a 20 MB job in a process of its own; the sandbox (which keeps what is imported) in this one. */
async function memoryOfTwentyMegabyteJob(storage: "postgres" | "embedded", heapMb?: number): Promise<Figure[]> {
  const serverUrl = process.env.DATABASE_URL;
  if (storage === "postgres" && !serverUrl)
    return [skipped("20 MB job on PostgreSQL: memory", "DATABASE_URL is not set")];
  const scratch = storage === "postgres" ? await createScratchDatabase(serverUrl!) : null;
  const dir = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-import-mem-"));
  const file = path.join(dir, "legacy.ndjson");
  writeFileSync(file, twentyMegabytes());
  const sandbox = createSandbox({ links: 50, importDelayMs: 0, rateLimits: false });
  const url = await sandbox.listen(0, "127.0.0.1");
  try {
    const args = [
      path.join(ROOT, "scripts/bench/import-memory-child.ts"),
      file,
      url,
      dir,
      ...(scratch ? [scratch.url] : []),
    ];
    // With a capped heap V8 collects as it goes: the peak then shows what the job really keeps, not what V8 had not
    // collected yet.
    const heap = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
    const child = spawn(process.execPath, [...heap, "--conditions=react-server", "--import", "tsx", ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    if (code !== 0) throw new Error(`the memory child exited with ${code}`);
    const r = JSON.parse(out.trim().split("\n").at(-1)!) as {
      state: string;
      calls: number;
      bytes: number;
      baselineMb: number;
      afterPlanMb: number;
      peakMb: number;
      planSeconds: number;
      seconds: number;
    };
    const where = `${storage === "postgres" ? "PostgreSQL server" : "embedded database (in the process)"}${heapMb ? `, heap capped at ${heapMb} MB` : ", default heap"}`;
    return [
      {
        label: `${(r.bytes / 2 ** 20).toFixed(1)} MB job (${r.calls} calls, ${r.state}) on the ${where}: peak resident memory of the server's process`,
        value: r.peakMb,
        unit: "MB",
        goal: storage === "postgres" ? below(300) : undefined,
        note: `+${(r.peakMb - r.baselineMb).toFixed(0)} MB for the import; ${r.baselineMb.toFixed(0)} MB with the database open, ${r.afterPlanMb.toFixed(0)} MB after planning (${r.planSeconds.toFixed(1)} s); ran in ${r.seconds.toFixed(1)} s without rate limits; Next.js itself not included`,
      },
    ];
  } finally {
    await sandbox.close();
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchImport({ port = PORT } = {}): Promise<SuiteResult> {
  return {
    name: "importing links: checking in the worker, planning 20 MB, a fleet's pace against the binding limit, memory of a 20 MB job",
    figures: [
      ...(await validateInNode()),
      ...(await validateInChromium(port)),
      ...(await planTwentyMegabytes()),
      ...(await fleetRate()),
      ...(await memoryOfTwentyMegabyteJob("postgres")),
      ...(await memoryOfTwentyMegabyteJob("postgres", 128)),
      ...(await memoryOfTwentyMegabyteJob("embedded")),
    ],
  };
}
