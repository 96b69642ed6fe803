"use client";

import { useEffect, useRef } from "react";
import type { ObservedPair } from "@/lib/transactions/categories";
import { isCategory, isSubcategory } from "@/lib/upstream/taxonomy";

// Keyboard-first triage: the keys, as data (the help dialog and the README list the same), and the rule that no
// shortcut fires while someone types in a field.

export const SHORTCUTS: readonly { keys: string[]; does: string; needsCorrect?: boolean }[] = [
  { keys: ["j"], does: "Next transaction" },
  { keys: ["k"], does: "Previous transaction" },
  { keys: ["x"], does: "Select or unselect the transaction", needsCorrect: true },
  { keys: ["c"], does: "Open the category control of the transaction", needsCorrect: true },
  {
    keys: ["Enter"],
    does: "In the category control: pick the category, then apply the subcategory. In a review: apply",
    needsCorrect: true,
  },
  { keys: ["s"], does: "Review the transactions similar to the one just corrected", needsCorrect: true },
  { keys: ["z"], does: "Undo the last change you made here (a correction, or a whole bulk job)", needsCorrect: true },
  { keys: ["/"], does: "Go to search" },
  { keys: ["?"], does: "Show or hide this list" },
  { keys: ["Esc"], does: "Close the category control, the review or this list" },
];

/**
 * What `z` undoes: the person's own changes on one link, newest last. A single correction is named by the correlation id
 * of its audit row, a bulk one by its job id; the server looks either up again and checks it before undoing anything,
 * so what is kept here is only a pointer and the words to announce it (no tokens, nothing the server trusts).
 */
export type RecentChange =
  | {
      kind: "single";
      correlationId: string;
      transactionId: string;
      date: string;
      before: ObservedPair | null;
      label: string;
    }
  | { kind: "job"; jobId: string; label: string };

/** Enough to undo a run of slips; older changes are still undone from their row or the job's page. */
export const RECENT_CHANGES_KEPT = 20;

const recentChangesKey = (linkId: string) => `linkdesk:recent-changes:${linkId}`;

const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0;

function isRecentChange(value: unknown): value is RecentChange {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  if (v.kind === "job") return isText(v.jobId) && typeof v.label === "string";
  if (v.kind !== "single") return false;
  const before = v.before as Record<string, unknown> | null | undefined;
  const beforeOk =
    before === null ||
    (typeof before === "object" &&
      before !== undefined &&
      typeof before.category === "string" &&
      isCategory(before.category) &&
      (before.subcategory === undefined ||
        (typeof before.subcategory === "string" && isSubcategory(before.subcategory))));
  return (
    isText(v.correlationId) &&
    isText(v.transactionId) &&
    typeof v.date === "string" &&
    typeof v.label === "string" &&
    beforeOk
  );
}

/**
 * The changes kept for this link in this tab (sessionStorage: a reload keeps them, closing the tab forgets them).
 * Whatever is stored is treated as untrusted text: anything unreadable or of another shape is dropped, never thrown.
 */
export function readRecentChanges(storage: Pick<Storage, "getItem"> | undefined, linkId: string): RecentChange[] {
  try {
    const raw = storage?.getItem(recentChangesKey(linkId));
    if (!raw) return [];
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter(isRecentChange).slice(-RECENT_CHANGES_KEPT) : [];
  } catch {
    return [];
  }
}

/** Keeps the newest changes for this link; an empty list removes the entry. A full or blocked storage only forgets. */
export function writeRecentChanges(
  storage: Pick<Storage, "setItem" | "removeItem"> | undefined,
  linkId: string,
  changes: readonly RecentChange[],
): void {
  try {
    if (changes.length === 0) storage?.removeItem(recentChangesKey(linkId));
    else storage?.setItem(recentChangesKey(linkId), JSON.stringify(changes.slice(-RECENT_CHANGES_KEPT)));
  } catch {
    // Private mode or a full quota: `z` then works until the next reload, as before.
  }
}

/** The tab's sessionStorage, or undefined where there is none (the server, a browser that blocks it). */
export function sessionStore(): Storage | undefined {
  try {
    return typeof window === "undefined" ? undefined : window.sessionStorage;
  } catch {
    return undefined;
  }
}

/** Whether a key press belongs to a field someone is typing in (then it is text, not a shortcut). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).closest !== "function") return false;
  const el = target as HTMLElement;
  if (el.isContentEditable) return true;
  return el.closest("input, textarea, select, [contenteditable='true'], [contenteditable='']") !== null;
}

export function ShortcutsHelp({
  open,
  onClose,
  canCorrect,
}: {
  open: boolean;
  onClose: () => void;
  canCorrect: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby="shortcuts-heading"
      className="m-auto w-full max-w-lg rounded-lg border border-slate-200 p-0 shadow-xl backdrop:bg-slate-900/30"
    >
      <div className="space-y-3 p-4">
        <h2 id="shortcuts-heading" className="text-base font-semibold text-slate-900">
          Keyboard shortcuts
        </h2>
        <p className="text-sm text-slate-600">
          They work anywhere on the transactions, except while typing in a field.
        </p>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
          {SHORTCUTS.filter((s) => canCorrect || !s.needsCorrect).map((s) => (
            <div key={s.keys.join()} className="contents">
              <dt>
                {s.keys.map((k) => (
                  <kbd key={k} className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs">
                    {k}
                  </kbd>
                ))}
              </dt>
              <dd className="text-slate-700">{s.does}</dd>
            </div>
          ))}
        </dl>
        <form method="dialog" className="text-right">
          <button
            autoFocus
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            Close
          </button>
        </form>
      </div>
    </dialog>
  );
}
