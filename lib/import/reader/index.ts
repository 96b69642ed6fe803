import { hasProviderCredentials } from "../credentials";
import { DEFAULT_IDENTITY, type IdentityRule, identityOf } from "../identity";
import { legacyCategoryOf } from "../legacy-categories";
import { checkFileSize, type FileProblem } from "../limits";
import { type CallCounts, type PlannedLink, planImportBatches } from "../plan";
import {
  FileWarnings,
  type FileWarning,
  type ImportWarning,
  type LegacyCategoryCount,
  type LinkProblem,
  validateImportLink,
} from "../validate";
import { arrayElementStarts, type ImportFormat, parseImportText } from "./formats";
import { linkPath } from "../positions";
import { decodeUtf8 } from "./utf8";

// The import reader: a whole file, from its bytes to what the Import page previews and the server plans. The same
// function runs in the browser's worker (for the preview) and in the server action and the import job (which trust
// nothing the browser says). `analyzeImportFile` is the one way in; the steps are files beside this one, called from
// here only: bytes to text (utf8.ts), text to one raw value per link in any of the four formats (formats.ts, on the
// JSON scanner json-scan.ts), then each link checked (../validate.ts), known by its identity (../identity.ts) and
// planned (../plan.ts). The size check alone is in ../limits.ts, so that the upload form does not bundle the reader.

export type { FileProblem, ImportFormat };

export interface LinkReport {
  position: number;
  line: number;
  /** Column where the link starts on its line, from 1; 0 when not known. In a minified file every link is on line 1. */
  column: number;
  /** The link's JSON path in the file: `$[3]`, `$.links[3]`, or `$` (a file of one link, an NDJSON line). */
  path: string;
  /** Who and what the link is (lib/import/identity.ts); null when it has none (then it is invalid). */
  identityKey: string | null;
  /** The file's own link_tags, for matching rows back to the old system. */
  tags: string[];
  /** An earlier link of the same file with the same identity: this one collapses into it and is not imported. */
  duplicateOf: { position: number; line: number } | null;
  customerUserId: string | null;
  institutionId: string | null;
  provider: string | null;
  accounts: number;
  transactions: number;
  firstDate: string | null;
  lastDate: string | null;
  /** With credentials in provider_data the link is created connected; without, disconnected (error, auth_expired). */
  willBe: "connected" | "disconnected";
  /** Upstream calls for this link: the import and its transaction batches (0 when invalid). */
  calls: number;
  problems: LinkProblem[];
  moreProblems: number;
  /** What is imported differently from the file (fields the upstream does not take, ids Linkdesk gives), by kind. */
  warnings: ImportWarning[];
}

/** A legacy category no mapping reaches: the file's text, in how many links, and the first transaction carrying it. */
export interface UnmappedCategory {
  value: string;
  links: number;
  example: { position: number; line: number; path: string };
}

/** Distinct unmapped legacy categories a file's report lists at most. */
const UNMAPPED_LISTED = 50;

export interface FileReport {
  /** Set when the file as a whole cannot be read: nothing else is filled in. */
  fileProblem: FileProblem | null;
  format: ImportFormat | null;
  bytes: number;
  /** SHA-256 of the file's bytes, hex: the same file uploaded again is recognised by it. */
  sha256: string;
  links: LinkReport[];
  /** Links to import: checked, and the first of their identity in the file. */
  valid: number;
  invalid: number;
  /** Links whose identity an earlier link of the file has (not counted as valid or invalid). */
  duplicates: number;
  transactions: number;
  calls: CallCounts;
  /** Every link's warnings summed kind by kind (invalid and repeated links included: a misspelt key often explains why). */
  warnings: FileWarning[];
  /**
   * Transactions of the links to import that carry a legacy category: each one that maps is one category correction
   * (POST /links/{id}/transactions/{txn_id}/enrichment) if ops choose to carry the categories over. `links`: links with
   * at least one that maps.
   */
  legacyCategories: LegacyCategoryCount & {
    links: number;
    /** Legacy categories that cannot be carried over, each with how many transactions carry it and the first. */
    unmappedList: UnmappedCategory[];
  };
}

