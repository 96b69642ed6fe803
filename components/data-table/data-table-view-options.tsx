"use client";

import { useId, useRef, useState } from "react";
import type { DataTableDensity } from "./data-table";
import { useDismiss } from "@/components/ui/use-dismiss";

// The table's view menu: which columns show and how tall rows are. The table's owner keeps the choice (per person).

export interface ViewOptionColumn {
  id: string;
  label: string;
  visible: boolean;
}

export type ViewSaveState =
  { kind: "idle" } | { kind: "saving" } | { kind: "saved" } | { kind: "failed"; message: string };

const DENSITY_LABELS: Record<DataTableDensity, string> = { compact: "Compact", comfortable: "Comfortable" };

export function DataTableViewOptions({
  columns,
  density,
  onColumnChange,
  onDensityChange,
  onReset,
  saveState,
}: {
  /** The columns a person may hide (not the one that names the row). */
  columns: ViewOptionColumn[];
  density: DataTableDensity;
  onColumnChange: (id: string, visible: boolean) => void;
  onDensityChange: (density: DataTableDensity) => void;
  onReset: () => void;
  saveState: ViewSaveState;
}) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const hiddenCount = columns.filter((c) => !c.visible).length;

  useDismiss(open, root, (by) => {
    setOpen(false);
    if (by === "escape") button.current?.focus();
  });

  return (
    <div ref={root} className="relative flex items-center gap-3">
      <span role="status" className="text-xs text-slate-500">
        {saveState.kind === "saving" ? (
          "Saving your view…"
        ) : saveState.kind === "saved" ? (
          "View saved"
        ) : saveState.kind === "failed" ? (
          <span className="text-red-700">{saveState.message}</span>
        ) : null}
      </span>
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex items-center gap-1.5 rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm text-slate-700 hover:bg-slate-50"
      >
        <svg aria-hidden viewBox="0 0 16 16" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="1.5">
          <path d="M2 4h12M2 8h12M2 12h12" />
        </svg>
        Columns and rows{hiddenCount > 0 ? ` (${hiddenCount} hidden)` : ""}
      </button>
      <div
        id={panelId}
        hidden={!open}
        className="absolute right-0 top-full z-20 mt-1 w-64 rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-lg"
      >
        {/* Its controls are made when it opens: a closed menu costs every page view nothing but its box. */}
        {open ? (
          <>
            <fieldset>
              <legend className="text-xs font-medium uppercase tracking-wide text-slate-500">Columns</legend>
              <ul className="mt-1.5 space-y-1">
                {columns.map((column) => (
                  <li key={column.id}>
                    <label className="flex items-center gap-2 text-slate-800">
                      <input
                        type="checkbox"
                        checked={column.visible}
                        onChange={(e) => onColumnChange(column.id, e.target.checked)}
                        className="size-4 accent-indigo-600"
                      />
                      {column.label}
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
            <fieldset className="mt-3">
              <legend className="text-xs font-medium uppercase tracking-wide text-slate-500">Row height</legend>
              <div className="mt-1.5 flex gap-4">
                {(Object.keys(DENSITY_LABELS) as DataTableDensity[]).map((value) => (
                  <label key={value} className="flex items-center gap-1.5 text-slate-800">
                    <input
                      type="radio"
                      name={`${panelId}-density`}
                      value={value}
                      checked={density === value}
                      onChange={() => onDensityChange(value)}
                      className="size-4 accent-indigo-600"
                    />
                    {DENSITY_LABELS[value]}
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="mt-3 flex items-center justify-between border-t border-slate-100 pt-2">
              <p className="text-xs text-slate-500">Kept for you on any browser.</p>
              <button type="button" onClick={onReset} className="text-xs text-indigo-700 hover:underline">
                Reset
              </button>
            </div>
          </>
        ) : null}
      </div>
    </div>
  );
}
