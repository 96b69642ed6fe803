import "server-only";
import { getDb } from "../db/client";
import { logger } from "../logger";
import { closeReserveMs, onShutdown } from "../shutdown";
import { upstream } from "../upstream";
import { JobRunner, type JobRunnerOptions } from "./engine";
import { JOB_KINDS } from "./kind-registry";
import { releaseOrphanedLeases } from "./store";

// The job engine in the server process: one runner per process, started with the server. It resumes every unfinished
// job on its own: items of a crashed instance are taken over when their leases lapse.

interface Shared {
  runner?: Promise<JobRunner>;
}
// On globalThis: Next.js may evaluate this module more than once in one process, and there must be one runner.
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.jobs")] ??= {});

/**
 * What a test process may change of the runner it starts (lib/testing/worker-process.ts): kinds with shorter settle
 * windows, shorter leases. The server passes none.
 */
export type JobRunnerOverrides = Partial<Pick<JobRunnerOptions, "kinds" | "leaseMs" | "heartbeatMs">>;

/** Starts this process's job runner (once). */
export function startJobRunner(overrides: JobRunnerOverrides = {}): Promise<JobRunner> {
  shared.runner ??= (async () => {
    const database = await getDb();
    const log = logger().child({ component: "jobs" });
    if (database.kind === "pglite") {
      // One process opens the embedded database at a time: every lease in it belongs to a process that is gone, so
      // its items are taken over now instead of when the leases lapse.
      const released = await releaseOrphanedLeases(database.db);
      if (released > 0) log.info({ released }, "took over the items of a previous run of this instance");
    }
    const runner = new JobRunner({ db: database.db, api: upstream(), kinds: JOB_KINDS, log, ...overrides });
    runner.start();
    log.info({ owner: runner.owner }, "job engine started");
    return runner;
  })();
  return shared.runner;
}

/** Looks for work at once (a job was just started, resumed or retried here), if the runner runs in this process. */
export function wakeJobRunner(): void {
  void shared.runner?.then((runner) => runner.wake());
}

/** Stops taking work, lets calls in flight finish up to `drainMs`, and releases this instance's leases. */
export async function stopJobRunner(drainMs?: number): Promise<void> {
  const runner = await shared.runner?.catch(() => undefined);
  shared.runner = undefined;
  await runner?.stop(drainMs);
}

/**
 * Stops the runner as a step of this process's shutdown (lib/shutdown.ts): it stops claiming, lets calls in flight
 * finish for at most half of the time the drain phase has (the rest is for recording them and releasing its leases),
 * and releases its leases.
 */
export function stopJobRunnerAtShutdown(shutdownTimeoutMs: number): void {
  const drainMs = Math.min(5_000, (shutdownTimeoutMs - closeReserveMs(shutdownTimeoutMs)) / 2);
  onShutdown("job engine", () => stopJobRunner(drainMs), "drain");
}
