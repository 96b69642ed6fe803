"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useHydrated } from "@/components/ui/use-hydrated";
import { undoCorrection } from "@/lib/actions/transactions";
import { categoryLabel, subcategoryLabel } from "@/lib/upstream/taxonomy";

// Undo of one correction where its audit row is shown (the Audit page, a link's history). The server reads the
// transaction first and refuses, in words, when it changed since.

export function UndoCorrectionButton({ correlationId, label }: { correlationId: string; label: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const undo = useMutation({
    mutationFn: async () => {
      const result = await undoCorrection({ correlationId });
      if (result?.serverError) throw new Error(result.serverError);
      if (!result?.data) throw new Error("No answer from Linkdesk. Check the connection and try again.");
      return result.data;
    },
    onSuccess: () => router.refresh(),
  });
  if (undo.data) {
    const r = undo.data.restored;
    return (
      <span role="status" className="inline-block whitespace-normal text-xs text-emerald-800">
        Put back {categoryLabel(r.category)}
        {r.subcategory ? ` › ${subcategoryLabel(r.subcategory)}` : ""}.
      </span>
    );
  }
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-normal">
      <button
        type="button"
        disabled={undo.isPending || !hydrated}
        onClick={() => undo.mutate()}
        aria-label={label}
        className="rounded border border-slate-300 bg-white px-1.5 py-0.5 font-sans text-xs text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600 disabled:opacity-50"
      >
        {undo.isPending ? "Undoing…" : "Undo"}
      </button>
      {undo.error ? (
        <span role="alert" className="max-w-56 font-sans text-xs text-red-700">
          {undo.error.message}
        </span>
      ) : null}
    </span>
  );
}
