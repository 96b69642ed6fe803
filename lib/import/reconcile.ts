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
} as const;
export type ReconciliationOutcome = keyof typeof RECONCILIATION_OUTCOMES;

export interface ReconciliationRow {
  /** Line of the file where the link starts, from 1. */
  line: number;
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
  const base = { line: link.line, identityKey: link.identityKey, customerUserId: link.customerUserId, tags: link.tags };
  if (link.problems.length > 0) return { ...base, outcome: "invalid", linkId: null, reason: problemsInWords(link) };
  if (link.duplicateOf)
    return {
      ...base,
      outcome: "duplicate",
      linkId: null,
      reason: `The same link as line ${link.duplicateOf.line}: imported once, from that line.`,
    };
  if (held) return { ...base, outcome: "already_imported", linkId: held.linkId, reason: held.reason };
  return { ...base, outcome: "to_import", linkId: null, reason: null };
}

/** The validation report: every link of a file as it stands before the import. */
export function validationRows(report: FileReport, known: readonly KnownLink[] = []): ReconciliationRow[] {
  const byPosition = new Map(known.map((k) => [k.position, k]));
  return report.links.map((link) => validationRow(link, byPosition.get(link.position)));
}

/** A CSV file of rows (header included). */
export function reconciliationCsv(rows: readonly ReconciliationRow[]): string {
  return csvRecord(RECONCILIATION_HEADER) + rows.map(reconciliationRecord).join("");
}
