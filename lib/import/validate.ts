import { z } from "zod";
import {
  DROPPED_PROVIDERS,
  importLinkRequestSchema,
  KNOWN_PROVIDERS,
  type WireImportLinkRequest,
} from "../upstream/schemas";
import { legacyCategoryOf } from "./legacy-categories";
import { MAX_FIELD_WARNINGS_PER_FILE, MAX_FIELD_WARNINGS_PER_LINK, MAX_PROBLEMS_PER_LINK } from "./limits";

// One link of an import file checked against the upstream's rules: the wire schema the sandbox enforces
// (lib/upstream/schemas.ts importLinkRequestSchema) and the cross-field rules of POST /links/import (account ids
// unique, every transaction's account imported). Problems name the field by its JSON path and say why in words.
// Warnings name what is imported differently from the file: zod's output drops every field the upstream does not
// take, so each such field is named here rather than lost without a word.

export interface LinkProblem {
  /** JSON path inside the link, e.g. `transactions[12].amount`; empty for the link as a whole. */
  path: string;
  message: string;
}

export type ImportWarningCode =
  "unknown_field" | "category_not_imported" | "repeated_transaction_id" | "transaction_without_id" | "provider_dropped";

export interface ImportWarning {
  code: ImportWarningCode;
  /** Where, list positions left out (`transactions[].category`): the same warning has the same path in every link. */
  path: string;
  /** The first place in the link it was found (`transactions[12].category`). */
  example: string;
  /** How many times in the link. */
  count: number;
  /** In words, the same in every link (so a file's warnings add up, FileReport.warnings). */
  message: string;
}

/** One kind of warning over a whole file: FileReport.warnings. */
export interface FileWarning {
  code: ImportWarningCode;
  path: string;
  message: string;
  /** Times found in the file. */
  count: number;
  /** Links it was found in. */
  links: number;
  /** The first place: which link (position from 0, its line) and where in it. */
  example: { position: number; line: number; path: string };
}

/** Transactions carrying a legacy category (`category` or `enrichment`), by whether it maps to the upstream's taxonomy. */
export interface LegacyCategoryCount {
  mappable: number;
  unmapped: number;
  /** The unmapped values as the file has them, and the first transaction carrying each (a few per link). */
  unmappedValues?: { value: string; path: string }[];
}

/** Distinct unmapped legacy categories listed per link at most. */
const UNMAPPED_LISTED_PER_LINK = 10;

/** The link as the upstream will get it (zod's output: unknown fields dropped, defaults filled). */
export type ImportLinkBody = z.output<typeof importLinkRequestSchema>;

