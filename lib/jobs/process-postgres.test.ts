import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../db/client";
import { createScratchPostgresDatabase } from "../testing/databases";
import {
  serverUrl,
  sandbox,
  plainLinks,
  withJobProcessSandbox,
  startWorker,
  writePlan,
  appliedPerTransaction,
  appliedTotal,
  until,
  auditOf,
  importKilledMidCall,
  startCuttableProxy,
} from "../testing/job-processes";

// Real dashboard processes against a sandbox that enforces the spec's rate limits (lib/testing/job-processes.ts):
// killed with SIGKILL mid-job (a correction, an import) and started again; two instances sharing one job on PostgreSQL;
// the database going away mid-job. In each, the sandbox must see every planned call applied exactly once, and the
// audit must hold one row per call. The tests are split over process.test.ts (embedded database),
// process-postgres.test.ts (an import killed, the database away) and process-instances.test.ts (two instances), so
// that they run side by side.

withJobProcessSandbox();

describe.skipIf(!serverUrl)("a dashboard process killed with SIGKILL mid-import (PostgreSQL)", () => {
  it("finishes the import once the lease lapses: a call that landed late found, a lost one resent once, each link once", async () => {
    const scratch = await createScratchPostgresDatabase();
    try {
      await importKilledMidCall(
        (dir) => ({ DATABASE_URL: scratch.url, LINKDESK_DATA_DIR: dir }),
        () => createDatabase({ url: scratch.url }),
      );
    } finally {
      await scratch.drop();
    }
  }, 300_000);
});

describe.skipIf(!serverUrl)("on PostgreSQL", () => {
  it("pauses while the database is away mid-job, then resumes on its own: each item once", async () => {
    const scratch = await createScratchPostgresDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), "linkdesk-dbdown-"));
    const proxy = await startCuttableProxy(new URL(scratch.url));
    try {
      sandbox.state.stats.reset();
      const { file, ids } = await writePlan(dir, "dbdown-120", plainLinks.slice(40, 46), 20);
      const proxied = new URL(scratch.url);
      proxied.host = `127.0.0.1:${proxy.port}`;
      const worker = startWorker({ DATABASE_URL: proxied.toString(), LINKDESK_DATA_DIR: dir }, file);
      const jobId = (await worker.waitFor(/^job /, 150_000)).slice(4);
      await until("30 corrections applied", () => appliedTotal(ids) >= 30, 90_000).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${worker.lines.join("\n")}\n${worker.stderr()}`);
      });
      // The database restarts: every connection drops, and for 4 s none is accepted.
      proxy.cut();
      const atCut = appliedTotal(ids);
      await new Promise((r) => setTimeout(r, 4_000));
      // Nothing is sent while the shared budget and the job's records are unreachable (at most the calls in flight).
      expect(appliedTotal(ids) - atCut).toBeLessThanOrEqual(12);
      proxy.restore();
      await worker.waitFor(/^finished$/, 150_000);

      expect(appliedPerTransaction(ids).every((n) => n === 1)).toBe(true);
      const database = await createDatabase({ url: scratch.url });
      try {
        const rows = await auditOf(database, jobId);
        expect(rows.filter((r) => r.outcome === "ok")).toHaveLength(120);
      } finally {
        await database.close();
      }
    } finally {
      proxy.close();
      await scratch.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
