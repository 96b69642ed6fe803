import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../db/client";
import { createScratchPostgresDatabase } from "../testing/databases";
import { LEASE_TTL_MS } from "../leases/timing";
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
} from "../testing/job-processes";

// Real dashboard processes against a sandbox that enforces the spec's rate limits (lib/testing/job-processes.ts):
// killed with SIGKILL mid-job (a correction, an import) and started again; two instances sharing one job on PostgreSQL;
// the database going away mid-job. In each, the sandbox must see every planned call applied exactly once, and the
// audit must hold one row per call. The tests are split over process.test.ts (embedded database),
// process-postgres.test.ts (an import killed, the database away) and process-instances.test.ts (two instances), so
// that they run side by side.

withJobProcessSandbox();

describe.skipIf(!serverUrl)("on PostgreSQL", () => {
  it("two instances share one 1,000-item job: each item once, both progress, within every limit, no 429", async () => {
    const scratch = await createScratchPostgresDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), "linkdesk-two-"));
    try {
      sandbox.state.stats.reset();
      // Prepared by the first instance's migration; both start together.
      const { file, ids } = await writePlan(dir, "two-1000", plainLinks.slice(10, 35), 40);
      const env = (name: string) => ({ DATABASE_URL: scratch.url, LINKDESK_DATA_DIR: path.join(dir, name) });
      const a = startWorker(env("a"), file);
      const b = startWorker(env("b"), file);
      const jobId = (await a.waitFor(/^job /, 150_000)).slice(4);
      expect((await b.waitFor(/^job /, 150_000)).slice(4)).toBe(jobId);
      await Promise.all([a.waitFor(/^finished$/, 180_000), b.waitFor(/^finished$/, 180_000)]);

      expect(appliedPerTransaction(ids).every((n) => n === 1)).toBe(true);
      expect(sandbox.state.stats.snapshot().rateLimited).toBe(0);
      const database = await createDatabase({ url: scratch.url });
      try {
        const { rows: owners } = await database.db.execute<{ owner: string; n: number }>(
          sql`select lease_owner as owner, count(*)::int as n from job_items where job_id = ${jobId} group by lease_owner`,
        );
        expect(owners).toHaveLength(2);
        for (const o of owners) expect(o.n).toBeGreaterThan(100);
        const rows = await auditOf(database, jobId);
        expect(rows.filter((r) => r.outcome === "ok")).toHaveLength(1000);
        // No link ever got more corrections in a rolling minute than its limit (60, the spec's, at share 1).
        const byLink = new Map<string, number[]>();
        for (const r of rows) byLink.set(r.link_id, [...(byLink.get(r.link_id) ?? []), new Date(r.at).getTime()]);
        for (const times of byLink.values()) {
          times.sort((x, y) => x - y);
          for (let i = 60; i < times.length; i++) expect(times[i]! - times[i - 60]!).toBeGreaterThanOrEqual(60_000);
        }
      } finally {
        await database.close();
      }
    } finally {
      await scratch.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it("SIGTERM to one of two instances mid-job: it exits 0 holding no lease, the other settles what it held without a lease lapsing, each item once", async () => {
    const scratch = await createScratchPostgresDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), "linkdesk-handover-"));
    try {
      sandbox.state.stats.reset();
      const { file, ids } = await writePlan(dir, "handover-160", plainLinks.slice(46, 54), 20);
      // Answers may take longer than the stopping instance's drain (4 s at SHUTDOWN_TIMEOUT_S 10): the client waits.
      const env = (name: string) => ({
        DATABASE_URL: scratch.url,
        LINKDESK_DATA_DIR: path.join(dir, name),
        UPSTREAM_TIMEOUT_MS: "10000",
      });
      const a = startWorker(env("a"), file);
      const b = startWorker(env("b"), file);
      const jobId = (await a.waitFor(/^job /, 150_000)).slice(4);
      expect((await b.waitFor(/^job /, 150_000)).slice(4)).toBe(jobId);
      const aOwner = (await a.waitFor(/^owner /, 5_000)).slice(6);
      await until("40 corrections applied", () => appliedTotal(ids) >= 40, 90_000);

      // From now on corrections are applied at once but answered 8 s later (the drain waits 4 s): when A stops, it is
      // still waiting for the answers to a few.
      sandbox.state.faults.set({ answerDelayMs: 8_000, paths: ["/enrichment"] });
      const database = await createDatabase({ url: scratch.url });
      try {
        const sentByA = async () =>
          (
            await database.db.execute<{ n: number }>(
              sql`select count(*)::int as n from job_items where job_id = ${jobId} and state = 'sent' and lease_owner = ${aOwner}`,
            )
          ).rows[0]!.n;
        await new Promise((r) => setTimeout(r, 500));
        for (const deadline = Date.now() + 20_000; (await sentByA()) < 2 && Date.now() < deadline;)
          await new Promise((r) => setTimeout(r, 50));
        a.child.kill("SIGTERM");
        const held = (await a.waitFor(/^held /, 5_000)).slice(5).split(",").filter(Boolean).map(Number);
        expect(held.length).toBeGreaterThan(0);
        sandbox.state.faults.clear();
        expect(await a.exited).toBe(0);
        const exitedAt = Date.now();

        const states = async () =>
          (
            await database.db.execute<{ id: number; state: string; lease_owner: string | null }>(
              sql`select id, state, lease_owner from job_items where id in ${sql.raw(`(${held.join(",")})`)}`,
            )
          ).rows;
        // Released as A went: none of its unsettled items waits for its lease to lapse. Some were still unanswered
        // ("sent"). An item A settled in its last seconds keeps A as the instance that settled it.
        const atExit = await states();
        expect(atExit.filter((r) => r.lease_owner === aOwner && (r.state === "pending" || r.state === "sent"))).toEqual(
          [],
        );
        const unanswered = atExit.filter((r) => r.state === "sent").length;
        expect(unanswered).toBeGreaterThan(0);
        // B checks those (the upstream applied them) and settles every item A held, well before a lease would lapse.
        let settled = await states();
        const deadline = exitedAt + LEASE_TTL_MS;
        while (!settled.every((r) => r.state === "done") && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          settled = await states();
        }
        const handoverMs = Date.now() - exitedAt;
        expect(settled.map((r) => r.state)).toEqual(held.map(() => "done"));
        console.log(
          `handover: ${held.length} items held at SIGTERM (${unanswered} unanswered), all settled ${handoverMs} ms after the exit`,
        );

        await b.waitFor(/^finished$/, 150_000);
        expect(await b.exited).toBe(0);
        expect(appliedPerTransaction(ids).every((n) => n === 1)).toBe(true);
        expect(sandbox.state.stats.snapshot().rateLimited).toBe(0);
        const rows = await auditOf(database, jobId);
        const ok = rows.filter((r) => r.outcome === "ok");
        expect(ok).toHaveLength(160);
        expect(new Set(ok.map((r) => r.target_id)).size).toBe(160);
      } finally {
        await database.close();
      }
    } finally {
      sandbox.state.faults.clear();
      await scratch.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