export interface LinkValidation {
  body: ImportLinkBody | null;
  problems: LinkProblem[];
  /** Problems beyond MAX_PROBLEMS_PER_LINK, counted. */
  moreProblems: number;
  /** Things that do not stop the import but change what is stored, one per kind with its count. */
  warnings: ImportWarning[];
  legacyCategories: LegacyCategoryCount;
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
  ({ string: "text", number: "a number", boolean: "true or false", object: "an object", array: "a list" })[expected] ??
  expected;

/** A zod issue in words for people who maintain legacy exports. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const field = String(issue.path[issue.path.length - 1] ?? "");
  const input = (issue as { input?: unknown }).input;
  if (field === "amount" && issue.code !== "invalid_type")
    return `is not a number: ${show(input)} (write a signed decimal such as "-12.50")`;
  if (field === "amount" && input !== undefined)
    return `is not a number: ${show(input)} (write a signed decimal such as "-12.50")`;
  if (field === "date" && input !== undefined)
    return `is not a date: ${show(input)} (write YYYY-MM-DD or an ISO 8601 date-time)`;
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return "is missing";
      return `must be ${article(issue.expected)}, not ${show(input)}`;
    case "invalid_value":
      if (field === "provider") return `${show(input)} is not a known provider (one of ${KNOWN_PROVIDERS.join(", ")})`;
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, not ${show(input)}`;
    case "invalid_format":
      if (issue.format === "url") return `is not a URL: ${show(input)}`;
      if (issue.format === "datetime")
        return `is not a date-time: ${show(input)} (write ISO 8601, e.g. 2024-05-01T12:00:00Z)`;
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

// --- fields the upstream does not take ---

/** The object schema inside optional, nullable, default and array wrappers. */
function objectIn(schema: z.core.$ZodType): z.ZodObject {
  let current = schema;
  while (!(current instanceof z.ZodObject)) {
    const def = current._zod.def as { innerType?: z.core.$ZodType; element?: z.core.$ZodType };
    const inner = def.innerType ?? def.element;
    if (!inner) throw new Error(`no object schema inside a ${current._zod.def.type} schema`);
    current = inner;
  }
  return current;
}

/** One level of a link whose keys are checked: its path (lists as `[]`) and the fields the wire schema takes there. */
interface Level {
  path: string;
  known: ReadonlySet<string>;
  names: readonly string[];
}

const levelOf = (path: string, schema: z.core.$ZodType): Level => {
  const names = Object.keys(objectIn(schema).shape);
  return { path, known: new Set(names), names };
};

// Read from the wire schema itself, so a field the schema learns is never warned about. provider_data is free-form
// (the provider's credentials): what is inside it is not checked.
const wire = importLinkRequestSchema.shape;
const customerShape = objectIn(wire.customer_user).shape;
const LINK = levelOf("", importLinkRequestSchema);
const CUSTOMER_USER = levelOf("customer_user", wire.customer_user);
const EMAIL = levelOf("customer_user.email", customerShape.email);
const PHONE = levelOf("customer_user.phone", customerShape.phone);
const ACCOUNT = levelOf("accounts[]", wire.accounts);
const BALANCES = levelOf("accounts[].balances", objectIn(wire.accounts).shape.balances);
const TRANSACTION = levelOf("transactions[]", wire.transactions);

/** What a legacy transaction carries that the upstream's import does not take, but Linkdesk can carry over later. */
const CATEGORY_FIELDS: Readonly<Record<string, string>> = {
  category:
    "is not taken by the upstream on import, so the transaction is imported without it; Linkdesk can carry it over afterwards as a category correction (an option on the Import page)",
  enrichment:
    "is not taken by the upstream on import, so the transaction is imported without it; Linkdesk can carry its category over afterwards as a category correction (an option on the Import page)",
};

/** Where the fields beyond MAX_FIELD_WARNINGS_PER_LINK kinds are counted together. */
export const OTHER_FIELDS_PATH = "(other fields)";
const OTHER_FIELDS_MESSAGE =
  "are more fields the upstream does not take, of too many kinds to list one by one, so Linkdesk leaves them out";

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;
const MAX_KEY_SHOWN = 40;

/** `accounts[].balanses`; a key that is not a plain name is quoted: `transactions[]["amount (USD)"]`. */
function fieldPath(parent: string, key: string): string {
  if (PLAIN_KEY.test(key) && key.length <= MAX_KEY_SHOWN) return parent === "" ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key.length > MAX_KEY_SHOWN ? `${key.slice(0, MAX_KEY_SHOWN)}…` : key)}]`;
}

/** `institutionId`, `Institution-ID` and `institution id` all read as `institution_id`. */
const fold = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[\s.-]+/g, "_");

/** Edits (insert, delete, replace, swap two neighbours) from a to b, or `limit + 1` once over the limit. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/** The field a misspelt key most likely meant: the same name in another case or style, or one edit or so away. */
export function nearestField(key: string, names: readonly string[]): string | null {
  if (key.length > MAX_KEY_SHOWN) return null;
  const folded = fold(key);
  const same = names.find((name) => name === folded);
  if (same) return same;
  let nearest: string | null = null;
  let nearestDistance = Infinity;
  for (const name of names) {
    // Short names are close to many words: one edit for them, two for longer ones.
    const limit = name.length <= 4 ? 1 : 2;
    const distance = editDistance(folded, name, limit);
    if (distance <= limit && distance < nearestDistance) {
      nearest = name;
      nearestDistance = distance;
    }
  }
  return nearest;
}

function unknownFieldMessage(level: Level, key: string): string {
  const meant = nearestField(key, level.names);
  return `is not a field the upstream takes${level.path === "" ? "" : " here"}, so Linkdesk leaves it out${meant ? ` (did you mean "${meant}"?)` : ""}`;
}

/** A link's warnings, one per kind, counted as they are found. */
class Warnings {
  readonly list: ImportWarning[] = [];
  private readonly fields = new Map<Level, Map<string, ImportWarning>>();
  private fieldKinds = 0;
  private otherFields: ImportWarning | null = null;

  /** A key of an object at `level` that the upstream does not take; `index` is its list position, if it is in one. */
  field(level: Level, key: string, index = -1): void {
    let byKey = this.fields.get(level);
    if (!byKey) this.fields.set(level, (byKey = new Map()));
    const seen = byKey.get(key);
    if (seen) {
      seen.count++;
      return;
    }
    const path = fieldPath(level.path, key);
    const example = index < 0 ? path : path.replace("[]", `[${index}]`);
    let warning: ImportWarning;
    const category = level === TRANSACTION && Object.hasOwn(CATEGORY_FIELDS, key) ? CATEGORY_FIELDS[key] : undefined;
    if (category) warning = { code: "category_not_imported", path, example, count: 1, message: category };
    else if (this.fieldKinds < MAX_FIELD_WARNINGS_PER_LINK) {
      this.fieldKinds++;
      warning = { code: "unknown_field", path, example, count: 1, message: unknownFieldMessage(level, key) };
    } else if (this.otherFields) {
      this.otherFields.count++;
      byKey.set(key, this.otherFields);
      return;
    } else
      warning = this.otherFields = {
        code: "unknown_field",
        path: OTHER_FIELDS_PATH,
        example,
        count: 1,
        message: OTHER_FIELDS_MESSAGE,
      };
    byKey.set(key, warning);
    this.list.push(warning);
  }

  /** Every key of `value` the upstream does not take at `level`. */
  fieldsOf(level: Level, value: unknown, index = -1): void {
    if (!isObject(value)) return;
    for (const key in value) if (!level.known.has(key)) this.field(level, key, index);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * A file's warnings summed over its links, kind by kind (code and path), in the order first found: 100,000
 * transactions with a `category` in 300 links make one line, not 100,000.
 */
export class FileWarnings {
  private readonly byKind = new Map<string, FileWarning>();
  /** The last link counted for each kind: a link's fields folded into OTHER_FIELDS_PATH count that link once. */
  private readonly lastLink = new Map<FileWarning, number>();
  private fieldKinds = 0;

  add(position: number, line: number, warnings: readonly ImportWarning[]): void {
    for (const warning of warnings) {
      let kind = `${warning.code} ${warning.path}`;
      let total = this.byKind.get(kind);
      if (!total && warning.code === "unknown_field" && warning.path !== OTHER_FIELDS_PATH) {
        if (this.fieldKinds >= MAX_FIELD_WARNINGS_PER_FILE) {
          kind = `${warning.code} ${OTHER_FIELDS_PATH}`;
          total = this.byKind.get(kind);
        } else this.fieldKinds++;
      }
      if (!total) {
        const other = kind.endsWith(OTHER_FIELDS_PATH);
        total = {
          code: warning.code,
          path: other ? OTHER_FIELDS_PATH : warning.path,
          message: other ? OTHER_FIELDS_MESSAGE : warning.message,
          count: 0,
          links: 0,
          example: { position, line, path: warning.example },
        };
        this.byKind.set(kind, total);
      }
      total.count += warning.count;
      if (this.lastLink.get(total) !== position) {
        total.links++;
        this.lastLink.set(total, position);
      }
    }
  }

  list(): FileWarning[] {
    return [...this.byKind.values()];
  }
}

// --- webhook ---

const WEB_PROTOCOLS = new Set(["http:", "https:"]);

/**
 * Linkdesk's rule, not the upstream's (the spec types webhook as any URI): an address read from a file becomes a link's
 * webhook only if it is a web address, so an import cannot point the upstream at `javascript:`, `file:` or `ftp:`.
 */
function webhookProblem(value: unknown): LinkProblem | null {
  if (typeof value !== "string") return null;
  let protocol: string | null = null;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = null;
  }
  if (protocol !== null && WEB_PROTOCOLS.has(protocol)) return null;
  return {
    path: "webhook",
    message: `must be a web address starting with http:// or https://, not ${show(value)} (Linkdesk gives the upstream no other kind of webhook)`,
  };
}

