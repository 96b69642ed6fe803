// A dashboard instance's job engine alone, as a real process, for the tests that kill one (lib/jobs/process.test.ts):
// the server's own code path (getDb, the rate budget, upstream(), startJobRunner) configured by the environment like
// the dashboard. Given a plan file, it first plans that job (a category correction, or the import of a fleet file)
// unless an instance already did. It prints "progress <settled>/<total>" as the job moves, "reason <text>" for each
// reason an item shows (what the person reads on the job's page), and "finished" once the job is over, then stops
// cleanly and exits. A plan's `runner` block shortens the runner's waits for the test (settle windows, leases).
// SIGTERM and SIGINT run the server's own shutdown (lib/shutdown.ts, as lib/startup.ts installs it): the engine stops
// and releases its leases, the database closes, and the process exits (0 when every step finished in time). On SIGTERM
// it first prints "held <ids>", the items its engine held when the signal came, for the test to follow them.
// With WORKER_STANDBY=1 it prints "ready" once loaded and waits for "go" on standard input before opening the database.
// Run: node --conditions=react-server --import tsx lib/testing/worker-process.ts [plan.json]
import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { closeDb, getDb } from "../db/client";
import { getEnv } from "../env";
import { logger } from "../logger";
import { installShutdownSignals } from "../shutdown";
import { jobItems, jobs } from "../db/schema";
import { findTransactions } from "../transactions/read";
import { upstream } from "../upstream";
import { type JobRunnerOverrides, startJobRunner, stopJobRunner, stopJobRunnerAtShutdown } from "../jobs";
import { pairOf } from "../transactions/categories";
import { CORRECTION_KIND, type CorrectionItem, createCorrectionKind } from "../jobs/correction";
import { createImportKind } from "../jobs/import";
import { startImportJob } from "../jobs/import-start";
import type { JobKind } from "../jobs/kind-contract";
import { JOB_KINDS } from "../jobs/kind-registry";
import { insertJob } from "../jobs/store";
import { readJobView } from "../jobs/view";

interface RunnerPlan {
  /** The import kind's settle window (production: IMPORT_SETTLE_MS). */
  importSettleMs?: number;
  /** The correction kind's settle window (production: CORRECTION_SETTLE_MS). */
  correctionSettleMs?: number;
  leaseMs?: number;
  heartbeatMs?: number;
}

interface CorrectionPlan {
  kind?: "correction";
  title: string;
  category: CorrectionItem["after"]["category"];
  concurrency: number;
  links: { linkId: string; transactionIds: string[] }[];
  runner?: RunnerPlan;
}

interface ImportPlan {
  kind: "import";
  /** The fleet file to import (NDJSON), as uploaded. */
  file: string;
  concurrency: number;
  runner?: RunnerPlan;
}

type Plan = CorrectionPlan | ImportPlan;

const actor = { id: "00000000-0000-4000-8000-000000000001", email: "support@process.test", role: "support" };

let heldItemIds: () => number[] = () => [];
// Registered before the shutdown's own handler, so it runs first: what the engine held before anything was let go.
process.on("SIGTERM", () => console.log(`held ${heldItemIds().join(",")}`));
const shutdownTimeoutMs = getEnv().SHUTDOWN_TIMEOUT_S * 1000;
installShutdownSignals({ timeoutMs: shutdownTimeoutMs, log: () => logger().child({ component: "shutdown" }) });

const planFile = process.argv[2];
// Standby (WORKER_STANDBY=1): loaded, it waits for "go" on standard input before it opens the database (the embedded
// one allows one process at a time: the worker it takes over from may still hold it).
if (process.env.WORKER_STANDBY === "1") {
  console.log("ready");
  await new Promise<void>((resolve) => {
    let input = "";
    process.stdin.on("data", (chunk: Buffer) => {
      input += chunk.toString();
      if (input.includes("go")) resolve();
    });
    process.stdin.on("end", () => resolve());
  });
}
const { db } = await getDb();
const plan = planFile ? (JSON.parse(readFileSync(planFile, "utf8")) as Plan) : undefined;

