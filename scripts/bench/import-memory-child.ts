// The server's side of a 20 MB import, alone in a process, for the memory benchmark (scripts/bench/import.ts): read
// the file, check and plan it, write the job into the embedded database, and run it to the end against the sandbox
// given, sampling this process's resident memory. Prints one JSON line.
// Run: node --conditions=react-server --import tsx scripts/bench/import-memory-child.ts <file> <sandbox url> <data dir> [postgres url]
// With a PostgreSQL URL the database lives in its own server, as with several instances; without, the embedded database
// (PGlite, WebAssembly) lives in this process and alone holds several hundred MB.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Budget } from "../../lib/budget/budget";
import { createMemoryStore } from "../../lib/budget/memory-store";
import { createDatabase } from "../../lib/db/client";
import { JobRunner } from "../../lib/jobs/engine";
import { importKind } from "../../lib/jobs/import";
import { IMPORT_KIND } from "../../lib/jobs/import-items";
import { startImportJob } from "../../lib/jobs/import-start";
import type { JobKind } from "../../lib/jobs/kind-contract";
import { readJob } from "../../lib/jobs/store";
import { UpstreamClient } from "../../lib/upstream/client";
import { UpstreamApi } from "../../lib/upstream/index";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";

const [file, sandboxUrl, dataDir, postgresUrl] = process.argv.slice(2) as [string, string, string, string | undefined];
let peak = process.memoryUsage().rss;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const database = await createDatabase(postgresUrl ? { url: postgresUrl } : { dataDir: path.join(dataDir, "pglite") });
const baseline = process.memoryUsage().rss;
const started = performance.now();

/** What the server action does; like the action's, its file and plan are garbage once it returns. */
async function plan(): Promise<{ jobId: string; calls: number; bytes: number }> {
  const bytes = new Uint8Array(readFileSync(file));
  const result = await startImportJob(
    database.db,
    { id: randomUUID(), email: "ops@bench.test", role: "ops" },
    { bytes, name: "legacy.ndjson" },
    6,
  );
  if (result.outcome !== "started") throw new Error("the job was not started");
  return { jobId: result.job.id, calls: result.job.total, bytes: bytes.length };
}
const result = await plan();
const plannedAt = performance.now();
const afterPlan = process.memoryUsage().rss;

const { clientId, clientSecret } = SANDBOX_DEFAULTS;
const budget = new Budget({
  store: createMemoryStore(),
  clientId,
  appId: clientId,
  shares: { app: 1, link: 1, user: 1, client: 1 },
  interactiveMaxWaitMs: 0,
});
const api = new UpstreamApi(new UpstreamClient({ baseUrl: sandboxUrl, clientId, clientSecret, gate: budget }));
const runner = new JobRunner({
  db: database.db,
  api,
  kinds: new Map([[IMPORT_KIND, importKind as JobKind]]),
  pollMs: 20,
});
runner.start();
for (;;) {
  const job = await readJob(database.db, result.jobId);
  if (job?.finishedAt) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
await runner.stop(1_000);
clearInterval(sampler);
const job = await readJob(database.db, result.jobId);
await database.close();
console.log(
  JSON.stringify({
    state: job?.state,
    calls: result.calls,
    bytes: result.bytes,
    baselineMb: baseline / 2 ** 20,
    afterPlanMb: afterPlan / 2 ** 20,
    peakMb: peak / 2 ** 20,
    planSeconds: (plannedAt - started) / 1000,
    seconds: (performance.now() - started) / 1000,
  }),
);
