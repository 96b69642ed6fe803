import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { jobItems, jobs } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { CORRECTION_KIND } from "./correction";
import { IMPORT_KIND } from "./import-items";
import { readJobNotices } from "./notices";
import { type Actor, type NewJobItem, insertJob } from "./store";

// What the shell learns of a person's jobs: their own only, which still move, and for a long job that ended lately
// what came of it, in words.

const databases = withTestDatabases();

const corrections = (n: number): NewJobItem[] =>
  Array.from({ length: n }, (_, i) => ({
    input: { transactionId: `txn_${i}`, before: null, after: { category: "travel" } },
    targetId: `txn_${i}`,
  }));

/** Ends a job as the engine would: its items settled as given, started `ranS` seconds before it ended `agoS` ago. */
async function endJob(
  db: Db,
  jobId: string,
  state: "done" | "cancelled",
  items: Record<string, number>,
  ranS: number,
  agoS = 1,
) {
  const ids = (
    await db.select({ id: jobItems.id }).from(jobItems).where(eq(jobItems.jobId, jobId)).orderBy(jobItems.seq)
  ).map((r) => r.id);
  let at = 0;
  for (const [itemState, n] of Object.entries(items)) {
    for (const id of ids.slice(at, at + n))
      await db.execute(sql`update job_items set state = ${itemState}, finished_at = now() where id = ${id}`);
    at += n;
  }
  await db.execute(sql`
    update jobs set state = ${state}, finished_at = now() - (${agoS}::int * interval '1 second'),
      created_at = now() - (${agoS + ranS}::int * interval '1 second')
    where id = ${jobId}
  `);
}

describe.each(databases)("$kind", (target) => {
  it("lists a person's own moving and lately ended jobs, and words the outcome of the long ones", async () => {
    const db = target.database.db;
    const me: Actor = { id: randomUUID(), email: "support@notices.test", role: "support" };
    const someoneElse: Actor = { id: randomUUID(), email: "ops@notices.test", role: "ops" };
    const linkId = `mk_${randomUUID()}`;
    const make = (title: string, n: number, by = me) =>
      insertJob(db, { kind: CORRECTION_KIND, title, linkId, createdBy: by, items: corrections(n) });

    const running = await make("5 transactions to Travel", 5);
    const long = await make("50 transactions to Travel", 50);
    await endJob(db, long.id, "done", { done: 45, skipped: 3, failed: 2 }, 95);
    const short = await make("2 transactions to Travel", 2);
    await endJob(db, short.id, "done", { done: 2 }, 4);
    const cancelled = await make("40 transactions to Travel", 40);
    await endJob(db, cancelled.id, "cancelled", { done: 30, cancelled: 10 }, 61);
    const old = await make("old", 3);
    await endJob(db, old.id, "done", { done: 3 }, 120, 20 * 60);
    const paused = await make("paused", 3);
    await db.update(jobs).set({ state: "paused" }).where(eq(jobs.id, paused.id));
    const theirs = await make("theirs", 3, someoneElse);

    const notices = await readJobNotices(db, me.id);
    const byId = new Map(notices.map((n) => [n.id, n]));
    expect(byId.has(theirs.id)).toBe(false);
    expect(byId.has(old.id)).toBe(false);
    expect(byId.get(running.id)).toEqual({ id: running.id, live: true, ended: false, message: null });
    expect(byId.get(paused.id)).toEqual({ id: paused.id, live: false, ended: false, message: null });
    expect(byId.get(short.id)).toEqual({ id: short.id, live: false, ended: true, message: null });
    expect(byId.get(long.id)).toEqual({
      id: long.id,
      live: false,
      ended: true,
      message: "“50 transactions to Travel” finished: 45 corrected, 3 skipped, 2 failed.",
    });
    expect(byId.get(cancelled.id)?.message).toBe(
      "“40 transactions to Travel” was cancelled: 30 corrected, 10 cancelled.",
    );
    expect(JSON.stringify(notices)).not.toMatch(/NaN|undefined/);
  });

  it("counts an import's outcome by the links of its file", async () => {
    const db = target.database.db;
    const me: Actor = { id: randomUUID(), email: "ops@notices.test", role: "ops" };
    const items: NewJobItem[] = [0, 1, 2].flatMap((position) => [
      { input: { step: "link", position, body: {} }, targetId: `link ${position + 1}`, groupKey: `link-${position}` },
      {
        input: { step: "batch", position, batch: 1, firstDate: "2024-01-01", lastDate: "2024-01-31", transactions: [] },
        targetId: `link ${position + 1} batch 1`,
        groupKey: `link-${position}`,
      },
    ]);
    const job = await insertJob(db, {
      kind: IMPORT_KIND,
      title: "Import of legacy.json: 3 links",
      createdBy: me,
      items,
    });
    // Links 1 and 2 imported with their batch; link 3 failed and its batch was skipped.
    await endJob(db, job.id, "done", { done: 4 }, 48);
    await db.execute(
      sql`update job_items set state = 'failed', finished_at = now() where job_id = ${job.id} and seq = 4`,
    );
    await db.execute(
      sql`update job_items set state = 'skipped', finished_at = now() where job_id = ${job.id} and seq = 5`,
    );
    const [notice] = (await readJobNotices(db, me.id)).filter((n) => n.id === job.id);
    expect(notice?.message).toBe("“Import of legacy.json: 3 links” finished: 2 imported, 1 failed.");
  });
});
