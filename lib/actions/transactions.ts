"use server";

import { and, eq } from "drizzle-orm";
import { getDb } from "../db/client";
import { auditLog } from "../db/schema";
import { PlanRefused, correctionItemSchema, duplicatesDropped, startCorrectionJob } from "../jobs/correction";
import { wakeJobRunner } from "../jobs";
import {
  correctCategoryBulkSchema,
  correctCategorySchema,
  toWireCorrection,
  undoCorrectionSchema,
} from "../schemas/transactions";
import {
  type CategoryPair,
  asCategoryPair,
  categoryPairSchema,
  describePair,
  hasPair,
  pairOf,
} from "../transactions/categories";
import { noteCorrectedTransactions } from "../transactions/history";
import { findTransactions } from "../transactions/read";
import { correctTransactionCategory } from "../transactions/correct";
import { toTransactionRow } from "../transactions/rows";
import type { CorrectionMark } from "../transactions/view";
import { upstream } from "../upstream";
import { ActionRefused, actionClient, noteUpstream } from "./safe-action";

/** Sets one transaction's category and subcategory upstream; answers the updated transaction and similar ones. */
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
      after: wire,
    });
    const corrected = await correctTransactionCategory(upstream(), input, wire, {
      correlationId: ctx.correlationId,
      by: ctx.staff.email,
      onBefore: (before) => ctx.note({ before }),
      send: (call) => noteUpstream(ctx.note, call),
    });
    if ("refused" in corrected) throw new ActionRefused(corrected.refused);
    // The correlation id names this correction's audit row, so the person can undo it.
    return { ...corrected, correlationId: ctx.correlationId };
  });

/**
 * Puts back the category a correction replaced, from that correction's audit row (a single one, or one item of a bulk
 * job). The transaction is read first: if its category is no longer what the correction set (changed again since, or
 * already undone), nothing is sent and the person is told what it is now.
 */
export const undoCorrection = actionClient
  .metadata({ action: "transaction.undo_correction", permission: "correct" })
  .inputSchema(undoCorrectionSchema)
  .action(async ({ parsedInput: { correlationId, date }, ctx }) => {
    const { db } = await getDb();
    const [original] = await db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.correlationId, correlationId),
          eq(auditLog.action, "transaction.correct"),
          eq(auditLog.outcome, "ok"),
        ),
      )
      .limit(1);
    if (!original?.linkId || !original.targetId)
      throw new ActionRefused("That correction was not found, or it did not go through.");
    const linkId = original.linkId;
    const transactionId = original.targetId;
    ctx.note({ targetType: "transaction", targetId: transactionId, linkId, input: { undoes: correlationId } });
    const before = correctionItemSchema.shape.before.safeParse(original.before);
    const after = categoryPairSchema.safeParse(original.after);
    if (!before.success || !before.data || !after.success)
      throw new ActionRefused("That correction did not record the category it replaced, so it cannot be undone.");
    const restore = asCategoryPair(before.data);
    if (!restore)
      throw new ActionRefused(
        `It was ${describePair(before.data)} before, a category the upstream no longer takes (or one this version of Linkdesk does not know), so it cannot be put back: choose a category instead.`,
      );
    const current = (
      await findTransactions(upstream(), linkId, [{ transactionId, date }], { correlationId: ctx.correlationId })
    ).get(transactionId);
    if (!current) throw new ActionRefused(`Transaction ${transactionId} is no longer on link ${linkId}.`);
    const now = pairOf(current);
    if (!hasPair(now, after.data)) {
      throw new ActionRefused(
        `Changed since: it is now ${describePair(now)}, not ${describePair(after.data)}, so it was left as it is.`,
      );
    }
    const wire = toWireCorrection(restore);
    ctx.note({ input: { undoes: correlationId, ...wire }, before: now, after: wire });
    const result = await noteUpstream(ctx.note, () =>
      upstream().correctEnrichment(linkId, transactionId, wire, { correlationId: ctx.correlationId }),
    );
    noteCorrectedTransactions(linkId, result.transactions);
    const accounts = new Map(result.accounts.map((a) => [a.account_id, a]));
    const updated = result.transactions.find((t) => t.transaction_id === transactionId);
    const mark: CorrectionMark = {
      kind: "undone",
      by: ctx.staff.email,
      at: new Date().toISOString(),
      correlationId: ctx.correlationId,
      jobId: null,
      before: now,
      after: wire as CategoryPair,
      undoable: false,
    };
    return {
      restored: wire,
      linkId,
      transactionId,
      updated: updated ? toTransactionRow(updated, accounts) : null,
      mark,
    };
  });

/** Applies one correction to many transactions of a link, as a durable job within the rate budget. */
export const correctCategoryBulk = actionClient
  .metadata({ action: "transaction.correct_bulk", permission: "correct" })
  .inputSchema(correctCategoryBulkSchema)
  .action(async ({ parsedInput: input, ctx }) => {
    const { db } = await getDb();
    const wire = toWireCorrection(input);
    ctx.note({
      targetType: "link",
      targetId: input.linkId,
      linkId: input.linkId,
      input: { ...wire, transactions: input.items.length },
      after: wire,
    });
    const actor = { id: ctx.staff.id, email: ctx.staff.email, role: ctx.staff.role };
    const job = await startCorrectionJob(
      db,
      upstream(),
      actor,
      input.linkId,
      input.items.map((item) => ({ transactionId: item.transactionId, ...wire })),
      { correlationId: ctx.correlationId },
    ).catch((error: unknown) => {
      throw error instanceof PlanRefused ? new ActionRefused(error.message) : error;
    });
    wakeJobRunner();
    // Copies of a transaction already in the request are dropped where the job is planned: said here and on the audit row.
    const duplicates = duplicatesDropped(job);
    ctx.note({
      targetType: "job",
      targetId: job.id,
      input: {
        ...wire,
        transactions: input.items.length,
        ...(duplicates > 0 ? { duplicatesDropped: duplicates } : {}),
      },
    });
    return { jobId: job.id, total: job.total, duplicatesDropped: duplicates };
  });
