import { importLinkRequestSchema } from "../../upstream/schemas";
import { type FileProblem, MAX_LINKS_PER_FILE, MAX_NESTING_DEPTH } from "../limits";
import { linesOf, scanJson } from "./json-scan";

// From the text of an uploaded file to one raw JSON value per link: the four formats (one Import Link body, an array
// of them, the same array as `{"links": [...]}`, NDJSON with one per line), syntax errors named by line and column,
// and the guards (nesting, `__proto__`, the number of links). Part of the reader: only index.ts calls it.

export type ImportFormat = "object" | "array" | "wrapped" | "ndjson";

export interface RawLink {
  /** Position in the file, from 0. */
  position: number;
  /** Line where the link starts, from 1. */
  line: number;
  /** Column where the link starts on its line, from 1 (0 when not found: an array's links, until asked for). */
  column?: number;
  /** The parsed JSON, or undefined when this link's own line is not JSON (NDJSON only). */
  value: unknown;
  /** A syntax problem of this link alone (NDJSON: the other lines still count). */
  syntax?: FileProblem;
}

export type ParsedFile = { ok: true; format: ImportFormat; links: RawLink[] } | { ok: false; problem: FileProblem };

const problemAt = (text: string, offset: number, message: string): FileProblem => {
  const [at] = linesOf(text, [offset]);
  return {
    message: `Not valid JSON at line ${at!.line}, column ${at!.column}: ${message}.`,
    line: at!.line,
    column: at!.column,
  };
};

const NOT_LINKS: FileProblem = {
  message: "The file must hold an Import Link body (a JSON object), an array of them, or one per line (NDJSON).",
};

const READS_LINKS_FROM =
  'Linkdesk reads links from a top-level array, NDJSON, one Import Link body, or an object {"links": [...]}';

/** The key under which a wrapped file holds its links: `{"links": [...]}` and nothing else beside it. */
export const WRAPPER_KEY = "links";

/** Fields of an Import Link body: an object with any of them is one link, whatever else it holds. */
const LINK_FIELDS = new Set(Object.keys(importLinkRequestSchema.shape));

