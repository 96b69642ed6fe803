"use client";

import Link from "next/link";
import { Callout } from "@/components/ui/callout";
import { ScrollTable } from "@/components/ui/scroll-table";
import type { UpstreamMatchRow, UpstreamPreview } from "@/lib/actions/import";
import { UPSTREAM_MATCH_LABELS } from "@/lib/import/upstream-match";

// What the upstream holds already for the file's customers (the server's check, lib/import/upstream-match.ts): links
// that are there (not imported again; their new transactions added, their tags and webhook given if ops tick it),
// possible matches ops decide, links two upstream links answer to, links deleted there, customers not checked.

export interface UpstreamChoices {
  addTransactions: boolean;
  applyChanges: boolean;
  importAnyway: ReadonlySet<string>;
  sameLink: ReadonlySet<string>;
  replace: ReadonlySet<string>;
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

const linkHref = (linkId: string) => `/links/${encodeURIComponent(linkId)}`;

export function UpstreamMatches({
  preview,
  choices,
  onChange,
  disabled,
}: {
  preview: UpstreamPreview;
  choices: UpstreamChoices;
  onChange: (next: UpstreamChoices) => void;
  disabled: boolean;
}) {
  const { counts } = preview;
  const found = counts.same + counts.possible + counts.ambiguous + counts.deleted + counts.unchecked;
  const withChanges = preview.rows.filter((r) => r.differences && /tags|webhook/.test(r.differences)).length;
  const newTransactions = preview.rows.reduce((sum, r) => sum + (r.newTransactions ?? 0), 0);
  const toggle = (set: ReadonlySet<string>, key: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(key);
    else next.delete(key);
    return next;
  };
  return (
    <section className="space-y-3" aria-labelledby="upstream-heading" data-testid="upstream-matches">
      <h2 id="upstream-heading" className="text-base font-semibold text-slate-900">
        At the upstream already
      </h2>
      <p className="text-sm text-slate-700" data-testid="upstream-summary">
        Linkdesk asked the upstream about {count(preview.checked, "customer")}
        {preview.checked < preview.customers
          ? ` of ${preview.customers.toLocaleString("en-US")} (the others are looked up right before each of their links is imported)`
          : ""}{" "}
        in {count(preview.calls, "call")}.{" "}
        {found === 0
          ? preview.recorded > 0
            ? `It holds the ${count(preview.recorded, "link")} Linkdesk imported before (listed above), with nothing new for ${preview.recorded === 1 ? "it" : "them"}; no other link of the file is there.`
            : "None of the file's links is there: each is new."
          : [
              counts.same > 0 ? `${count(counts.same, "link")} already there` : null,
              counts.possible > 0 ? `${count(counts.possible, "possible match", "possible matches")} to decide` : null,
              counts.ambiguous > 0 ? `${count(counts.ambiguous, "link")} matching more than one upstream link` : null,
              counts.deleted > 0 ? `${count(counts.deleted, "link")} deleted there` : null,
              counts.unchecked > 0 ? `${count(counts.unchecked, "link")} not checked` : null,
            ]
              .filter(Boolean)
              .join(", ") + ". None of them is imported again unless you say so below."}
      </p>
      {preview.failed.length > 0 ? (
        <Callout
          tone="error"
          title={`The upstream could not be asked about ${count(preview.failed.length, "customer")}`}
        >
          <ul className="list-disc pl-5">
            {preview.failed.map((f) => (
              <li key={f.customerUserId}>
                {f.customerUserId}: {f.reason}
              </li>
            ))}
          </ul>
          <p className="mt-1">Their links are not imported now, so that none is created twice. Check again later.</p>
        </Callout>
      ) : null}
      {found > 0 ? (
        <div className="space-y-2 text-sm text-slate-800">
          <label className={`flex items-start gap-2 ${newTransactions === 0 ? "hidden" : ""}`}>
            <input
              type="checkbox"
              className="mt-1"
              checked={choices.addTransactions}
              disabled={disabled}
              onChange={(e) => onChange({ ...choices, addTransactions: e.target.checked })}
              data-testid="add-transactions"
            />
            <span>
              Add the file&rsquo;s new transactions to the links the upstream has (
              {count(newTransactions, "transaction")} listed below, through POST
              /links/&#123;id&#125;/import/transactions; the upstream keys them by their ids, so sending one twice adds
              nothing).
            </span>
          </label>
          <label className={`flex items-start gap-2 ${withChanges === 0 ? "hidden" : ""}`}>
            <input
              type="checkbox"
              className="mt-1"
              checked={choices.applyChanges}
              disabled={disabled}
              onChange={(e) => onChange({ ...choices, applyChanges: e.target.checked })}
              data-testid="apply-changes"
            />
            <span>
              Give those links the file&rsquo;s tags and webhook where they differ ({count(withChanges, "link")}, one
              PATCH /links/&#123;id&#125; each; Linkdesk&rsquo;s own tags are kept).
            </span>
          </label>
          <p className="text-slate-600">
            The institution, the customer and account names cannot change after an import: where the file differs, the
            upstream&rsquo;s copy is kept as it is (listed under Differences), unless you choose to replace it: it is
            deleted at the upstream, then the file&rsquo;s link is imported in its place. Its end user may have to
            connect it again, and undoing this import deletes the new link but cannot bring the old one back.
          </p>
        </div>
      ) : null}
      {preview.rows.length > 0 ? (
        <ScrollTable>
          <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Links the upstream holds already">
            <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-600">
              <tr>
                <th className="px-3 py-2">#</th>
                <th className="px-3 py-2">Upstream</th>
                <th className="px-3 py-2">Decision</th>
                <th className="px-3 py-2">Differences</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {preview.rows.map((row) => (
                <tr key={row.position} data-testid="upstream-match" data-kind={row.kind}>
                  <td className="whitespace-nowrap px-3 py-2 tabular-nums text-slate-600">{row.where}</td>
                  <td className="px-3 py-2">
                    <span className="font-medium">{UPSTREAM_MATCH_LABELS[row.kind]}</span>
                    <span className="block">
                      {row.linkIds.map((id, i) => (
                        <span key={id}>
                          {i > 0 ? ", " : ""}
                          <Link className="font-mono text-indigo-700 underline" href={linkHref(id)}>
                            {id}
                          </Link>
                        </span>
                      ))}
                    </span>
                    <span className="block text-xs text-slate-600">{row.said}</span>
                  </td>
                  <td className="px-3 py-2">
                    <Decision row={row} choices={choices} onChange={onChange} disabled={disabled} toggle={toggle} />
                  </td>
                  <td className="px-3 py-2 text-slate-700">
                    {row.differences ?? "–"}
                    {row.fixed.length > 0 ? (
                      <span className="block text-xs text-amber-800">
                        The upstream keeps its own {row.fixed.map((f) => f.field).join(", ")}.
                      </span>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {preview.more > 0 ? (
            <p className="px-3 py-2 text-sm text-slate-600">
              and {count(preview.more, "more link")} (all in the validation report)
            </p>
          ) : null}
        </ScrollTable>
      ) : null}
    </section>
  );
}

function Decision({
  row,
  choices,
  onChange,
  disabled,
  toggle,
}: {
  row: UpstreamMatchRow;
  choices: UpstreamChoices;
  onChange: (next: UpstreamChoices) => void;
  disabled: boolean;
  toggle: (set: ReadonlySet<string>, key: string, on: boolean) => Set<string>;
}) {
  const replaceable = row.fixed.length > 0;
  if (row.kind === "possible" && row.key) {
    const key = row.key;
    const value = choices.replace.has(key)
      ? "replace"
      : choices.importAnyway.has(key)
        ? "different"
        : choices.sameLink.has(key)
          ? "same"
          : "";
    return (
      <select
        className="rounded border border-slate-300 px-2 py-1"
        value={value}
        disabled={disabled}
        aria-label={`Link #${row.position + 1}: is it upstream link ${row.linkId}?`}
        onChange={(e) =>
          onChange({
            ...choices,
            importAnyway: toggle(choices.importAnyway, key, e.target.value === "different"),
            sameLink: toggle(choices.sameLink, key, e.target.value === "same"),
            replace: toggle(choices.replace, key, e.target.value === "replace"),
          })
        }
        data-testid="possible-decision"
      >
        <option value="">Undecided: not imported</option>
        <option value="same">The same link: not imported</option>
        {replaceable ? <option value="replace">The same link: replace it with the file&rsquo;s</option> : null}
        <option value="different">A different link: import it</option>
      </select>
    );
  }
  if (row.kind === "same" && row.key && replaceable) {
    const key = row.key;
    return (
      <select
        className="rounded border border-slate-300 px-2 py-1"
        value={choices.replace.has(key) ? "replace" : "keep"}
        disabled={disabled}
        aria-label={`Link #${row.position + 1}: keep upstream link ${row.linkId} or replace it?`}
        onChange={(e) => onChange({ ...choices, replace: toggle(choices.replace, key, e.target.value === "replace") })}
        data-testid="replace-decision"
      >
        <option value="keep">Keep the upstream&rsquo;s copy: not imported again</option>
        <option value="replace">Replace it: delete it, import the file&rsquo;s</option>
      </select>
    );
  }
  if (row.kind === "deleted" && row.key) {
    const key = row.key;
    return (
      <label className="flex items-center gap-2">
        <input
          type="checkbox"
          checked={choices.importAnyway.has(key)}
          disabled={disabled}
          onChange={(e) => onChange({ ...choices, importAnyway: toggle(choices.importAnyway, key, e.target.checked) })}
          data-testid="import-again"
        />
        Import it again
      </label>
    );
  }
  return (
    <span>
      {row.act === "update"
        ? "Not imported again; updated"
        : row.act === "replace"
          ? "Replaced"
          : row.act === "import"
            ? "Imported"
            : row.kind === "same"
              ? "Not imported again"
              : "Not imported"}
    </span>
  );
}
