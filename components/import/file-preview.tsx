import { whereInFile } from "@/lib/import/positions";
import type { FileReport, LinkReport } from "@/lib/import/reader";
import { ScrollTable } from "@/components/ui/scroll-table";
import { MAX_INSTITUTION_NAMES, describeBytes } from "@/lib/import/limits";
import type { ImportWarning } from "@/lib/import/validate";

// What a file holds, link by link, as the worker read it: who, where, what, the state each link will have, the calls
// it needs; and every problem of the links that cannot go, with the field and the reason.

/** Rows rendered in the preview; a fleet of thousands is summarised above and downloadable after the import. */
const PREVIEW_ROWS = 200;
const INVALID_LISTED = 50;
/** Kinds of warning listed; a file has few kinds however many links carry them (unknown fields are capped per file). */
const WARNINGS_LISTED = 30;

const FORMAT_LABELS = {
  object: "one Import Link body",
  array: "an array of Import Link bodies",
  wrapped: 'an array of Import Link bodies under "links"',
  ndjson: "NDJSON, one link per line",
} as const;

const count = (n: number) => n.toLocaleString("en-US");

/** What becomes of a link the upstream holds (the server's check), and its calls there. */
export interface UpstreamWillBe {
  label: string;
  calls: number;
  /** Replaces the upstream's copy: its deletion (`calls`) before the link's own import calls. */
  replaces?: boolean;
}

/** One warning of one link in a line: `transactions[].category (40 times) is not taken by the upstream…`. */
export function describeLinkWarning(warning: ImportWarning): string {
  return `${warning.path}${warning.count > 1 ? ` (${count(warning.count)} times)` : ""} ${warning.message}.`;
}

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
    <section
      aria-labelledby="invalid-links"
      className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-red-900"
      data-testid="invalid-links"
    >
      <h2 id="invalid-links" className="font-medium">
        {invalid.length === 1 ? "1 link cannot be imported" : `${invalid.length} links cannot be imported`}; the{" "}
        {report.valid} valid one{report.valid === 1 ? "" : "s"} can go ahead.
      </h2>
      <ul className="mt-2 space-y-2 text-sm">
        {invalid.slice(0, INVALID_LISTED).map((link) => (
          <li key={link.position}>
            <p className="font-medium">
              {whereInFile(link)}
              {link.customerUserId ? `, customer ${link.customerUserId}` : ""}:
            </p>
            <ul className="ml-4 list-disc">
              {link.problems.map((problem, i) => (
                <li key={i}>
                  {problem.path ? (
                    <code className="rounded bg-red-100 px-1 font-mono text-xs">{problem.path}</code>
                  ) : null}{" "}
                  {problem.message}
                </li>
              ))}
              {link.moreProblems > 0 ? <li>and {link.moreProblems} more problems</li> : null}
              {/* A misspelt key often explains a problem ("customer_usr": customer_user is missing). */}
              {link.warnings
                .filter((warning) => warning.code === "unknown_field")
                .map((warning) => (
                  <li key={`${warning.code} ${warning.path}`} className="text-red-800/80">
                    <code className="rounded bg-red-100 px-1 font-mono text-xs">{warning.path}</code> {warning.message}
                  </li>
                ))}
            </ul>
          </li>
        ))}
      </ul>
      {invalid.length > INVALID_LISTED ? (
        <p className="mt-2 text-sm">…and {invalid.length - INVALID_LISTED} more links with problems.</p>
      ) : null}
    </section>
  );
}

export function FileSummary({ report, fileName, ms }: { report: FileReport; fileName: string; ms: number }) {
  const kinds = report.warnings.length;
  return (
    <p className="text-sm text-slate-700" data-testid="file-summary">
      <span className="font-medium text-slate-900">{fileName}</span> ({describeBytes(report.bytes)},{" "}
      {report.format ? FORMAT_LABELS[report.format] : "unreadable"}): {report.links.length} link
      {report.links.length === 1 ? "" : "s"}, {report.valid} valid, {report.invalid} with problems
      {report.duplicates > 0 ? `, ${report.duplicates} listed twice` : ""}
      {kinds > 0 ? (
        <span className="text-amber-800">
          , {kinds === 1 ? "1 kind of warning" : `${kinds} kinds of warning`} (listed below the table)
        </span>
      ) : null}
      ; {report.transactions.toLocaleString("en-US")} transactions. Read and checked in {ms} ms.
    </p>
  );
}

