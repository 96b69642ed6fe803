import { ScrollTable } from "@/components/ui/scroll-table";
import { ShortId } from "@/components/ui/short-id";
import { AUDIT_ACTIONS, AUDIT_OUTCOME_LABELS } from "@/lib/audit/actions";
import { describeRecorded } from "@/lib/audit/recorded";
import { isRole, ROLE_LABELS } from "@/lib/auth/roles";
import type { AuditEntry, AuditOutcome } from "@/lib/db/schema";
import { RecordedValue } from "./recorded-value";

// Everything in an audit row came from a user or the upstream: it is rendered as React text (escaped), never as HTML.
// Columns take the width of their content on one line: times and addresses never wrap (an address is cut with an
// ellipsis past 16rem, whole on hover); long ids are shortened, whole on hover and to copy. When, who and what stay on
// screen at 1024 px: below 1280 px an address is cut past 13rem and an action's name past 12rem, whole on hover. The
// row's control (Undo) has a column of its own, kept at the box's right edge while the others scroll under it.

const OUTCOME_TONES: Record<AuditOutcome, string> = {
  ok: "tone-emerald",
  refused: "tone-amber",
  invalid: "tone-amber",
  upstream_error: "tone-red",
  error: "tone-red",
};

const COLUMNS = ["When (UTC)", "Who", "Action", "Target", "Link", "Outcome", "Reference"] as const;

/** 2025-03-01 12:34:56.789, in UTC so every reader sees the same time as the CSV and the filters. */
const utc = (at: Date) => at.toISOString().slice(0, 23).replace("T", " ");

const actionLabel = (action: string) =>
  action in AUDIT_ACTIONS ? AUDIT_ACTIONS[action as keyof typeof AUDIT_ACTIONS] : action;

/** `rowAction`: a control for one row (the undo of a correction), in an Undo column at the right edge. */
export function AuditTable({
  rows,
  rowAction,
}: {
  rows: AuditEntry[];
  rowAction?: (row: AuditEntry) => React.ReactNode;
}) {
  return (
    <ScrollTable>
      <table className="min-w-full text-left text-sm">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            {COLUMNS.map((name) => (
              <th key={name} scope="col" className="whitespace-nowrap px-2 py-2">
                {name}
              </th>
            ))}
            {rowAction ? (
              <th scope="col" className="sticky-end whitespace-nowrap px-2 py-2">
                Undo
              </th>
            ) : null}
          </tr>
        </thead>
        {rows.map((row) => (
          <AuditRow key={row.id} row={row} action={rowAction ? (rowAction(row) ?? null) : undefined} />
        ))}
      </table>
    </ScrollTable>
  );
}

/**
 * One entry: a row of facts, and under it the recorded input, before and after on demand. `action`: the row's control
 * (null: the column is there, this row has none), or undefined for a table without that column.
 */
function AuditRow({ row, action }: { row: AuditEntry; action?: React.ReactNode }) {
  const payloads = (
    [
      ["Input", row.input],
      ["Before", row.before],
      ["After", row.after],
    ] as const
  ).filter(([, value]) => value !== null && value !== undefined);
  const cell = payloads.length > 0 ? "px-2 pt-2 pb-1" : "px-2 py-2";
  return (
    <tbody className="border-b border-slate-100 last:border-b-0">
      <tr className="align-top">
        <td className={`whitespace-nowrap ${cell} font-mono text-xs text-slate-700`}>
          <time dateTime={row.at.toISOString()}>{utc(row.at)}</time>
        </td>
        <td className={`whitespace-nowrap ${cell}`}>
          <span className="inline-flex max-w-full items-center gap-1.5">
            <span className="max-w-52 truncate text-slate-900 xl:max-w-64" title={row.actorEmail ?? undefined}>
              {row.actorEmail ?? "—"}
            </span>
            {row.actorRole ? (
              <span className="shrink-0 rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700">
                {isRole(row.actorRole) ? ROLE_LABELS[row.actorRole] : row.actorRole}
              </span>
            ) : null}
          </span>
        </td>
        <td className={`whitespace-nowrap ${cell} text-slate-900`}>
          <span className="block max-w-48 truncate xl:max-w-none" title={actionLabel(row.action)}>
            {actionLabel(row.action)}
          </span>
        </td>
        <td className={`whitespace-nowrap ${cell}`}>
          {row.targetType || row.targetId ? (
            <span className="inline-flex items-center gap-1">
              {row.targetType ? <span className="text-slate-500">{row.targetType}</span> : null}
              {row.targetId ? (
                <ShortId
                  id={row.targetId}
                  what={row.targetType ? `${row.targetType} id` : "target id"}
                  className="text-slate-800"
                />
              ) : null}
            </span>
          ) : (
            <span className="text-slate-500">—</span>
          )}
        </td>
        <td className={`whitespace-nowrap ${cell}`}>
          {row.linkId ? (
            <ShortId id={row.linkId} what="link id" href={`/links/${encodeURIComponent(row.linkId)}`} />
          ) : (
            <span className="text-slate-500">—</span>
          )}
        </td>
        <td className={`whitespace-nowrap ${cell}`}>
          {/* One line a row: the upstream's status beside the outcome, not under it. */}
          <span className="inline-flex items-center gap-1.5">
            <span
              className={`inline-block whitespace-nowrap rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${OUTCOME_TONES[row.outcome]}`}
            >
              {AUDIT_OUTCOME_LABELS[row.outcome]}
            </span>
            {row.upstreamStatus !== null || row.upstreamErrorCode ? (
              <span className="font-mono text-xs text-slate-600">
                {[row.upstreamStatus !== null ? `HTTP ${row.upstreamStatus}` : null, row.upstreamErrorCode]
                  .filter(Boolean)
                  .join(" · ")}
              </span>
            ) : null}
          </span>
        </td>
        <td className={`whitespace-nowrap ${cell}`}>
          <ShortId id={row.correlationId} what="reference" head={8} tail={4} className="text-slate-600" />
        </td>
        {action !== undefined ? <td className={`sticky-end whitespace-nowrap ${cell}`}>{action}</td> : null}
      </tr>
      {payloads.length > 0 ? (
        <tr>
          <td colSpan={COLUMNS.length + (action !== undefined ? 1 : 0)} className="px-2 pb-2">
            <details className="text-xs">
              <summary className="cursor-pointer text-slate-500 hover:text-slate-800">
                Recorded {payloads.map(([name]) => name.toLowerCase()).join(", ")}
              </summary>
              <div className="mt-2 grid gap-3 md:grid-cols-3">
                {payloads.map(([name, value]) => (
                  <div key={name}>
                    <p className="mb-1 font-medium text-slate-600">{name}</p>
                    {/* In words (category labels, the codes on hover), not raw JSON: see lib/audit/recorded.ts. */}
                    <div className="max-h-80 overflow-auto rounded bg-slate-50 p-2 text-slate-800">
                      <RecordedValue view={describeRecorded(value)} />
                    </div>
                  </div>
                ))}
              </div>
            </details>
          </td>
        </tr>
      ) : null}
    </tbody>
  );
}

export function AuditEmpty({ filtered, paged }: { filtered: boolean; paged: boolean }) {
  const [title, detail] = paged
    ? ["No older entries", "This view has nothing after that point. Go back to the first page."]
    : filtered
      ? ["No entries match these filters", "Widen the time range or clear a filter."]
      : ["Nothing recorded yet", "Every change made through Linkdesk, and every sign-in, appears here."];
  return (
    <div className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-8 text-sm text-slate-600">
      <p className="font-medium text-slate-800">{title}</p>
      <p className="mt-1">{detail}</p>
    </div>
  );
}
