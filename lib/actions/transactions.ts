"use server";

import { and, eq } from "drizzle-orm";
import { getDb } from "../db/client";
import { auditLog } from "../db/schema";
import { getBudget } from "../budget";
import { callHeadroom, describeDuration, estimateCost } from "../budget/headroom";
import { CORRECTION_ENDPOINT, startBulkCorrection } from "../jobs/bulk-correction";
import { correctCategoryBulkSchema, correctCategorySchema, toWireCorrection, undoCorrectionSchema } from "../schemas/transactions";
import { upstream } from "../upstream";
import { ActionRefused, actionClient, noteUpstream } from "./safe-action";

/** Sets one transaction's category (and subcategory) upstream; answers the updated transaction and similar ones. */
export const correctCategory = actionClient
  .metadata({ action: "transaction.correct", permission: "correct" })
  .inputSchema(correctCategorySchema)
  .action(async ({ parsedInput: input, ctx }) => {
    const wire = toWireCorrection(input);
    ctx.note({
      targetType: "transaction",
      targetId: input.transactionId,
      linkId: input.linkId,
      input: wire,
      before: input.previous ?? null,
      after: wire,
    });
    const result = await noteUpstream(ctx.note, () =>
      upstream().correctEnrichment(input.linkId, input.transactionId, wire, { correlationId: ctx.correlationId }),
    );
    const [updated, ...similar] = result.transactions;
    // What applying the same correction to the similar ones would cost, before anyone starts it.
    const estimate = estimateCost(similar.length, await callHeadroom(await getBudget(), CORRECTION_ENDPOINT, { linkId: input.linkId }));
    // The correlation id names this correction's audit row, so the person can undo it.
    return {
      updated,
      similarCount: similar.length,
      similar: similar.map((t) => ({
        transactionId: t.transaction_id,
        description: t.description ?? t.raw_description ?? "",
        date: t.date,
        category: t.enrichment?.category.value,
        subcategory: t.enrichment?.subcategory?.value,
      })),
      bulkCost: estimate && similar.length > 0 ? `${similar.length} calls, ${describeDuration(estimate.seconds)} at the per-${estimate.scope} limit (${estimate.limit}/min, ${estimate.remaining} left now)` : null,
      correlationId: ctx.correlationId,
    };
  });

/** Puts back the category a correction replaced, from that correction's audit row. */
export const undoCorrection = actionClient
  .metadata({ action: "transaction.undo_correction", permission: "correct" })
  .inputSchema(undoCorrectionSchema)
  .action(async ({ parsedInput: { correlationId }, ctx }) => {
    const { db } = await getDb();
    const [original] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.correlationId, correlationId), eq(auditLog.action, "transaction.correct"), eq(auditLog.outcome, "ok")))
      .limit(1);
    if (!original?.linkId || !original.targetId) throw new ActionRefused("That correction was not found, or it did not go through.");
    const before = correctCategorySchema.shape.previous.safeParse(original.before);
    if (!before.success || !before.data) throw new ActionRefused("That correction did not record the category it replaced, so it cannot be undone.");
    const wire = toWireCorrection(before.data);
    ctx.note({
      targetType: "transaction",
      targetId: original.targetId,
      linkId: original.linkId,
      input: { undoes: correlationId, ...wire },
      before: original.after,
      after: wire,
    });
    await noteUpstream(ctx.note, () => upstream().correctEnrichment(original.linkId!, original.targetId!, wire, { correlationId: ctx.correlationId }));
    return { restored: wire };
  });

/** Applies one correction to many transactions of a link, as a queued job within the rate budget. */
export const correctCategoryBulk = actionClient
  .metadata({ action: "transaction.correct_bulk", permission: "correct" })
  .inputSchema(correctCategoryBulkSchema)
  .action(async ({ parsedInput: input, ctx }) => {
    const { db } = await getDb();
    const wire = toWireCorrection(input);
    ctx.note({ targetType: "link", targetId: input.linkId, linkId: input.linkId, input: { ...wire, transactions: input.items.length }, after: wire });
    const job = await startBulkCorrection(db, ctx.staff, input, ctx.correlationId);
    ctx.note({ targetType: "bulk_job", targetId: job.id });
    return { jobId: job.id, total: job.total, eta: job.eta?.toISOString() ?? null };
  });
