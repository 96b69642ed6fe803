import "server-only";
import { getBudget } from "../budget";
import { callHeadroom, describeDuration, estimateCost } from "../budget/headroom";
import type { UpstreamApi } from "../upstream";
import type { WireCorrectEnrichmentRequest } from "../upstream/schemas";
import { CORRECTION_ENDPOINT, type CategoryPair, type ObservedPair, asCategoryPair, pairOf } from "./categories";
import { noteCorrectedTransactions } from "./history";
import { findTransactions } from "./read";
import { type TransactionRow, splitCorrectionAnswer, toTransactionRow } from "./rows";
import type { CorrectionMark } from "./view";

// Correcting one transaction's category: what the correction action does once the person is signed in, may correct
// and sent a valid pair. The action records what this reports (the category before, the upstream's outcome).

export interface CorrectionHooks {
  correlationId: string;
  /** Who corrects, as the mark on the desk names them. */
  by: string;
  /** Told what the transaction had before, as the upstream has it: the audit's "before", never the browser's. */
  onBefore: (before: ObservedPair | null) => void;
  /** Runs the upstream call (the action notes its outcome for the audit row). */
  send: <T>(call: () => Promise<T>) => Promise<T>;
}

export type CategoryCorrection =
  | { refused: string }
  | {
      updated: TransactionRow | null;
      mark: CorrectionMark;
      /** Similar transactions not in that category yet: the ones the review ticks. */
      similarCount: number;
      similar: TransactionRow[];
      bulkCost: string | null;
    };

/** Sets one transaction's category upstream; answers the updated transaction, similar ones and what fixing those costs. */
export async function correctTransactionCategory(
  api: UpstreamApi,
  input: { linkId: string; transactionId: string; date?: string },
  wire: WireCorrectEnrichmentRequest,
  hooks: CorrectionHooks,
): Promise<CategoryCorrection> {
  const { linkId, transactionId } = input;
  // What the transaction has now, from the upstream: a transaction id that is not on the link is refused before
  // anything is changed.
  const current = (await findTransactions(api, linkId, [input], { correlationId: hooks.correlationId })).get(
    transactionId,
  );
  if (!current) return { refused: `Transaction ${transactionId} is not on link ${linkId}.` };
  const before = pairOf(current);
  hooks.onBefore(before);
  const result = await hooks.send(() =>
    api.correctEnrichment(linkId, transactionId, wire, { correlationId: hooks.correlationId }),
  );
  noteCorrectedTransactions(linkId, result.transactions);
  const accounts = new Map(result.accounts.map((a) => [a.account_id, a]));
  const { updated, similar, toChange } = splitCorrectionAnswer(
    result.transactions.map((t) => toTransactionRow(t, accounts)),
    transactionId,
    wire,
  );
  // What applying the same correction to the similar ones would cost, before anyone starts it.
  const estimate = estimateCost(toChange, await callHeadroom(await getBudget(), CORRECTION_ENDPOINT, { linkId }));
  const mark: CorrectionMark = {
    kind: "corrected",
    by: hooks.by,
    at: new Date().toISOString(),
    correlationId: hooks.correlationId,
    jobId: null,
    before,
    after: wire as CategoryPair,
    undoable: before !== null && asCategoryPair(before) !== null,
  };
  return {
    updated: updated ?? null,
    mark,
    similarCount: toChange,
    similar,
    bulkCost:
      estimate && toChange > 0
        ? `${toChange} calls, ${describeDuration(estimate.seconds)} at the per-${estimate.scope} limit (${estimate.limit}/min, ${estimate.remaining} left now)`
        : null,
  };
}