const entries = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "entry" : "entries"}`;
const quoteKey = (key: string) => JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);

/**
 * What a top-level object is: one Import Link body (null), a wrapper whose `links` are the links, or a wrapper Linkdesk
 * does not read, refused with what it holds (an export of `{"items": [...]}` must not become one broken link).
 */
function unwrap(value: Record<string, unknown>): { links: unknown[] } | { problem: FileProblem } | null {
  const keys = Object.keys(value);
  if (keys.some((key) => LINK_FIELDS.has(key))) return null;
  const lists = keys.filter((key) => Array.isArray(value[key]));
  if (lists.length === 0) return null;
  const links = value[WRAPPER_KEY];
  if (keys.length === 1 && Array.isArray(links)) {
    if (links.length === 0)
      return { problem: { message: `The file holds an empty list under "${WRAPPER_KEY}": no links to import.` } };
    return { links };
  }
  // Named: the links key if there is one, else the longest list (what an export most likely meant as its rows).
  const named = Array.isArray(links)
    ? WRAPPER_KEY
    : lists.reduce((a, b) => ((value[b] as unknown[]).length > (value[a] as unknown[]).length ? b : a));
  const others = keys.filter((key) => key !== named);
  const beside =
    named === WRAPPER_KEY
      ? ` beside ${others.length === 1 ? "the key" : "the keys"} ${others.slice(0, 3).map(quoteKey).join(", ")}${others.length > 3 ? ` and ${others.length - 3} more` : ""}, which Linkdesk does not read`
      : lists.length > 1
        ? ` (and ${lists.length - 1} more key${lists.length === 2 ? "" : "s"} holding a list)`
        : "";
  return {
    problem: {
      message: `The file is an object with the key ${quoteKey(named)} holding ${entries((value[named] as unknown[]).length)}${beside}; ${READS_LINKS_FROM}.`,
    },
  };
}

/** Line (from 1) of each link of a wrapped file: the elements of the array under its one key. */
function wrappedElementStarts(text: string): { line: number; column: number }[] {
  // The object has exactly one key, which reads "links" (however it is escaped, neither ":" nor "[" is in it): the
  // first ":" ends the key, the first "[" after it opens the array, and the last "]" closes it.
  const open = text.indexOf("[", text.indexOf(":"));
  const close = text.lastIndexOf("]");
  return linesOf(text, scanJson(text, open, close + 1).elementStarts);
}

/**
 * Whether a parsed value stays within the nesting limit and has no `__proto__` key; walked without recursion, so a
 * hostile depth cannot overflow the stack.
 */
export function guardValue(value: unknown): boolean {
  // Two parallel stacks rather than one of pairs: a 20 MB file has hundreds of thousands of objects.
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth > MAX_NESTING_DEPTH) return false;
    if (Array.isArray(current)) {
      for (const item of current) {
        if (item !== null && typeof item === "object") {
          values.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    if (Object.hasOwn(current, "__proto__")) return false;
    for (const key in current) {
      const item = (current as Record<string, unknown>)[key];
      if (item !== null && typeof item === "object") {
        values.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return true;
}

/** A \u escape of either half of a surrogate pair: the scanner checks that each stands in a whole pair. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** JSON.parse, when the text is plain JSON within the guards; undefined otherwise (the scanner then says why). */
function parseFast(text: string): { value: unknown } | undefined {
  // A NUL character cannot be stored (PostgreSQL text); the scanner names where it is.
  if (text.includes("\\u0000")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!guardValue(value)) return undefined;
  // Nor can half of a surrogate pair (PostgreSQL's JSON): only a text with such an escape can hold one.
  if (SURROGATE_ESCAPE.test(text) && !wellFormedDeep(value)) return undefined;
  return { value };
}

/** Whether every string of a parsed value, keys included, is well-formed UTF-16 (no half of a surrogate pair). */
function wellFormedDeep(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === "string") {
      if (!current.isWellFormed()) return false;
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (Array.isArray(current)) for (const item of current) stack.push(item);
    else
      for (const [key, item] of Object.entries(current)) {
        if (!key.isWellFormed()) return false;
        stack.push(item);
      }
  }
  return true;
}

/** Line (from 1) of each element of a top-level JSON array, for naming a link by where it is in the file. */
export function arrayElementLines(text: string): number[] {
  return arrayElementStarts(text).map((at) => at.line);
}

/** Where each element of a JSON array file starts: its line and column, from 1. */
export function arrayElementStarts(text: string): { line: number; column: number }[] {
  return linesOf(text, scanJson(text).elementStarts);
}

/**
 * Splits a file's text into its links: one object, an array of objects, `{"links": [...]}`, or NDJSON. Plain JSON
 * takes the fast path (the runtime's parser, then a walk for the guards); anything else is scanned to say where and
 * why it is wrong. Links of an array get line 0 here: `arrayElementLines` finds them when they are needed; links of a
 * wrapped file get theirs here.
 */
export function parseImportText(text: string): ParsedFile {
  if (text.trim() === "") return { ok: false, problem: { message: "The file is empty." } };
  const fast = parseFast(text);
  if (fast) {
    const { value } = fast;
    if (Array.isArray(value)) {
      if (value.length === 0)
        return { ok: false, problem: { message: "The file holds an empty array: no links to import." } };
      if (value.length > MAX_LINKS_PER_FILE) return { ok: false, problem: tooMany(value.length) };
      return {
        ok: true,
        format: "array",
        links: value.map((item: unknown, position) => ({ position, line: 0, value: item })),
      };
    }
    if (value !== null && typeof value === "object") {
      const wrapper = unwrap(value as Record<string, unknown>);
      if (wrapper && "problem" in wrapper) return { ok: false, problem: wrapper.problem };
      if (wrapper) {
        if (wrapper.links.length > MAX_LINKS_PER_FILE) return { ok: false, problem: tooMany(wrapper.links.length) };
        const starts = wrappedElementStarts(text);
        return {
          ok: true,
          format: "wrapped",
          links: wrapper.links.map((item: unknown, position) => ({
            position,
            line: starts[position]?.line ?? 0,
            column: starts[position]?.column ?? 0,
            value: item,
          })),
        };
      }
      return {
        ok: true,
        format: "object",
        links: [{ position: 0, ...linesOf(text, [firstNonSpace(text)])[0]!, value }],
      };
    }
    return { ok: false, problem: NOT_LINKS };
  }
  const whole = scanJson(text, 0, text.length, { allowTrailing: true });
  const trailing = whole.problem === null && text.slice(whole.end).trim() !== "";
  // A first value that is an object and ends its line, followed by more on later lines: NDJSON, read line by line.
  const firstEndsLine = whole.problem === null && trailing ? /^[ \t\r]*\n/.test(text.slice(whole.end)) : false;
  if (whole.top === "object" && (firstEndsLine || (whole.problem !== null && looksLikeNdjson(text))))
    return parseNdjson(text);
  if (whole.problem) return { ok: false, problem: problemAt(text, whole.problem.offset, whole.problem.message) };
  if (trailing) {
    return {
      ok: false,
      problem: problemAt(
        text,
        whole.end + (text.slice(whole.end).length - text.slice(whole.end).trimStart().length),
        "more text after the end of the JSON value",
      ),
    };
  }
  // The scanner found nothing the fast path refused: only a guard it checks differently; name the file as a whole.
  return { ok: false, problem: NOT_LINKS };
}

function firstNonSpace(text: string): number {
  const match = /\S/.exec(text);
  return match?.index ?? 0;
}

/** Two or more non-empty lines that each start with "{": a fleet export, one link per line. */
function looksLikeNdjson(text: string): boolean {
  let objects = 0;
  for (const line of text.split("\n", 3)) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return false;
    objects++;
  }
  return objects >= 2;
}

/** Lines that hold something, from `from` to the end of the text. */
function countLinesWithText(text: string, from: number): number {
  let count = 0;
  for (let start = from; start < text.length;) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (!isBlank(text, start, end)) count++;
    start = end + 1;
  }
  return count;
}

function tooMany(count: number): FileProblem {
  return {
    message: `The file holds ${count.toLocaleString("en-US")} links: more than the ${MAX_LINKS_PER_FILE.toLocaleString("en-US")} Linkdesk imports from one file. Split it.`,
  };
}

function parseNdjson(text: string): ParsedFile {
  const links: RawLink[] = [];
  let start = 0;
  let lineNo = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lineNo++;
    let lineEnd = end;
    if (lineEnd > start && text.charCodeAt(lineEnd - 1) === 0x0d) lineEnd--;
    if (!isBlank(text, start, lineEnd)) {
      const position = links.length;
      // The whole count, so the refusal says how many the file holds (not just "more than the cap").
      if (position >= MAX_LINKS_PER_FILE)
        return { ok: false, problem: tooMany(position + countLinesWithText(text, start)) };
      links.push(ndjsonLink(text, position, lineNo, start, lineEnd));
    }
    start = end + 1;
  }
  return { ok: true, format: "ndjson", links };
}

const isBlank = (text: string, from: number, to: number) => {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
};

/**
 * One line of an NDJSON file, parsed when its value is first read: a fleet file's links are then built one at a time
 * (checked, planned, dropped) rather than all at once, which holds a 20 MB file's memory to about one link's.
 */
function ndjsonLink(text: string, position: number, line: number, start: number, end: number): RawLink {
  let read: { value: unknown; syntax?: FileProblem } | undefined;
  type Read = { value: unknown; syntax?: FileProblem };
  const readLine = (): Read => {
    if (read) return read;
    const lineText = text.slice(start, end);
    const fast = parseFast(lineText);
    if (fast) return (read = { value: fast.value });
    const scan = scanJson(text, start, end);
    if (scan.problem) {
      const column = scan.problem.offset - start + 1;
      return (read = {
        value: undefined,
        syntax: {
          message: `Line ${line} is not valid JSON at column ${column}: ${scan.problem.message}.`,
          line,
          column,
        },
      });
    }
    return (read = { value: JSON.parse(lineText) });
  };
  return {
    position,
    line,
    get value() {
      return readLine().value;
    },
    set value(value: unknown) {
      // Dropping the value once it is checked: a line is never read twice.
      read = { value, syntax: read?.syntax };
    },
    get syntax() {
      return readLine().syntax;
    },
  };
}