async function findOrPlan(): Promise<string> {
  if (!plan) throw new Error("no plan file and no job");
  if (plan.kind === "import") return findOrPlanImport(plan);
  const [existing] = await db.select({ id: jobs.id }).from(jobs).where(eq(jobs.dedupeKey, plan.title));
  if (existing) return existing.id;
  const perLink = await Promise.all(
    plan.links.map(async ({ linkId, transactionIds }) => {
      const current = await findTransactions(
        upstream(),
        linkId,
        transactionIds.map((transactionId) => ({ transactionId })),
        { mode: "queued" },
      );
      return transactionIds.map((transactionId) => {
        const t = current.get(transactionId);
        const input: CorrectionItem = {
          transactionId,
          date: t?.date,
          before: pairOf(t),
          after: { category: plan.category },
        };
        return { input, linkId, targetId: transactionId };
      });
    }),
  );
  // Interleaved across links, so the per-link limits of all of them are used at once.
  const items = perLink
    .flatMap((list, l) => list.map((item, i) => ({ item, order: i * perLink.length + l })))
    .sort((a, b) => a.order - b.order)
    .map((x) => x.item);
  try {
    const job = await insertJob(db, {
      kind: "correction",
      title: plan.title,
      dedupeKey: plan.title,
      concurrency: plan.concurrency,
      createdBy: actor,
      items,
    });
    return job.id;
  } catch (error) {
    // Another instance planned it first (the dedupe key is unique).
    const [raced] = await db.select({ id: jobs.id }).from(jobs).where(eq(jobs.dedupeKey, plan.title));
    if (raced) return raced.id;
    throw error;
  }
}

/** An import is planned as the upload does it; the same links again (by identity) answer the job already planned. */
async function findOrPlanImport(importPlan: ImportPlan): Promise<string> {
  const result = await startImportJob(
    db,
    actor,
    { bytes: readFileSync(importPlan.file), name: "fleet.ndjson" },
    importPlan.concurrency,
  );
  if (result.outcome === "refused") throw new Error("the fleet file was refused");
  if (result.outcome === "started") return result.job.id;
  // Every link is held by the import another process planned a moment ago.
  return [...result.known.values()][0]!.jobId;
}

function runnerOverrides(runner: RunnerPlan = {}): JobRunnerOverrides {
  const kinds = new Map<string, JobKind>(JOB_KINDS);
  if (runner.correctionSettleMs !== undefined)
    kinds.set(CORRECTION_KIND, createCorrectionKind({ settleMs: runner.correctionSettleMs }) as JobKind);
  if (runner.importSettleMs !== undefined)
    kinds.set("import", createImportKind({ settleMs: runner.importSettleMs }) as JobKind);
  return { kinds, leaseMs: runner.leaseMs, heartbeatMs: runner.heartbeatMs };
}

const jobId = await findOrPlan();
const runner = await startJobRunner(runnerOverrides(plan?.runner));
heldItemIds = () => runner.heldItemIds();
stopJobRunnerAtShutdown(shutdownTimeoutMs);
console.log(`owner ${runner.owner}`);
console.log(`job ${jobId}`);
let last = -1;
const reasons = new Set<string>();
for (;;) {
  const items = await db
    .select({ reason: jobItems.reason })
    .from(jobItems)
    .where(eq(jobItems.jobId, jobId))
    .catch(() => []);
  for (const { reason } of items) {
    if (reason && !reasons.has(reason)) {
      reasons.add(reason);
      console.log(`reason ${reason.replace(/\n/g, "\\n")}`);
    }
  }
  const view = await readJobView(db, jobId).catch(() => null);
  if (view && view.settled !== last) {
    last = view.settled;
    console.log(`progress ${view.settled}/${view.total}`);
  }
  if (view && (view.state === "done" || view.state === "cancelled") && view.counts.sent === 0) break;
  await new Promise((r) => setTimeout(r, 200));
}
console.log("finished");
await stopJobRunner(2_000);
await closeDb();
process.exit(0);
