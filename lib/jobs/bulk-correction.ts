import "server-only";
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { appendAudit } from "../audit/append";
import type { SignedInStaff } from "../auth/credentials";
import { getBudget } from "../budget";
import { callHeadroom, estimateCost } from "../budget/headroom";
import type { Db } from "../db/client";
import { type BulkJob, bulkJobs } from "../db/schema";
import { logger } from "../logger";
import type { CorrectCategoryBulkInput } from "../schemas/transactions";
import { toWireCorrection } from "../schemas/transactions";
import { upstream } from "../upstream";
import { isUpstreamError } from "../upstream/errors";

export const CORRECTION_ENDPOINT = "POST /links/{id}/transactions/{txn_id}/enrichment";
/** A running job whose heartbeat is older than this has lost its instance. */
const HEARTBEAT_STALE_MS = 2 * 60_000;

/**
 * Starts a bulk correction: the job row is written, then this instance works through it in queued mode (each call
 * waits for its budget slot, in order) while the person watches progress. Every item gets its own audit row.
 */
export async function startBulkCorrection(db: Db, staff: SignedInStaff, input: CorrectCategoryBulkInput, startedBy: string): Promise<BulkJob> {
  const wire = toWireCorrection(input);
  const [job] = await db
    .insert(bulkJobs)
    .values({
      kind: "transaction.correct_bulk",
      linkId: input.linkId,
      createdBy: staff.id,
      createdByEmail: staff.email,
      total: input.items.length,
      payload: { ...wire, startedBy },
      eta: await etaFor(input.linkId, input.items.length),
    })
    .returning();
  void runBulkCorrection(db, job!, staff, input).catch((error: unknown) =>
    logger().error({ err: error, jobId: job!.id }, "bulk correction stopped"),
  );
  return job!;
}

async function etaFor(linkId: string, calls: number): Promise<Date> {
  const estimate = estimateCost(calls, await callHeadroom(await getBudget(), CORRECTION_ENDPOINT, { linkId }));
  return new Date(Date.now() + (estimate?.seconds ?? 0) * 1000);
}

async function runBulkCorrection(db: Db, job: BulkJob, staff: SignedInStaff, input: CorrectCategoryBulkInput): Promise<void> {
  const wire = toWireCorrection(input);
  const actor = { id: staff.id, email: staff.email, role: staff.role };
  for (const [index, item] of input.items.entries()) {
    const correlationId = randomUUID();
    let outcome: "ok" | "upstream_error" | "error" = "ok";
    let upstreamStatus: number | undefined = 200;
    let upstreamErrorCode: string | undefined;
    try {
      await upstream().correctEnrichment(input.linkId, item.transactionId, wire, { correlationId, mode: "queued" });
    } catch (error) {
      outcome = isUpstreamError(error) ? "upstream_error" : "error";
      upstreamStatus = isUpstreamError(error) ? error.status : undefined;
      upstreamErrorCode = isUpstreamError(error) ? (error.errorCode ?? error.kind) : undefined;
    }
    await appendAudit(
      {
        actor,
        action: "transaction.correct",
        outcome,
        correlationId,
        targetType: "transaction",
        targetId: item.transactionId,
        linkId: input.linkId,
        input: { ...wire, bulkJob: job.id },
        before: item.previous ?? null,
        after: wire,
        upstreamStatus,
        upstreamErrorCode,
      },
      db,
    );
    const left = input.items.length - index - 1;
    await db
      .update(bulkJobs)
      .set({
        done: sql`${bulkJobs.done} + ${outcome === "ok" ? 1 : 0}`,
        failed: sql`${bulkJobs.failed} + ${outcome === "ok" ? 0 : 1}`,
        lastError: outcome === "ok" ? undefined : (upstreamErrorCode ?? "failed"),
        eta: left > 0 ? await etaFor(input.linkId, left) : new Date(),
        status: left === 0 ? "done" : "running",
        updatedAt: new Date(),
      })
      .where(eq(bulkJobs.id, job.id));
  }
}

export interface BulkJobView {
  id: string;
  status: "running" | "done" | "interrupted";
  total: number;
  done: number;
  failed: number;
  eta: string | null;
  lastError: string | null;
}

export async function readBulkJob(db: Db, id: string): Promise<(BulkJobView & { createdBy: string }) | null> {
  const [job] = await db.select().from(bulkJobs).where(eq(bulkJobs.id, id)).limit(1);
  if (!job) return null;
  const stale = job.status === "running" && Date.now() - job.updatedAt.getTime() > HEARTBEAT_STALE_MS && job.eta !== null && job.eta.getTime() < Date.now();
  return {
    id: job.id,
    status: stale ? "interrupted" : job.status,
    total: job.total,
    done: job.done,
    failed: job.failed,
    eta: job.eta?.toISOString() ?? null,
    lastError: job.lastError,
    createdBy: job.createdBy,
  };
}
