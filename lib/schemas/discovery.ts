import { z } from "zod";
import { describeBytes } from "../import/limits";

// How Linkdesk is told of links the upstream's listing leaves out (lib/links/discovery.ts): a customer's links looked
// up by the customer's id, and link ids the product's back end knows, registered by file (the admin page) or by the
// service endpoint (POST /api/links/register). Shared by the forms, the action, the route and the file's preview.

// ---------------------------------------------------------------------------------------------------------------------
// Link ids

/**
 * A link id as the upstream makes them: `mk_` and 22 base58 characters (upstream-facts §0, `mk_eqkWN34UEoa2NxyALG8pcV`).
 * Linkdesk accepts 8 to 64 letters or digits after the prefix, so a change of length upstream is not refused here.
 */
export const LINK_ID_PATTERN = /^mk_[A-Za-z0-9]{8,64}$/;
export const LINK_ID_EXAMPLE = "mk_eqkWN34UEoa2NxyALG8pcV";

/** Why `value` is not a link id, in words; null when it is one. */
export function linkIdProblem(value: unknown): string | null {
  if (typeof value !== "string")
    return `not text but ${value === null ? "null" : Array.isArray(value) ? "a list" : typeof value}`;
  if (value.trim() === "") return "empty";
  if (value !== value.trim()) return "has spaces around it";
  if (!value.startsWith("mk_")) return `does not start with mk_ (a link id looks like ${LINK_ID_EXAMPLE})`;
  if (value.length > 67) return `too long: ${value.length} characters, a link id has at most 67`;
  if (!LINK_ID_PATTERN.test(value)) {
    return value.length < 11
      ? "too short: a link id has mk_ and at least 8 letters or digits"
      : "holds characters other than letters and digits after mk_";
  }
  return null;
}

export const linkIdSchema = z.string().superRefine((value, ctx) => {
  const problem = linkIdProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: `Not a link id: ${problem}.` });
});

/** One invalid entry of a list of ids: where it is (0-based index in a request, 1-based line in a file) and why. */
export interface InvalidLinkId {
  index: number;
  reason: string;
}

/**
 * The link ids of a list, each checked, once each (first occurrence kept, in order): what a registration records.
 * `invalid` holds every entry that is not a link id, with its index and reason.
 */
export function checkLinkIds(values: readonly unknown[]): {
  ids: string[];
  invalid: InvalidLinkId[];
  duplicates: number;
} {
  const seen = new Set<string>();
  const invalid: InvalidLinkId[] = [];
  let duplicates = 0;
  values.forEach((value, index) => {
    const problem = linkIdProblem(value);
    if (problem) invalid.push({ index, reason: problem });
    else if (seen.has(value as string)) duplicates++;
    else seen.add(value as string);
  });
  return { ids: [...seen], invalid, duplicates };
}

// ---------------------------------------------------------------------------------------------------------------------
// Registration by the product's back end: POST /api/links/register

/** Ids per call: the back end sends more in several calls (the door caps a body at 1 MB: about 35,000 ids). */
export const REGISTER_REQUEST_MAX_IDS = 10_000;

/**
 * The body of POST /api/links/register: `{"link_ids": [...], "customers": {...}}` (customers optional). Ids are checked
 * one by one (checkLinkIds); a customer is kept only for an id that is valid and listed in link_ids.
 */
export const registerRequestSchema = z
  .object({
    link_ids: z
      .array(z.unknown(), {
        error: (issue) => (issue.input === undefined ? "link_ids is missing" : "link_ids must be a list of link ids"),
      })
      .max(REGISTER_REQUEST_MAX_IDS, {
        error: `link_ids holds at most ${REGISTER_REQUEST_MAX_IDS.toLocaleString("en")} ids a call; send the rest in further calls`,
      }),
    /**
     * Optionally, whose each link is: `{"mk_…": "customer user id"}`, as the back end recorded it when it made the
     * link (the upstream's link does not say). Linkdesk needs it to ask a broken link's user to reconnect.
     */
    customers: z
      .record(
        z.string().min(1).max(200),
        z
          .string({ error: "a customer user id is text" })
          .min(4, { error: "a customer user id is 4 to 150 characters" })
          .max(150, { error: "a customer user id is 4 to 150 characters" }),
        { error: 'customers must be an object of link id to customer user id: {"mk_…": "user_…"}' },
      )
      .optional(),
  })
  .strict();

/** What is wrong with a body that is not `{"link_ids": [...]}`, in words, one sentence per problem. */
export function describeRegisterRequestIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    if (issue.path.length === 0 && issue.code === "invalid_type")
      return 'the body must be a JSON object: {"link_ids": ["mk_…", …]}';
    if (issue.code === "unrecognized_keys")
      return `unknown ${issue.keys.length === 1 ? "field" : "fields"} ${issue.keys.map((key) => JSON.stringify(key)).join(", ")}: the body holds link_ids and, optionally, customers`;
    return issue.message;
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Registration by file: the admin page

