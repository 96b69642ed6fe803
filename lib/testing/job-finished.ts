import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { jobItems } from "../db/schema";
import { readJob } from "../jobs/store";

/**
 * Waits for a job to finish, looking every 50 ms; past the timeout, fails naming each item's state, attempts and
 * reason (what a person would look at on the job's page).
 */
export async function untilJobFinished(db: Db, jobId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await readJob(db, jobId);
    if (job?.finishedAt) return job;
    if (Date.now() > deadline) {
      const items = await db.select().from(jobItems).where(eq(jobItems.jobId, jobId));
      throw new Error(
        `job ${jobId} still ${job?.state}: ${items.map((i) => `${i.seq} ${i.state} ${i.attempts} ${i.reason ?? ""}`).join("; ")}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
