"use client";

import { useState } from "react";
import { undoJob } from "@/lib/actions/jobs";
import type { CategoryPair, ObservedPair } from "@/lib/transactions/categories";
import type { TransactionRow } from "@/lib/transactions/rows";
import type { CorrectionMark } from "@/lib/transactions/view";
import { categoryLabel, subcategoryLabel } from "@/lib/upstream/taxonomy";
import type { Review } from "./review-list";
import { useCorrectTransaction, useUndoCorrection } from "./use-desk-data";
import { useRecentChanges } from "./use-recent-changes";

// Fixing one transaction and undoing: the correction (optimistic, with the similar ones the upstream names in its
// answer), the undo of a row's correction, and `z`, which undoes the person's last change here (one correction, or a
// whole bulk job as a job of its own). Each row's busy and error state, and the words announced for each outcome.

export const describePair = (pair: CategoryPair) =>
  `${categoryLabel(pair.category)}${pair.subcategory ? ` › ${subcategoryLabel(pair.subcategory)}` : ""}`;
const EMPTY_SET: ReadonlySet<string> = new Set();

export function useDeskCorrections({
  linkId,
  announce,
  showJob,
}: {
  linkId: string;
  /** Says what happened in the desk's live region. */
  announce: (words: string) => void;
  /** Shows a job beside the table (an undo of a bulk job runs as one). */
  showJob: (jobId: string) => void;
}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<ReadonlySet<string>>(EMPTY_SET);
  const [similar, setSimilar] = useState<Record<string, Review>>({});
  const [lastSimilarId, setLastSimilarId] = useState<string | null>(null);
  const changes = useRecentChanges(linkId);
  const correct = useCorrectTransaction(linkId);
  const undo = useUndoCorrection(linkId);

  const setBusyFor = (id: string, on: boolean) =>
    setBusy((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const setErrorFor = (id: string, message: string | null) =>
    setErrors((prev) => {
      const next = { ...prev };
      if (message) next[id] = message;
      else delete next[id];
      return next;
    });

  const choose = (row: TransactionRow, pair: CategoryPair) => {
    setErrorFor(row.id, null);
    setBusyFor(row.id, true);
    correct.mutate(
      { linkId, transactionId: row.id, category: pair.category, subcategory: pair.subcategory!, date: row.date },
      {
        onSuccess: (result) => {
          changes.update((prev) => [
            ...prev,
            {
              kind: "single",
              correlationId: result.correlationId,
              transactionId: row.id,
              date: row.date,
              before: result.mark.before,
              label: `${row.description} to ${describePair(pair)}`,
            },
          ]);
          // The count is what the review ticks: similar transactions not in that category yet.
          if (result.similarCount > 0) {
            setSimilar((prev) => ({
              ...prev,
              [row.id]: {
                title: `${result.similarCount} similar to ${row.description || row.id}`,
                target: pair,
                rows: result.similar,
              },
            }));
            setLastSimilarId(row.id);
          }
          announce(
            `Saved: ${row.description} is now ${describePair(pair)}.${result.similarCount > 0 ? ` The upstream found ${result.similarCount} similar in another category: press s to review them.` : ""}`,
          );
        },
        onError: (err) => {
          setErrorFor(row.id, err.message);
          announce(`Not saved, ${row.description} is back to what it was: ${err.message}`);
        },
        onSettled: () => setBusyFor(row.id, false),
      },
    );
  };

  const undoSingle = (change: {
    correlationId: string;
    transactionId: string;
    date: string;
    before: ObservedPair | null;
    label: string;
  }) => {
    setErrorFor(change.transactionId, null);
    setBusyFor(change.transactionId, true);
    undo.mutate(
      {
        correlationId: change.correlationId,
        transactionId: change.transactionId,
        date: change.date,
        before: change.before,
      },
      {
        onSuccess: (result) =>
          announce(
            `Undone: ${change.label.split(" to ")[0]} is back to ${describePair(result.restored as CategoryPair)}.`,
          ),
        onError: (err) => {
          setErrorFor(change.transactionId, err.message);
          announce(`Not undone: ${err.message}`);
        },
        onSettled: () => setBusyFor(change.transactionId, false),
      },
    );
  };

  const undoRow = (row: TransactionRow, mark: CorrectionMark) =>
    undoSingle({
      correlationId: mark.correlationId,
      transactionId: row.id,
      date: row.date,
      before: mark.before,
      label: row.description,
    });

  const undoLast = async () => {
    const last = changes.current().at(-1);
    if (!last) {
      announce("Nothing to undo: you have made no change here yet.");
      return;
    }
    changes.update((prev) => prev.slice(0, -1));
    if (last.kind === "single") {
      undoSingle(last);
      return;
    }
    announce(`Undoing the bulk job: ${last.label}…`);
    const result = await undoJob({ jobId: last.jobId });
    if (result?.data) {
      showJob(result.data.jobId);
      announce(`Undoing the bulk job ${last.label} as a job of its own.`);
    } else {
      changes.update((prev) => [...prev, last]);
      announce(`Not undone: ${result?.serverError ?? "Linkdesk did not answer."}`);
    }
  };

  /** A bulk job this person started here: `z` undoes it as a whole. */
  const rememberJob = (jobId: string, label: string) =>
    changes.update((prev) => [...prev, { kind: "job", jobId, label }]);

  return { errors, busy, similar, lastSimilarId, choose, undoRow, undoLast, rememberJob };
}
