import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { syncState } from "../db/schema";
import { shutDownNow } from "../shutdown";
import type { SyncDeps } from "./engine";
import { acquireSyncLease } from "./lease";
import { kickSyncScheduler, startSyncScheduler } from "./scheduler";

// The scheduler's part of a shutdown, around a run whose upstream read does not come back: the run is told to stop,
// and since it cannot, its lease is released for it, so that another instance need not wait for it to lapse.

let database: Database;
const runs: SyncDeps[] = [];

vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));
vi.mock("../budget", () => ({ getBudget: async () => ({ keys: () => [] }) }));
vi.mock("../upstream", () => ({ UpstreamApi: class {}, upstream: () => ({ client: {} }) }));
vi.mock("../env", () => ({ getEnv: () => ({ SYNC_SHARE: 0.8, SYNC_INTERVAL_MINUTES: 15 }) }));
vi.mock("../logger", () => {
  const silent = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    child: () => silent,
  };
  return { logger: () => silent };
});
vi.mock("./engine", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  // A run that takes the lease, starts reading details, and then waits forever on the upstream, deaf to its signal.
  runSync: async (deps: SyncDeps) => {
    runs.push(deps);
    await acquireSyncLease(deps.db, deps.owner!);
    await deps.db.update(syncState).set({ phase: "details", total: 10, done: 4, runStartedAt: new Date() });
    return new Promise(() => undefined);
  },
}));

beforeAll(async () => {
  database = await openTestPglite();
}, 60_000);
afterAll(() => database.close());

describe("the sync scheduler on shutdown", () => {
  it("starts no more runs, tells the run to stop, and releases the lease for a run that cannot stop", async () => {
    startSyncScheduler();
    kickSyncScheduler();
    await vi.waitFor(async () => expect((await database.db.select().from(syncState))[0]?.phase).toBe("details"));
    const [running] = await database.db.select().from(syncState);
    expect(running?.owner).toBe(runs[0]?.owner);

    const outcome = await shutDownNow("SIGTERM");

    expect(runs[0]?.signal?.aborted).toBe(true);
    // Released, with the run's progress kept for whoever resumes it.
    const [released] = await database.db.select().from(syncState);
    expect(released).toMatchObject({ owner: null, heartbeatAt: null, phase: "details", done: 4, total: 10 });
    expect(outcome).toEqual({ clean: true, failed: [], abandoned: [] });
    kickSyncScheduler();
    expect(runs).toHaveLength(1);
  });
});
