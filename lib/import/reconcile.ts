import { csvRecord } from "../http/csv";
import type { FileReport, LinkReport } from "./reader";

// The reconciliation report of an import: one row for every link of the file, with what matches it back to the old
// system (line, identity, customer, tags) and what became of it. The same columns before the import (the validation
// report the page builds from its own reading and the server's check) and after it (the job's export, CSV or JSON).

export const RECONCILIATION_OUTCOMES = {
  to_import: "To import",
  created: "Created",
  already_imported: "Already imported",
  duplicate: "Duplicate in file",
  invalid: "Invalid",
  failed: "Failed",
  cancelled: "Cancelled",
  pending: "In progress",
  // Matched with the upstream's copy (upstream-match.ts): there already; its new transactions, tags or webhook given to
  // it; a possible match not taken; matching two upstream links; deleted there; its customer not checked.
  at_upstream: "At the upstream already",
  updated: "Updated at the upstream",
  /** The upstream's copy deleted and the file's link imported in its place, by ops' choice. */
  replaced: "Replaced the upstream's copy",
  possible_match: "Possible match: not imported",
  ambiguous: "Matches more than one upstream link",
  deleted_upstream: "Deleted at the upstream",
  unchecked: "Not checked at the upstream",
  /** Created by the import, then deleted (its undo, or outside Linkdesk). */
  deleted: "Deleted since",
} as const;
export type ReconciliationOutcome = keyof typeof RECONCILIATION_OUTCOMES;

export interface ReconciliationRow {
  /** Line of the file where the link starts, from 1. */
  line: number;
  /** Position of the link in the file, from 0 (the report writes it from 1, as "#3" is said). */
  position: number;
  /** The link's JSON path (`$[2]`, `$.links[2]`, `$`). */
  path: string;
  /** Column where it starts, when its line holds more than one link (0 otherwise). */
  column: number;
  identityKey: string | null;
  customerUserId: string | null;
  tags: string[];
  outcome: ReconciliationOutcome;
  linkId: string | null;
  reason: string | null;
}

export const RECONCILIATION_HEADER = [
  "line",
  "identity_key",
  "customer_user_id",
  "tags",
  "outcome",
  "link_id",
  "reason",
  "position",
  "json_path",
  "column",
];

/** Tags in one cell: separated by a space, which no tag of the upstream starts with (they start with a letter or digit). */
export function reconciliationRecord(row: ReconciliationRow): string {
  return csvRecord([
    row.line,
    row.identityKey,
    row.customerUserId,
    row.tags.join(" "),
    row.outcome,
    row.linkId,
    row.reason,
    row.position + 1,
    row.path,
    row.column > 0 ? row.column : null,
  ]);
}

/** What Linkdesk's records say of a link of the file before it is imported (the server's check). */
export interface KnownLink {
  position: number;
  linkId: string | null;
  jobId: string;
  reason: string;
}

/** Problems of a link in one line of words. */
export function problemsInWords(link: Pick<LinkReport, "problems" | "moreProblems">): string {
  const shown = link.problems.slice(0, 3).map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
  const more = link.problems.length - shown.length + link.moreProblems;
  return `${shown.join("; ")}${more > 0 ? `; and ${more.toLocaleString("en-US")} more problem${more === 1 ? "" : "s"}` : ""}`;
}

/** A link of the file as it stands before the import: invalid, a duplicate, imported before (`held`), or to import. */
export function validationRow(link: LinkReport, held?: Pick<KnownLink, "linkId" | "reason">): ReconciliationRow {
  const base = {
    line: link.line,
    position: link.position,
    path: link.path,
    column: link.column,
    identityKey: link.identityKey,
    customerUserId: link.customerUserId,
    tags: link.tags,
  };
  if (link.problems.length > 0) return { ...base, outcome: "invalid", linkId: null, reason: problemsInWords(link) };
  if (link.duplicateOf)
    return {
      ...base,
      outcome: "duplicate",
      linkId: null,
      reason: `The same link as #${link.duplicateOf.position + 1} (line ${link.duplicateOf.line}): imported once, from there.`,
    };
  if (held) return { ...base, outcome: "already_imported", linkId: held.linkId, reason: held.reason };
  return { ...base, outcome: "to_import", linkId: null, reason: null };
}

/** What the upstream match said of a link of the file, as the server's preview lists it. */
export interface UpstreamRowNote {
  position: number;
  kind: string;
  linkId: string | null;
  said: string;
  differences: string | null;
  act: "import" | "skip" | "update" | "replace";
}

const UPSTREAM_OUTCOMES: Record<string, ReconciliationOutcome> = {
  same: "at_upstream",
  possible: "possible_match",
  ambiguous: "ambiguous",
  deleted: "deleted_upstream",
  unchecked: "unchecked",
};

/** The validation report: every link of a file as it stands before the import. */
export function validationRows(
  report: FileReport,
  known: readonly KnownLink[] = [],
  upstream: readonly UpstreamRowNote[] = [],
): ReconciliationRow[] {
  const byPosition = new Map(known.map((k) => [k.position, k]));
  const atUpstream = new Map(upstream.filter((u) => u.act !== "import").map((u) => [u.position, u]));
  return report.links.map((link) => {
    const row = validationRow(link, byPosition.get(link.position));
    const match = atUpstream.get(link.position);
    if (!match || row.outcome === "invalid" || row.outcome === "duplicate") return row;
    if (match.act === "replace")
      return {
        ...row,
        outcome: "to_import",
        linkId: match.linkId,
        reason: `Replaces upstream link ${match.linkId}, deleted first${match.differences ? ` (${match.differences})` : ""}.`,
      };
    return {
      ...row,
      outcome: UPSTREAM_OUTCOMES[match.kind] ?? row.outcome,
      linkId: match.linkId,
      reason: match.differences ? `${match.said} ${match.differences}.` : match.said,
    };
  });
}

/** A CSV file of rows (header included). */
export function reconciliationCsv(rows: readonly ReconciliationRow[]): string {
  return csvRecord(RECONCILIATION_HEADER) + rows.map(reconciliationRecord).join("");
}
