import Form from "next/form";
import Link from "next/link";
import { Callout } from "@/components/ui/callout";
import { AUDIT_ACTIONS, AUDIT_OUTCOME_LABELS } from "@/lib/audit/actions";
import type { AuditFilters, DroppedFilter } from "@/lib/audit/query";

const field =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 shadow-sm";
const label = "block text-xs font-medium uppercase tracking-wide text-slate-500";

/**
 * The Audit page's filters as a GET form, so they land in the URL and a view can be shared and reloaded. Submitting
 * leaves the cursor out: new filters start on the first page.
 */
export function AuditFilterForm({ filters }: { filters: AuditFilters }) {
  return (
    <Form
      action="/audit"
      className="mb-4 rounded-lg border border-slate-200 bg-white p-4"
      aria-label="Filter the audit trail"
    >
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-6">
        <div className="lg:col-span-2">
          <label htmlFor="audit-person" className={label}>
            Person
          </label>
          <input
            id="audit-person"
            name="person"
            type="email"
            placeholder="name@company.com"
            defaultValue={filters.person ?? ""}
            className={field}
          />
        </div>
        <div>
          <label htmlFor="audit-action" className={label}>
            Action
          </label>
          <select id="audit-action" name="action" defaultValue={filters.action ?? ""} className={field}>
            <option value="">Any action</option>
            {Object.entries(AUDIT_ACTIONS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="audit-link" className={label}>
            Link id
          </label>
          <input
            id="audit-link"
            name="link"
            type="text"
            spellCheck={false}
            defaultValue={filters.link ?? ""}
            className={`${field} font-mono`}
          />
        </div>
        <div>
          <label htmlFor="audit-outcome" className={label}>
            Outcome
          </label>
          <select id="audit-outcome" name="outcome" defaultValue={filters.outcome ?? ""} className={field}>
            <option value="">Any outcome</option>
            {Object.entries(AUDIT_OUTCOME_LABELS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="audit-correlation" className={label}>
            Correlation id
          </label>
          <input
            id="audit-correlation"
            name="correlation"
            type="text"
            spellCheck={false}
            defaultValue={filters.correlation ?? ""}
            className={`${field} font-mono`}
          />
        </div>
        <TimeBound id="audit-from" name="from" text="From (UTC)" value={filters.from?.text} />
        <TimeBound id="audit-to" name="to" text="To (UTC, inclusive)" value={filters.to?.text} />
        <div className="flex items-end gap-2 sm:col-span-2 lg:col-span-4">
          <button
            type="submit"
            className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700"
          >
            Apply
          </button>
          <Link
            href="/audit"
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-50"
          >
            Clear
          </Link>
        </div>
      </div>
    </Form>
  );
}

/**
 * A date input; a bound given in the URL as an exact instant stays a text input holding it, since a date input would
 * show nothing and widen the range on the next Apply.
 */
function TimeBound({ id, name, text, value }: { id: string; name: string; text: string; value: string | undefined }) {
  const instant = value !== undefined && value.length > 10;
  return (
    <div>
      <label htmlFor={id} className={label}>
        {text}
      </label>
      <input
        id={id}
        name={name}
        type={instant ? "text" : "date"}
        defaultValue={value ?? ""}
        className={`${field}${instant ? " font-mono" : ""}`}
      />
    </div>
  );
}

const PARAM_LABELS: Record<DroppedFilter["param"], string> = {
  person: "Person",
  action: "Action",
  link: "Link id",
  outcome: "Outcome",
  correlation: "Correlation id",
  from: "From",
  to: "To",
  cursor: "Page position",
};

/** Which URL values were ignored and why. The values are shown as typed, as text. */
export function IgnoredFilters({ dropped }: { dropped: DroppedFilter[] }) {
  if (dropped.length === 0) return null;
  return (
    <div className="mb-4">
      <Callout tone="warning" role="status" title="Some filters were ignored">
        <ul className="list-disc pl-5">
          {dropped.map((d) => (
            <li key={`${d.param}:${d.value}`}>
              {PARAM_LABELS[d.param]} “
              <span className="font-mono break-all">{d.value.length > 80 ? `${d.value.slice(0, 80)}…` : d.value}</span>
              ”: {d.reason}.
            </li>
          ))}
        </ul>
      </Callout>
    </div>
  );
}
