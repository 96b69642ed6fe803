"use client";

import Form from "next/form";
import Link from "next/link";
import { Callout } from "@/components/ui/callout";

// The filter bar: a GET form, so filters land in the URL and a view can be shared and reloaded. Submitting starts on
// the first page (no page field) and keeps the sort (hidden fields). A client module: the page sends the filters as
// data (names, values, options) and the markup is made here, instead of the whole form crossing in every RSC payload.

export interface FilterOption {
  value: string;
  label: string;
}

export type DataTableFilter =
  | { kind: "select"; name: string; label: string; value?: string; options: readonly FilterOption[]; anyLabel: string }
  | {
      kind: "text";
      name: string;
      label: string;
      value?: string;
      placeholder?: string;
      mono?: boolean;
      suggestions?: readonly string[];
      wide?: boolean;
    }
  | {
      kind: "number";
      name: string;
      label: string;
      value?: number;
      placeholder?: string;
      min: number;
      max: number;
      unit?: string;
    };

const field =
  "mt-0.5 block w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 shadow-sm";
const labelClass = "block text-xs font-medium uppercase tracking-wide text-slate-500";

export function DataTableToolbar({
  action,
  label,
  filters,
  keep = {},
  clearHref,
}: {
  action: string;
  /** What the form filters, for screen readers. */
  label: string;
  filters: readonly DataTableFilter[];
  /** Parameters the form carries along unchanged (the sort). */
  keep?: Record<string, string | undefined>;
  clearHref: string;
}) {
  const idOf = (name: string) => `filter-${name}`;
  return (
    <Form action={action} className="mb-4 rounded-lg border border-slate-200 bg-white px-3 py-2.5" aria-label={label}>
      <div className="grid grid-cols-1 gap-x-3 gap-y-2 sm:grid-cols-2 lg:grid-cols-5 xl:grid-cols-6">
        {filters.map((filter) => (
          <div key={filter.name} className={filter.kind === "text" && filter.wide ? "sm:col-span-2" : undefined}>
            <label htmlFor={idOf(filter.name)} className={labelClass}>
              {filter.label}
            </label>
            <FilterInput id={idOf(filter.name)} filter={filter} />
          </div>
        ))}
        {/* The buttons take the grid's next cell, so the bar is no taller than its filters. */}
        <div className="flex items-end gap-2">
          <button
            type="submit"
            className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700"
          >
            Apply
          </button>
          <Link
            href={clearHref}
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-50"
          >
            Clear
          </Link>
        </div>
      </div>
      {Object.entries(keep).map(([name, value]) =>
        value ? <input key={name} type="hidden" name={name} value={value} /> : null,
      )}
    </Form>
  );
}

function FilterInput({ id, filter }: { id: string; filter: DataTableFilter }) {
  switch (filter.kind) {
    case "select": {
      // A value from the URL that the list does not offer (beyond its top entries, or gone) stays selected as itself.
      const options =
        filter.value && !filter.options.some((o) => o.value === filter.value)
          ? [...filter.options, { value: filter.value, label: filter.value }]
          : filter.options;
      return (
        <select id={id} name={filter.name} defaultValue={filter.value ?? ""} className={field}>
          <option value="">{filter.anyLabel}</option>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    }
    case "text":
      return (
        <>
          <input
            id={id}
            name={filter.name}
            type="search"
            spellCheck={false}
            autoComplete="off"
            placeholder={filter.placeholder}
            defaultValue={filter.value ?? ""}
            list={filter.suggestions?.length ? `${id}-suggestions` : undefined}
            className={`${field}${filter.mono ? " font-mono" : ""}`}
          />
          {filter.suggestions?.length ? (
            <datalist id={`${id}-suggestions`}>
              {filter.suggestions.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
          ) : null}
        </>
      );
    case "number":
      return (
        <div className="flex items-center gap-1.5">
          <input
            id={id}
            name={filter.name}
            type="number"
            inputMode="numeric"
            min={filter.min}
            max={filter.max}
            step={1}
            placeholder={filter.placeholder}
            defaultValue={filter.value ?? ""}
            className={field}
          />
          {filter.unit ? <span className="mt-1 text-sm text-slate-500">{filter.unit}</span> : null}
        </div>
      );
  }
}

export interface IgnoredParam {
  label: string;
  value: string;
  reason: string;
}

/** Which URL values were ignored and why, so a stale or hand-edited link explains itself. Values shown as text. */
export function DataTableIgnoredParams({ ignored }: { ignored: readonly IgnoredParam[] }) {
  if (ignored.length === 0) return null;
  return (
    <div className="mb-4">
      <Callout tone="warning" role="status" title="Some filters were ignored">
        <ul className="list-disc pl-5">
          {ignored.map((d) => (
            <li key={`${d.label}:${d.value}`}>
              {d.label} “
              <span className="break-all font-mono">{d.value.length > 80 ? `${d.value.slice(0, 80)}…` : d.value}</span>
              ”: {d.reason}.
            </li>
          ))}
        </ul>
      </Callout>
    </div>
  );
}
