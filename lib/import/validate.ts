import type { z } from "zod";
import { importLinkRequestSchema, KNOWN_PROVIDERS, type WireImportLinkRequest } from "../upstream/schemas";
import { MAX_PROBLEMS_PER_LINK } from "./limits";

// One link of an import file checked against the upstream's rules: the wire schema the sandbox enforces
// (lib/upstream/schemas.ts importLinkRequestSchema) and the cross-field rules of POST /links/import (account ids
// unique, every transaction's account imported). Problems name the field by its JSON path and say why in words.

export interface LinkProblem {
  /** JSON path inside the link, e.g. `transactions[12].amount`; empty for the link as a whole. */
  path: string;
  message: string;
}

/** The link as the upstream will get it (zod's output: unknown fields dropped, defaults filled). */
export type ImportLinkBody = z.output<typeof importLinkRequestSchema>;

export interface LinkValidation {
  body: ImportLinkBody | null;
  problems: LinkProblem[];
  /** Problems beyond MAX_PROBLEMS_PER_LINK, counted. */
  moreProblems: number;
  /** Things that do not stop the import but change what is stored. */
  warnings: string[];
}

/** `transactions[12].amount` from ["transactions", 12, "amount"]. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

const show = (value: unknown): string => {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return String(value);
};

const article = (expected: string) =>
  ({ string: "text", number: "a number", boolean: "true or false", object: "an object", array: "a list" })[expected] ?? expected;

/** A zod issue in words for people who maintain legacy exports. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const field = String(issue.path[issue.path.length - 1] ?? "");
  const input = (issue as { input?: unknown }).input;
  if (field === "amount" && issue.code !== "invalid_type") return `is not a number: ${show(input)} (write a signed decimal such as "-12.50")`;
  if (field === "amount" && input !== undefined) return `is not a number: ${show(input)} (write a signed decimal such as "-12.50")`;
  if (field === "date" && input !== undefined) return `is not a date: ${show(input)} (write YYYY-MM-DD or an ISO 8601 date-time)`;
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return "is missing";
      return `must be ${article(issue.expected)}, not ${show(input)}`;
    case "invalid_value":
      if (field === "provider") return `${show(input)} is not a known provider (one of ${KNOWN_PROVIDERS.join(", ")})`;
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, not ${show(input)}`;
    case "invalid_format":
      if (issue.format === "url") return `is not a URL: ${show(input)}`;
      if (issue.format === "datetime") return `is not a date-time: ${show(input)} (write ISO 8601, e.g. 2024-05-01T12:00:00Z)`;
      if (issue.format === "date") return `is not a date: ${show(input)} (write YYYY-MM-DD)`;
      return `is not in the expected format: ${show(input)}`;
    case "too_small":
      return issue.origin === "string" ? "must not be empty" : issue.message;
    case "custom":
      return `${issue.message}${input !== undefined ? ` (got ${show(input)})` : ""}`;
    default:
      return issue.message;
  }
}

interface RawAccount {
  account_id?: unknown;
}
interface RawTransaction {
  account_id?: unknown;
  transaction_id?: unknown;
}

/** Checks one link's raw JSON; every problem found, not only the first. */
export function validateImportLink(value: unknown): LinkValidation {
  const problems: LinkProblem[] = [];
  const warnings: string[] = [];
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { body: null, problems: [{ path: "", message: `must be an Import Link body (a JSON object), not ${show(value)}` }], moreProblems: 0, warnings };
  }
  const parsed = importLinkRequestSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) for (const issue of parsed.error.issues) problems.push({ path: jsonPath(issue.path), message: describeIssue(issue) });

  // The cross-field rules of POST /links/import, read from the raw value so they are reported even when a field
  // elsewhere is wrong.
  const raw = value as { accounts?: unknown; transactions?: unknown };
  const accounts = Array.isArray(raw.accounts) ? (raw.accounts as RawAccount[]) : [];
  const transactions = Array.isArray(raw.transactions) ? (raw.transactions as RawTransaction[]) : [];
  const accountIds = new Set<string>();
  accounts.forEach((account, index) => {
    const id = account?.account_id;
    if (typeof id !== "string") return;
    if (accountIds.has(id)) problems.push({ path: `accounts[${index}].account_id`, message: `"${id}" appears twice: account ids must be unique in a link` });
    accountIds.add(id);
  });
  const seenTransactionIds = new Map<string, number>();
  transactions.forEach((transaction, index) => {
    const accountId = transaction?.account_id;
    if (typeof accountId === "string" && accountId !== "" && !accountIds.has(accountId)) {
      problems.push({ path: `transactions[${index}].account_id`, message: `"${accountId}" matches no account of this link` });
    }
    const id = transaction?.transaction_id;
    if (typeof id === "string" && id !== "") seenTransactionIds.set(id, (seenTransactionIds.get(id) ?? 0) + 1);
  });
  const repeated = [...seenTransactionIds].filter(([, n]) => n > 1);
  if (repeated.length > 0) {
    const [id, n] = repeated[0]!;
    warnings.push(
      `${repeated.length === 1 ? `transaction_id "${id}" appears ${n} times` : `${repeated.length} transaction ids appear more than once (e.g. "${id}")`}: the upstream keeps one transaction per id (the last).`,
    );
  }
  const withoutId = transactions.filter((t) => typeof t?.transaction_id !== "string" || t.transaction_id === "").length;
  if (withoutId > 0) {
    warnings.push(`${withoutId} transaction${withoutId === 1 ? " has" : "s have"} no transaction_id: Linkdesk gives ${withoutId === 1 ? "it" : "each"} one (linkdesk-<n>) so a batch sent again cannot double ${withoutId === 1 ? "it" : "them"}.`);
  }

  // The order zod reports in follows the object; people read a link top to bottom, so sort by path.
  problems.sort((a, b) => comparePaths(a.path, b.path));
  const shown = problems.slice(0, MAX_PROBLEMS_PER_LINK);
  return { body: problems.length === 0 && parsed.success ? parsed.data : null, problems: shown, moreProblems: problems.length - shown.length, warnings };
}

function comparePaths(a: string, b: string): number {
  const split = (p: string) => p.split(/[.[\]]+/).filter(Boolean);
  const pa = split(a);
  const pb = split(b);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    const nx = Number(x);
    const ny = Number(y);
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) return nx - ny;
    return 0;
  }
  return pa.length - pb.length;
}

export type { WireImportLinkRequest };
