"use client";

import { useAction } from "next-safe-action/hooks";
import Link from "next/link";
import { useState } from "react";
import { previewImportUndo, undoImport } from "@/lib/actions/import";
import { useHydrated } from "@/components/ui/use-hydrated";
import { NO_ANSWER } from "./no-answer";

// "Delete the links this import created": first a preview (how many, which changed since the import), then a
// confirmation that names the count and the links it keeps, then a durable job of DELETE calls (Jobs page).

export function UndoImport({ jobId, finished }: { jobId: string; finished: boolean }) {
  const hydrated = useHydrated();
  const preview = useAction(previewImportUndo);
  const undo = useAction(undoImport);
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const plan = preview.result.data;
  const started = undo.result.data;
  const error =
    preview.result.serverError ??
    undo.result.serverError ??
    (preview.hasErrored || undo.hasErrored ? NO_ANSWER : undefined);

  if (started) {
    return (
      <p role="status" className="text-sm text-slate-800" data-testid="undo-started">
        Deleting {started.deleting} link{started.deleting === 1 ? "" : "s"}
        {started.keeping > 0 ? `, keeping ${started.keeping} reconnected since` : ""}:{" "}
        <Link className="font-medium text-indigo-700 underline" href={`/jobs/${started.jobId}`}>
          follow the undo
        </Link>
        .
      </p>
    );
  }
  const deleting = plan ? plan.links - plan.changedCount + ticked.size : 0;
  return (
    <div className="space-y-2 text-sm">
      {!plan ? (
        <button
          type="button"
          className="rounded border border-red-300 bg-white px-2.5 py-1 font-medium text-red-800 hover:bg-red-50 disabled:opacity-50"
          disabled={!hydrated || !finished || preview.isPending}
          title={finished ? undefined : "An import can be undone once it has stopped (finished or cancelled)."}
          onClick={() => preview.execute({ jobId })}
        >
          Delete the links this import created…
        </button>
      ) : plan.links === 0 ? (
        <p role="status">This import has no links left to delete.</p>
      ) : (
        <div
          role="dialog"
          aria-labelledby="undo-title"
          className="space-y-2 rounded border border-red-200 bg-red-50 p-3"
        >
          <p id="undo-title" className="font-medium text-red-900">
            {deleting > 0
              ? `Delete ${deleting} link${deleting === 1 ? "" : "s"} this import created?`
              : `Every link left of this import was reconnected since: tick the ones to delete anyway.`}
          </p>
          <p className="text-slate-800">
            The upstream keeps a deleted link readable, as deleted, for 90 days, then removes it; its customer would
            have to link it again. Linkdesk records each deletion in the audit trail, and a later file may import these
            links again.
          </p>
          {plan.changedCount > 0 ? (
            <fieldset className="space-y-1">
              <legend className="text-slate-800">
                {plan.changedCount} link{plan.changedCount === 1 ? " was" : "s were"} reconnected since the import and{" "}
                {plan.changedCount === 1 ? "is" : "are"} kept unless you tick {plan.changedCount === 1 ? "it" : "them"}:
              </legend>
              {plan.changed.map((l) => (
                <label key={l.linkId} className="flex items-center gap-2">
                  <input
                    type="checkbox"
                    checked={ticked.has(l.linkId)}
                    onChange={(event) => {
                      const next = new Set(ticked);
                      if (event.target.checked) next.add(l.linkId);
                      else next.delete(l.linkId);
                      setTicked(next);
                    }}
                  />
                  <span>
                    Line {l.line}: <span className="font-mono">{l.linkId}</span> (customer {l.customerUserId}),{" "}
                    {l.imported} when imported, {l.now} now
                  </span>
                </label>
              ))}
            </fieldset>
          ) : null}
          <p className="flex gap-2">
            <button
              type="button"
              className="rounded border border-red-700 bg-red-700 px-2.5 py-1 font-medium text-white hover:bg-red-800 disabled:opacity-50"
              disabled={undo.isPending || deleting === 0}
              onClick={() => undo.execute({ jobId, include: [...ticked] })}
            >
              Delete {deleting} link{deleting === 1 ? "" : "s"}
            </button>
            <button
              type="button"
              className="rounded border border-slate-300 bg-white px-2.5 py-1"
              onClick={() => (preview.reset(), setTicked(new Set()))}
            >
              Keep them
            </button>
          </p>
        </div>
      )}
      {error ? (
        <p role="alert" className="text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