export const REGISTER_FILE_MAX_BYTES = 2 * 1024 * 1024;
export const REGISTER_FILE_MAX_LABEL = "2 MB";
export const REGISTER_FILE_MAX_IDS = 50_000;

export const registerFileSchema = z.object({
  file: z.instanceof(File, { message: "Choose a file of link ids." }).superRefine((file, ctx) => {
    if (file.size === 0) ctx.addIssue({ code: "custom", message: "The file is empty." });
    else if (file.size > REGISTER_FILE_MAX_BYTES) {
      ctx.addIssue({
        code: "custom",
        message: `The file is ${describeBytes(file.size)}: over the ${REGISTER_FILE_MAX_LABEL} Linkdesk takes. Split it into smaller files.`,
      });
    }
  }),
});

export type RegisterFileInput = z.input<typeof registerFileSchema>;

/** A line of the file that holds no link id, by its number (from 1) and what it says (cut short). */
export interface InvalidFileLine {
  line: number;
  reason: string;
  text: string;
}

export interface LinkIdFile {
  format: "lines" | "csv";
  /** Link ids, once each, in the file's order. */
  ids: string[];
  invalid: InvalidFileLine[];
  duplicates: number;
  /** Why nothing of the file can be registered (no link_id column, too many ids), in words; null otherwise. */
  refusal: string | null;
}

const LINE_TEXT_SHOWN = 60;
const shown = (text: string) => (text.length > LINE_TEXT_SHOWN ? `${text.slice(0, LINE_TEXT_SHOWN)}…` : text);

/** Splits one CSV line into cells (RFC 4180 quotes; a link id has no comma or quote, other columns may). */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      cells.push(cell);
      cell = "";
    } else cell += c;
  }
  cells.push(cell);
  return cells.map((value) => value.trim());
}

/**
 * Reads a file of link ids. Two forms: one id a line (blank lines skipped), or CSV whose first line is a header naming
 * a `link_id` column (other columns ignored). Each id is checked; a line without one is listed by its number.
 */
export function parseLinkIdFile(text: string): LinkIdFile {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  const firstIndex = lines.findIndex((line) => line.trim() !== "");
  const header = firstIndex >= 0 ? csvCells(lines[firstIndex]!) : [];
  const column = header.findIndex((cell) => cell.toLowerCase() === "link_id");
  const csv = column >= 0;
  if (!csv && firstIndex >= 0 && lines[firstIndex]!.includes(",")) {
    return {
      format: "csv",
      ids: [],
      invalid: [],
      duplicates: 0,
      refusal: `Line ${firstIndex + 1} has commas but names no link_id column: a CSV file starts with a header row such as "link_id,customer_id".`,
    };
  }
  const seen = new Set<string>();
  const invalid: InvalidFileLine[] = [];
  let duplicates = 0;
  lines.forEach((raw, index) => {
    if (raw.trim() === "" || (csv && index === firstIndex)) return;
    const value = csv ? (csvCells(raw)[column] ?? "") : raw.trim();
    const problem = csv && value === "" ? "no link_id in this row" : linkIdProblem(value);
    if (problem) invalid.push({ line: index + 1, reason: problem, text: shown(raw.trim()) });
    else if (seen.has(value)) duplicates++;
    else seen.add(value);
  });
  const ids = [...seen];
  const refusal =
    ids.length > REGISTER_FILE_MAX_IDS
      ? `The file holds ${ids.length.toLocaleString("en")} link ids: at most ${REGISTER_FILE_MAX_IDS.toLocaleString("en")} a file. Split it into smaller files.`
      : ids.length === 0 && invalid.length === 0
        ? "The file holds no link id."
        : null;
  return { format: csv ? "csv" : "lines", ids: refusal ? [] : ids, invalid, duplicates, refusal };
}

// ---------------------------------------------------------------------------------------------------------------------
// A customer's links

export const CUSTOMER_ID_MAX_LENGTH = 128;
/** The product's own user ids (customer_user.id): letters and digits, and _ - . : @ + inside. */
const CUSTOMER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@+-]*$/;

export const customerIdSchema = z
  .string({ error: "Enter a customer id." })
  .trim()
  .superRefine((value, ctx) => {
    const problem =
      value === ""
        ? "Enter a customer id: the id your product gave the customer (customer_user.id), e.g. user_42."
        : value.length > CUSTOMER_ID_MAX_LENGTH
          ? `A customer id has at most ${CUSTOMER_ID_MAX_LENGTH} characters; this one has ${value.length}.`
          : !/^[A-Za-z0-9]/.test(value)
            ? "A customer id starts with a letter or a digit."
            : !CUSTOMER_ID_PATTERN.test(value)
              ? `A customer id holds only letters, digits and _ - . : @ + (not ${JSON.stringify([...value].find((c) => !/[A-Za-z0-9_.:@+-]/.test(c)))}).`
              : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem, abort: true });
  });

export const customerLookupSchema = z.object({ customerId: customerIdSchema });
export type CustomerLookupInput = z.input<typeof customerLookupSchema>;
