"use client";

import { useEffect, useRef } from "react";

// Keyboard-first triage: the keys, as data (the help dialog and the README list the same), and the rule that no
// shortcut fires while someone types in a field.

export const SHORTCUTS: readonly { keys: string[]; does: string; needsCorrect?: boolean }[] = [
  { keys: ["j"], does: "Next transaction" },
  { keys: ["k"], does: "Previous transaction" },
  { keys: ["x"], does: "Select or unselect the transaction", needsCorrect: true },
  { keys: ["c"], does: "Open the category control of the transaction", needsCorrect: true },
  { keys: ["Enter"], does: "In the category control: pick the category, then apply the subcategory. In a review: apply", needsCorrect: true },
  { keys: ["s"], does: "Review the transactions similar to the one just corrected", needsCorrect: true },
  { keys: ["z"], does: "Undo the last change you made here (a correction, or a whole bulk job)", needsCorrect: true },
  { keys: ["/"], does: "Go to search" },
  { keys: ["?"], does: "Show or hide this list" },
  { keys: ["Esc"], does: "Close the category control, the review or this list" },
];

/** Whether a key press belongs to a field someone is typing in (then it is text, not a shortcut). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).closest !== "function") return false;
  const el = target as HTMLElement;
  if (el.isContentEditable) return true;
  return el.closest("input, textarea, select, [contenteditable='true'], [contenteditable='']") !== null;
}

export function ShortcutsHelp({ open, onClose, canCorrect }: { open: boolean; onClose: () => void; canCorrect: boolean }) {
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
        <p className="text-sm text-slate-600">They work anywhere on the transactions, except while typing in a field.</p>
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
          <button autoFocus className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600">
            Close
          </button>
        </form>
      </div>
    </dialog>
  );
}