// --- the link ---

const REPEATED_ID_MESSAGE =
  "repeats the id of an earlier transaction of the link: the upstream keeps one transaction per id (the last)";
const WITHOUT_ID_MESSAGE =
  "is missing: Linkdesk gives each such transaction an id (linkdesk-<n>) so a batch sent again cannot double it";

/** Checks one link's raw JSON; every problem found, not only the first. */
export function validateImportLink(value: unknown): LinkValidation {
  const problems: LinkProblem[] = [];
  const legacyCategories: LegacyCategoryCount = { mappable: 0, unmapped: 0, unmappedValues: [] };
  if (!isObject(value)) {
    return {
      body: null,
      problems: [{ path: "", message: `must be an Import Link body (a JSON object), not ${show(value)}` }],
      moreProblems: 0,
      warnings: [],
      legacyCategories,
    };
  }
  const parsed = importLinkRequestSchema.safeParse(value, { reportInput: true });
  const webhook = webhookProblem(value.webhook);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      // The webhook's own rule below says more than zod's "is not a URL".
      if (webhook && issue.path.length === 1 && issue.path[0] === "webhook") continue;
      problems.push({ path: jsonPath(issue.path), message: describeIssue(issue) });
    }
  }
  if (webhook) problems.push(webhook);

  // The cross-field rules of POST /links/import, read from the raw value so they are reported even when a field
  // elsewhere is wrong; the fields the upstream does not take, found on the same walk.
  const warnings = new Warnings();
  warnings.fieldsOf(LINK, value);
  const customer = value.customer_user;
  warnings.fieldsOf(CUSTOMER_USER, customer);
  if (isObject(customer)) {
    warnings.fieldsOf(EMAIL, customer.email);
    warnings.fieldsOf(PHONE, customer.phone);
  }
  const accounts = Array.isArray(value.accounts) ? (value.accounts as unknown[]) : [];
  const transactions = Array.isArray(value.transactions) ? (value.transactions as unknown[]) : [];
  const accountIds = new Set<string>();
  for (let index = 0; index < accounts.length; index++) {
    const account = accounts[index];
    if (!isObject(account)) continue;
    warnings.fieldsOf(ACCOUNT, account, index);
    warnings.fieldsOf(BALANCES, account.balances, index);
    const id = account.account_id;
    if (typeof id !== "string") continue;
    if (accountIds.has(id))
      problems.push({
        path: `accounts[${index}].account_id`,
        message: `"${id}" appears twice: account ids must be unique in a link`,
      });
    accountIds.add(id);
  }
  const transactionIds = new Set<string>();
  let repeated = 0;
  let firstRepeated = -1;
  let withoutId = 0;
  let firstWithoutId = -1;
  for (let index = 0; index < transactions.length; index++) {
    const transaction = transactions[index];
    if (!isObject(transaction)) continue;
    let carriesCategory = false;
    for (const key in transaction) {
      if (TRANSACTION.known.has(key)) continue;
      warnings.field(TRANSACTION, key, index);
      if (key === "category" || key === "enrichment") carriesCategory = true;
    }
    if (carriesCategory) {
      const category = legacyCategoryOf(transaction);
      if (category) {
        if ("unmapped" in category) {
          legacyCategories.unmapped++;
          const values = legacyCategories.unmappedValues!;
          if (values.length < UNMAPPED_LISTED_PER_LINK && !values.some((v) => v.value === category.unmapped))
            values.push({ value: category.unmapped, path: `transactions[${index}]` });
        } else legacyCategories.mappable++;
      }
    }
    const accountId = transaction.account_id;
    if (typeof accountId === "string" && accountId !== "" && !accountIds.has(accountId)) {
      problems.push({
        path: `transactions[${index}].account_id`,
        message: `"${accountId}" matches no account of this link`,
      });
    }
    const id = transaction.transaction_id;
    if (typeof id === "string" && id !== "") {
      if (transactionIds.has(id)) {
        repeated++;
        if (firstRepeated < 0) firstRepeated = index;
      } else transactionIds.add(id);
    } else {
      withoutId++;
      if (firstWithoutId < 0) firstWithoutId = index;
    }
  }
  const list = warnings.list;
  if (repeated > 0) {
    list.push({
      code: "repeated_transaction_id",
      path: "transactions[].transaction_id",
      example: `transactions[${firstRepeated}].transaction_id`,
      count: repeated,
      message: REPEATED_ID_MESSAGE,
    });
  }
  if (withoutId > 0) {
    list.push({
      code: "transaction_without_id",
      path: "transactions[].transaction_id",
      example: `transactions[${firstWithoutId}].transaction_id`,
      count: withoutId,
      message: WITHOUT_ID_MESSAGE,
    });
  }

  let body = problems.length === 0 && parsed.success ? parsed.data : null;
  if (body?.provider !== undefined && isDroppedProvider(body.provider)) {
    list.push({
      code: "provider_dropped",
      path: "provider",
      example: "provider",
      count: 1,
      message: `"${body.provider}" was dropped from the upstream's providers in 2024-08 and may be refused, so Linkdesk imports the link without a provider (the field is optional: "the source of data, if known")`,
    });
    body = { ...body, provider: undefined };
    delete body.provider;
  }

  // The order zod reports in follows the object; people read a link top to bottom, so sort by path.
  problems.sort((a, b) => comparePaths(a.path, b.path));
  const shown = problems.slice(0, MAX_PROBLEMS_PER_LINK);
  return {
    body,
    problems: shown,
    moreProblems: problems.length - shown.length,
    warnings: list,
    legacyCategories,
  };
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

const isDroppedProvider = (provider: string) => (DROPPED_PROVIDERS as readonly string[]).includes(provider);
