// What the door noticed while reading an answer: a value outside the lists this version of Linkdesk knows, or an
// item of a list it could not read at all. The upstream's lists move (the link error codes grew from 6 to 11 between
// the 2024 and 2025 SDKs; the category taxonomy was renamed on 2025-01-13 and old transactions keep old values), so a
// value Linkdesk does not know is kept and shown, and an item it cannot read is set aside, never the whole answer.
import { z } from "zod";

export interface ReadNotice {
  kind: "unknown_value" | "unreadable";
  /** Where in the object, with list positions left out: `link.error_code`, `transaction.enrichment.category`. */
  field: string;
  /** The value as sent (unknown_value), or what could not be read, in words (unreadable). Never a whole body. */
  value: string;
  /** The id of the object that carried it, when it has one (a link id, a transaction id). */
  itemId?: string;
}

// Schemas are parsed synchronously, so the notices of one parse are gathered on a stack: a schema notes into the
// innermost reading, and no other parse can interleave with it.
const readings: ReadNotice[][] = [];

/** Runs `parse` and returns what it noticed along with its result. */
export function noticing<T>(parse: () => T): { result: T; notices: ReadNotice[] } {
  const notices: ReadNotice[] = [];
  readings.push(notices);
  try {
    return { result: parse(), notices };
  } finally {
    readings.pop();
  }
}

function note(notice: ReadNotice): void {
  readings.at(-1)?.push(notice);
}

/** A string with a known set of values that may grow: any string reads, and one outside `known` is noted. */
export type Open<T extends string> = T | (string & {});

export function openEnum<const T extends readonly string[]>(field: string, known: T) {
  const values = new Set<string>(known);
  return z.string().transform((value): Open<T[number]> => {
    if (!values.has(value)) note({ kind: "unknown_value", field, value });
    return value;
  });
}

/** An item set aside by a list read item by item: its id (when it had one) and why, in words. */
export interface UnreadableItem {
  id: string | null;
  reason: string;
}

/**
 * A list read item by item: an item that does not match `item` is set aside with its id and the reason, so one odd
 * transaction does not fail a page of 1,000. `null` and absent read as an empty list.
 */
export function itemByItem<S extends z.ZodType>(field: string, item: S, idKey: string) {
  return z
    .array(z.unknown())
    .nullish()
    .transform((items) => {
      const read: z.infer<S>[] = [];
      const unreadable: UnreadableItem[] = [];
      for (const raw of items ?? []) {
        const parsed = item.safeParse(raw, { reportInput: true });
        if (parsed.success) {
          read.push(parsed.data);
          continue;
        }
        const id = idOf(raw, idKey);
        const reason = describeIssue(parsed.error);
        unreadable.push({ id, reason });
        note({
          kind: "unreadable",
          field: `${field}${issuePath(parsed.error)}`,
          value: reason,
          itemId: id ?? undefined,
        });
      }
      return { read, unreadable };
    });
}

/** A map (by id) read entry by entry, as `itemByItem` reads a list. */
export function entryByEntry<S extends z.ZodType>(field: string, item: S) {
  return z.record(z.string(), z.unknown()).transform((entries) => {
    const read: Record<string, z.infer<S>> = {};
    const unreadable: UnreadableItem[] = [];
    for (const [key, raw] of Object.entries(entries)) {
      const parsed = item.safeParse(raw, { reportInput: true });
      if (parsed.success) {
        read[key] = parsed.data;
        continue;
      }
      const reason = describeIssue(parsed.error);
      unreadable.push({ id: key, reason });
      note({ kind: "unreadable", field: `${field}${issuePath(parsed.error)}`, value: reason, itemId: key });
    }
    return { read, unreadable };
  });
}

/** One object that is read if it can be and otherwise set aside (null), so the answer around it still reads. */
export function ifReadable<S extends z.ZodType>(field: string, item: S, idKey: string) {
  return z.unknown().transform((raw): z.infer<S> | null => {
    if (raw === undefined || raw === null) return null;
    const parsed = item.safeParse(raw, { reportInput: true });
    if (parsed.success) return parsed.data;
    note({
      kind: "unreadable",
      field: `${field}${issuePath(parsed.error)}`,
      value: describeIssue(parsed.error),
      itemId: idOf(raw, idKey) ?? undefined,
    });
    return null;
  });
}

function idOf(raw: unknown, idKey: string): string | null {
  if (typeof raw !== "object" || raw === null) return null;
  const value = (raw as Record<string, unknown>)[idKey];
  return typeof value === "string" && value !== "" ? value.slice(0, 200) : null;
}

function issuePath(error: z.ZodError): string {
  const path = error.issues[0]?.path.filter((part) => typeof part === "string") ?? [];
  return path.length > 0 ? `.${path.join(".")}` : "";
}

/** The first problem in words, with the value that was there (cut short): never the whole item. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "it could not be read";
  const where = issue.path.length > 0 ? issue.path.join(".") : "the item";
  if (issue.code === "invalid_type" && issue.input === undefined) return `${where} is missing`;
  const shown = issue.input === undefined ? "" : ` (it was ${shortJson(issue.input)})`;
  return `${where}: ${issue.message.replace(/^Invalid input: /, "")}${shown}`;
}

function shortJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