/** Distinct institution ids of the rows the preview shows, first seen first, at most MAX_INSTITUTION_NAMES. */
export function previewInstitutionIds(report: FileReport): string[] {
  const ids = new Set<string>();
  for (const link of report.links.slice(0, PREVIEW_ROWS)) {
    if (ids.size >= MAX_INSTITUTION_NAMES) break;
    if (link.institutionId && link.problems.every((p) => !p.path.startsWith("institution_id")))
      ids.add(link.institutionId);
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
export function LinkPreviewTable({
  report,
  names,
  known,
  atUpstream,
}: {
  report: FileReport;
  names?: Readonly<Record<string, string | null>>;
  /** Links Linkdesk imported before, by position (the server's check): they will not be imported again. */
  known?: ReadonlySet<number>;
  /** What the upstream holds for a link, by position (the server's check), and its calls there: not imported again. */
  atUpstream?: ReadonlyMap<number, UpstreamWillBe>;
}) {
  const rows = report.links.slice(0, PREVIEW_ROWS);
  return (
    <ScrollTable>
      <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Links in the file">
        <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-600">
          <tr>
            <th className="px-3 py-2">#</th>
            <th className="px-3 py-2">Customer user</th>
            <th className="px-3 py-2">Institution</th>
            {/* Below 1280 px Provider, Accounts and Dates give way, so what becomes of each line (Will be, Check) stays on screen. */}
            <th className="hidden px-3 py-2 xl:table-cell">Provider</th>
            <th className="hidden px-3 py-2 text-right xl:table-cell">Accounts</th>
            <th className="px-3 py-2 text-right">Transactions</th>
            <th className="hidden px-3 py-2 xl:table-cell">Dates</th>
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
                <td className="hidden px-3 py-2 xl:table-cell">{link.provider ?? "not given"}</td>
                <td className="hidden px-3 py-2 text-right tabular-nums xl:table-cell">{link.accounts}</td>
                <td className="px-3 py-2 text-right tabular-nums">{link.transactions.toLocaleString("en-US")}</td>
                <td className="hidden whitespace-nowrap px-3 py-2 tabular-nums xl:table-cell">{dates(link)}</td>
                <td className="px-3 py-2">
                  {bad
                    ? "–"
                    : link.duplicateOf
                      ? `Same as line ${link.duplicateOf.line}`
                      : atUpstream?.has(link.position)
                        ? atUpstream.get(link.position)!.label
                        : known?.has(link.position)
                          ? "Already imported"
                          : willBeLabel(link)}
                </td>
                <td className="px-3 py-2 text-right tabular-nums">
                  {bad || link.duplicateOf
                    ? "–"
                    : atUpstream?.has(link.position)
                      ? atUpstream.get(link.position)!.replaces
                        ? link.calls + atUpstream.get(link.position)!.calls
                        : atUpstream.get(link.position)!.calls || "–"
                      : known?.has(link.position)
                        ? "–"
                        : link.calls}
                </td>
                <td className="px-3 py-2">
                  {bad ? (
                    <span className="font-medium text-red-800">
                      {link.problems.length + link.moreProblems} problem
                      {link.problems.length + link.moreProblems === 1 ? "" : "s"}
                    </span>
                  ) : link.warnings.length > 0 ? (
                    <span className="text-amber-800" title={link.warnings.map(describeLinkWarning).join("\n")}>
                      OK, {link.warnings.length} warning{link.warnings.length === 1 ? "" : "s"}
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
    </ScrollTable>
  );
}

/**
 * The file's warnings, kind by kind, listed once under the table: what is imported differently from the file (fields
 * the upstream does not take, ids Linkdesk gives), with how often and where first, so 100,000 transactions with a
 * `category` read as one line.
 */
export function LinkNotes({ report }: { report: FileReport }) {
  const warnings = report.warnings;
  if (warnings.length === 0) return null;
  const { mappable, unmapped, links } = report.legacyCategories;
  return (
    <section
      aria-labelledby="file-warnings"
      className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-amber-900"
      data-testid="file-warnings"
    >
      <h2 id="file-warnings" className="font-medium">
        {warnings.length === 1 ? "1 kind of warning" : `${warnings.length} kinds of warning`}: these do not stop the
        import, but the links are not imported exactly as the file has them.
      </h2>
      <ul className="mt-2 space-y-1 text-sm">
        {warnings.slice(0, WARNINGS_LISTED).map((warning) => (
          <li key={`${warning.code} ${warning.path}`}>
            <code className="rounded bg-amber-100 px-1 font-mono text-xs">{warning.path}</code> ({count(warning.count)}{" "}
            in {count(warning.links)} link
            {warning.links === 1 ? "" : "s"}) {warning.message}.{" "}
            <span className="text-amber-800">
              First at link {warning.example.position + 1}
              {warning.example.line > 0 ? ` (line ${warning.example.line})` : ""},{" "}
              <code className="font-mono text-xs">{warning.example.path}</code>.
            </span>
          </li>
        ))}
      </ul>
      {warnings.length > WARNINGS_LISTED ? (
        <p className="mt-2 text-sm">…and {warnings.length - WARNINGS_LISTED} more kinds of warning.</p>
      ) : null}
      {mappable > 0 ? (
        <p className="mt-2 text-sm" data-testid="legacy-categories">
          In the links to import, {count(mappable)} transaction{mappable === 1 ? "" : "s"} in {count(links)} link
          {links === 1 ? "" : "s"} {mappable === 1 ? "carries" : "carry"} a category Linkdesk can map to the
          upstream&rsquo;s categories
          {unmapped > 0
            ? ` (${count(unmapped)} more ${unmapped === 1 ? "carries" : "carry"} one it cannot map: those stay as the upstream categorises them; listed below)`
            : ""}
          . Carrying them over after the import takes up to {count(mappable)} category correction
          {mappable === 1 ? "" : "s"}, one call each.
        </p>
      ) : unmapped > 0 ? (
        <p className="mt-2 text-sm" data-testid="legacy-categories">
          In the links to import, none of the {count(unmapped)} legacy categories is one Linkdesk can map to the
          upstream&rsquo;s categories: there is nothing to carry over.
        </p>
      ) : null}
      {report.legacyCategories.unmappedList.length > 0 ? (
        <div className="mt-2 text-sm">
          <p>Legacy categories that cannot be carried over (no category of the upstream&rsquo;s taxonomy matches):</p>
          <ul className="mt-1 list-disc pl-5" data-testid="unmapped-categories">
            {report.legacyCategories.unmappedList.map((u) => (
              <li key={u.value}>
                “{u.value}” in {count(u.links)} link{u.links === 1 ? "" : "s"}; first at #{u.example.position + 1}
                {u.example.line > 0 ? ` (line ${u.example.line})` : ""},{" "}
                <code className="font-mono text-xs">{u.example.path}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
