import type { FileReport, LinkReport } from "@/lib/import/analyze";
import { MAX_INSTITUTION_NAMES, describeBytes } from "@/lib/import/limits";

// What a file holds, link by link, as the worker read it: who, where, what, the state each link will have, the calls
// it needs; and every problem of the links that cannot go, with the field and the reason.

/** Rows rendered in the preview; a fleet of thousands is summarised above and downloadable after the import. */
const PREVIEW_ROWS = 200;
const INVALID_LISTED = 50;

const FORMAT_LABELS = { object: "one Import Link body", array: "an array of Import Link bodies", ndjson: "NDJSON, one link per line" } as const;

export function willBeLabel(link: Pick<LinkReport, "willBe">): string {
  return link.willBe === "connected" ? "Connected" : "Disconnected (auth_expired)";
}

function dates(link: LinkReport): string {
  if (!link.firstDate) return "–";
  return link.firstDate === link.lastDate ? link.firstDate : `${link.firstDate} – ${link.lastDate}`;
}

export function InvalidLinks({ report }: { report: FileReport }) {
  const invalid = report.links.filter((l) => l.problems.length > 0);
  if (invalid.length === 0) return null;
  return (
    <section aria-labelledby="invalid-links" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-red-900" data-testid="invalid-links">
      <h2 id="invalid-links" className="font-medium">
        {invalid.length === 1 ? "1 link cannot be imported" : `${invalid.length} links cannot be imported`}; the {report.valid} valid one{report.valid === 1 ? "" : "s"} can go ahead.
      </h2>
      <ul className="mt-2 space-y-2 text-sm">
        {invalid.slice(0, INVALID_LISTED).map((link) => (
          <li key={link.position}>
            <p className="font-medium">
              Link {link.position + 1} (line {link.line}){link.customerUserId ? `, customer ${link.customerUserId}` : ""}:
            </p>
            <ul className="ml-4 list-disc">
              {link.problems.map((problem, i) => (
                <li key={i}>
                  {problem.path ? <code className="rounded bg-red-100 px-1 font-mono text-xs">{problem.path}</code> : null} {problem.message}
                </li>
              ))}
              {link.moreProblems > 0 ? <li>and {link.moreProblems} more problems</li> : null}
            </ul>
          </li>
        ))}
      </ul>
      {invalid.length > INVALID_LISTED ? <p className="mt-2 text-sm">…and {invalid.length - INVALID_LISTED} more links with problems.</p> : null}
    </section>
  );
}

export function FileSummary({ report, fileName, ms }: { report: FileReport; fileName: string; ms: number }) {
  return (
    <p className="text-sm text-slate-700" data-testid="file-summary">
      <span className="font-medium text-slate-900">{fileName}</span> ({describeBytes(report.bytes)}, {report.format ? FORMAT_LABELS[report.format] : "unreadable"}): {report.links.length}{" "}
      link{report.links.length === 1 ? "" : "s"}, {report.valid} valid, {report.invalid} with problems; {report.transactions.toLocaleString("en-US")} transactions. Read and
      checked in {ms} ms.
    </p>
  );
}

/** Distinct institution ids of the rows the preview shows, first seen first, at most MAX_INSTITUTION_NAMES. */
export function previewInstitutionIds(report: FileReport): string[] {
  const ids = new Set<string>();
  for (const link of report.links.slice(0, PREVIEW_ROWS)) {
    if (ids.size >= MAX_INSTITUTION_NAMES) break;
    if (link.institutionId && link.problems.every((p) => !p.path.startsWith("institution_id"))) ids.add(link.institutionId);
  }
  return [...ids];
}

function Institution({ id, name }: { id: string | null; name: string | null | undefined }) {
  if (!id) return <>–</>;
  const code = <code className="font-mono text-xs text-slate-600">{id}</code>;
  if (!name) return code;
  return (
    <>
      <span className="text-slate-900">{name}</span> {code}
    </>
  );
}

/** `names`: institution names by id, as far as the server found them (an id alone where it did not). */
export function LinkPreviewTable({ report, names }: { report: FileReport; names?: Readonly<Record<string, string | null>> }) {
  const rows = report.links.slice(0, PREVIEW_ROWS);
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Links in the file">
        <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-600">
          <tr>
            <th className="px-3 py-2">#</th>
            <th className="px-3 py-2">Customer user</th>
            <th className="px-3 py-2">Institution</th>
            <th className="px-3 py-2">Provider</th>
            <th className="px-3 py-2 text-right">Accounts</th>
            <th className="px-3 py-2 text-right">Transactions</th>
            <th className="px-3 py-2">Dates</th>
            <th className="px-3 py-2">Will be</th>
            <th className="px-3 py-2 text-right">Calls</th>
            <th className="px-3 py-2">Check</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((link) => {
            const bad = link.problems.length > 0;
            return (
              <tr key={link.position} className={bad ? "bg-red-50/60" : undefined}>
                <td className="px-3 py-2 tabular-nums text-slate-500">{link.position + 1}</td>
                <td className="whitespace-nowrap px-3 py-2">{link.customerUserId ?? "–"}</td>
                <td className="whitespace-nowrap px-3 py-2" data-testid="institution">
                  <Institution id={link.institutionId} name={link.institutionId ? names?.[link.institutionId] : null} />
                </td>
                <td className="px-3 py-2">{link.provider ?? "not given"}</td>
                <td className="px-3 py-2 text-right tabular-nums">{link.accounts}</td>
                <td className="px-3 py-2 text-right tabular-nums">{link.transactions.toLocaleString("en-US")}</td>
                <td className="whitespace-nowrap px-3 py-2 tabular-nums">{dates(link)}</td>
                <td className="px-3 py-2">{bad ? "–" : willBeLabel(link)}</td>
                <td className="px-3 py-2 text-right tabular-nums">{bad ? "–" : link.calls}</td>
                <td className="px-3 py-2">
                  {bad ? (
                    <span className="font-medium text-red-800">
                      {link.problems.length + link.moreProblems} problem{link.problems.length + link.moreProblems === 1 ? "" : "s"}
                    </span>
                  ) : link.warnings.length > 0 ? (
                    <span className="text-amber-800" title={link.warnings.join("\n")}>
                      OK, {link.warnings.length} note{link.warnings.length === 1 ? "" : "s"}
                    </span>
                  ) : (
                    <span className="text-emerald-800">OK</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {report.links.length > PREVIEW_ROWS ? (
        <p className="border-t border-slate-200 px-3 py-2 text-sm text-slate-600">
          Showing the first {PREVIEW_ROWS} of {report.links.length.toLocaleString("en-US")} links.
        </p>
      ) : null}
    </div>
  );
}

/** Notes on valid links (ids Linkdesk gives, repeated ids), listed once under the table. */
export function LinkNotes({ report }: { report: FileReport }) {
  const noted = report.links.filter((l) => l.problems.length === 0 && l.warnings.length > 0).slice(0, 20);
  if (noted.length === 0) return null;
  return (
    <ul className="space-y-1 text-sm text-amber-900">
      {noted.map((link) => (
        <li key={link.position}>
          Link {link.position + 1}: {link.warnings.join(" ")}
        </li>
      ))}
    </ul>
  );
}