/** A transaction's legacy category in the upstream's taxonomy, by the transaction's index in its link. */
export interface LegacyCorrection {
  index: number;
  category: string;
  subcategory?: string;
}

export interface AnalyzedFile {
  report: FileReport;
  /** The calls of each valid link, by position (only when asked for: the server plans, the browser previews). */
  plans: Map<number, PlannedLink>;
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

export interface AnalyzeOptions {
  /** Keep every valid link's calls in `plans` (tests, small files). */
  keepPlans?: boolean;
  /**
   * Called with each valid link's calls as soon as they are planned, in file order, and awaited: the server writes
   * them away and drops them, so a 20 MB file is never held as planned calls all at once.
   */
  onPlan?: (position: number, plan: PlannedLink, link: LinkReport, legacy: LegacyCorrection[]) => Promise<void> | void;
  /** Read each transaction's legacy category (given to onPlan): for carrying them over as corrections. */
  legacyCategories?: boolean;
  /** The SHA-256 when the caller has it already (the server action hashes the upload to find an earlier import). */
  sha256?: string;
  /** How each link is known (default: customer user, institution and account ids). */
  identity?: IdentityRule;
}

export async function analyzeImportFile(bytes: Uint8Array, opts: AnalyzeOptions = {}): Promise<AnalyzedFile> {
  const empty = (fileProblem: FileProblem, sha256 = ""): AnalyzedFile => ({
    report: {
      fileProblem,
      format: null,
      bytes: bytes.length,
      sha256,
      links: [],
      valid: 0,
      invalid: 0,
      duplicates: 0,
      transactions: 0,
      calls: { imports: 0, batches: 0 },
      warnings: [],
      legacyCategories: { mappable: 0, unmapped: 0, links: 0, unmappedList: [] },
    },
    plans: new Map(),
  });
  const sized = checkFileSize(bytes.length);
  if (sized) return empty(sized);
  const sha256 = opts.sha256 ?? (await sha256Hex(bytes));
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return empty(decoded.problem, sha256);
  const parsed = parseImportText(decoded.text);
  if (!parsed.ok) return empty(parsed.problem, sha256);
  // Every link is named by its line (in the reconciliation report, for duplicates and problems): an array's lines are
  // found by one more pass over the text.
  const arrayStarts = parsed.format === "array" ? arrayElementStarts(decoded.text) : null;
  // A column is worth saying only where a line holds more than one link (a minified file).
  const startLines = arrayStarts ? arrayStarts.map((at) => at.line) : parsed.links.map((raw) => raw.line);
  const seenLines = new Set<number>();
  const sharedLines = new Set<number>();
  for (const line of startLines) (seenLines.has(line) ? sharedLines : seenLines).add(line);
  const identityRule = opts.identity ?? DEFAULT_IDENTITY;
  /** The first valid link of each identity. */
  const firstOf = new Map<string, { position: number; line: number }>();

  const plans = new Map<number, PlannedLink>();
  const links: LinkReport[] = [];
  const calls: CallCounts = { imports: 0, batches: 0 };
  let transactions = 0;
  let duplicates = 0;
  const warnings = new FileWarnings();
  const legacyCategories = { mappable: 0, unmapped: 0, links: 0, unmappedList: [] as UnmappedCategory[] };
  const unmappedByValue = new Map<string, UnmappedCategory>();
  for (const raw of parsed.links) {
    const value = raw.value as Record<string, unknown> | undefined;
    const customer =
      value && typeof value === "object" ? (value.customer_user as Record<string, unknown> | undefined) : undefined;
    const identity = raw.syntax ? null : identityOf(value, identityRule);
    const report: LinkReport = {
      position: raw.position,
      line: startLines[raw.position] ?? 0,
      column: sharedLines.has(startLines[raw.position] ?? 0)
        ? ((arrayStarts ? arrayStarts[raw.position]?.column : raw.column) ?? 0)
        : 0,
      path: linkPath(parsed.format, raw.position),
      identityKey: identity?.ok ? identity.key : null,
      tags: Array.isArray(value?.link_tags) ? value.link_tags.filter((t): t is string => typeof t === "string") : [],
      duplicateOf: null,
      customerUserId: text(customer && typeof customer === "object" ? customer.id : undefined),
      institutionId: text(value?.institution_id),
      provider: text(value?.provider),
      accounts: Array.isArray(value?.accounts) ? value.accounts.length : 0,
      transactions: Array.isArray(value?.transactions) ? value.transactions.length : 0,
      firstDate: null,
      lastDate: null,
      willBe: value && hasProviderCredentials(value.provider_data) ? "connected" : "disconnected",
      calls: 0,
      problems: [],
      moreProblems: 0,
      warnings: [],
    };
    links.push(report);
    if (raw.syntax) {
      report.problems.push({ path: "", message: raw.syntax.message });
      continue;
    }
    const legacy: LegacyCorrection[] = [];
    if (opts.legacyCategories && Array.isArray(value?.transactions)) {
      (value.transactions as unknown[]).forEach((t, index) => {
        const found = legacyCategoryOf(t);
        if (found && !("unmapped" in found))
          legacy.push({
            index,
            category: found.category,
            ...(found.subcategory ? { subcategory: found.subcategory } : {}),
          });
      });
    }
    const checked = validateImportLink(raw.value);
    // The checked body is a copy: the parsed JSON of this link is no longer needed (memory of a 20 MB file).
    raw.value = undefined;
    report.problems = checked.problems;
    report.moreProblems = checked.moreProblems;
    report.warnings = checked.warnings;
    warnings.add(report.position, report.line, checked.warnings);
    // Without customer or institution the link has problems of its own already; a missing identity tag is new.
    if (identity && !identity.ok && (identityRule.kind === "tag" || report.problems.length === 0))
      report.problems.unshift({ path: identityRule.kind === "tag" ? "link_tags" : "", message: identity.problem });
    if (!checked.body || report.problems.length > 0) continue;
    const first = firstOf.get(report.identityKey!);
    if (first) {
      report.duplicateOf = first;
      duplicates++;
      continue;
    }
    const planned = planImportBatches(checked.body, raw.position);
    if (!planned.ok) {
      report.problems.push(planned.problem);
      continue;
    }
    firstOf.set(report.identityKey!, { position: report.position, line: report.line });
    const { plan } = planned;
    report.firstDate = plan.firstDate;
    report.lastDate = plan.lastDate;
    report.calls = 1 + plan.batches.length;
    calls.imports += 1;
    calls.batches += plan.batches.length;
    transactions += plan.transactionCount;
    legacyCategories.mappable += checked.legacyCategories.mappable;
    legacyCategories.unmapped += checked.legacyCategories.unmapped;
    if (checked.legacyCategories.mappable > 0) legacyCategories.links++;
    for (const { value, path } of checked.legacyCategories.unmappedValues ?? []) {
      const known = unmappedByValue.get(value);
      if (known) known.links++;
      else if (unmappedByValue.size < UNMAPPED_LISTED)
        unmappedByValue.set(value, { value, links: 1, example: { position: raw.position, line: report.line, path } });
    }
    if (opts.keepPlans) plans.set(raw.position, plan);
    if (opts.onPlan) await opts.onPlan(raw.position, plan, report, legacy);
  }
  const invalid = links.filter((l) => l.problems.length > 0).length;
  const valid = links.length - invalid - duplicates;
  return {
    report: {
      fileProblem: null,
      format: parsed.format,
      bytes: bytes.length,
      sha256,
      links,
      valid,
      invalid,
      duplicates,
      transactions,
      calls,
      warnings: warnings.list(),
      legacyCategories: { ...legacyCategories, unmappedList: [...unmappedByValue.values()] },
    },
    plans,
  };
}
