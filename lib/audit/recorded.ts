// An audit row's recorded input, before and after, in the words people read elsewhere on the site. What was recorded
// is JSON written by many actions over time (and older rows by older code), so nothing about its shape is assumed:
// every value becomes text, and a value that cannot be shown ("null", NaN, a nested object) becomes a word instead.
// Pure, no server-only import: the table renders it on the server and tests call it directly.
import { categoryLabel, isCategory, subcategoryLabel } from "../upstream/taxonomy";

/** What the page shows for a missing value (null, undefined, an empty list or object). */
export const NOTHING_RECORDED = "none";
/** What the page shows for a number that is not one (NaN, Infinity), which JSON cannot carry but older rows might. */
export const NOT_A_NUMBER = "–";

export type RecordedView =
  /** Plain text; `raw` is the recorded code behind it, shown on hover, when it differs. */
  | { kind: "text"; text: string; raw?: string; missing?: boolean }
  | { kind: "list"; items: RecordedView[] }
  | { kind: "fields"; fields: RecordedField[] };

export interface RecordedField {
  /** The recorded key, as written ("alreadyImported", "error_code"). */
  key: string;
  /** The key in words: "Already imported", "Error code". */
  label: string;
  value: RecordedView;
}

const missing = (): RecordedView => ({ kind: "text", text: NOTHING_RECORDED, missing: true });

/** "alreadyImported" → "Already imported", "error_code" → "Error code", "undoJob" → "Undo job". */
export function describeKey(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : key;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A category with its optional subcategory, as corrections record them: "Food and drink › Coffee", the codes
 * ("food_and_drink › coffee") kept for the hover. Undefined when the value holds no known category.
 */
export function describeCategoryPair(value: Record<string, unknown>): RecordedView | undefined {
  const { category, subcategory } = value;
  if (typeof category !== "string" || !isCategory(category)) return undefined;
  const sub = typeof subcategory === "string" && subcategory ? subcategory : null;
  return {
    kind: "text",
    text: sub ? `${categoryLabel(category)} › ${subcategoryLabel(sub)}` : categoryLabel(category),
    raw: sub ? `${category} › ${sub}` : category,
  };
}

/** Only these keys: the value is a pair and nothing else, shown as one line rather than a field. */
const PAIR_KEYS = new Set(["category", "subcategory"]);

/** Any recorded value (parsed JSON, or whatever an old row holds) as a tree of text to render. */
export function describeRecorded(value: unknown): RecordedView {
  if (value === null || value === undefined) return missing();
  if (typeof value === "string") return value.trim() ? { kind: "text", text: value } : missing();
  if (typeof value === "number")
    return Number.isFinite(value)
      ? { kind: "text", text: String(value) }
      : { kind: "text", text: NOT_A_NUMBER, missing: true };
  if (typeof value === "boolean") return { kind: "text", text: value ? "yes" : "no" };
  if (typeof value === "bigint") return { kind: "text", text: value.toString() };
  if (Array.isArray(value)) return value.length > 0 ? { kind: "list", items: value.map(describeRecorded) } : missing();
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? missing() : { kind: "text", text: value.toISOString() };
  if (!isRecord(value)) return missing();

  const pair = describeCategoryPair(value);
  const keys = Object.keys(value).filter((key) => value[key] !== undefined);
  if (pair && keys.every((key) => PAIR_KEYS.has(key))) return pair;
  const fields: RecordedField[] = [];
  for (const key of keys) {
    if (pair && PAIR_KEYS.has(key)) {
      // The pair reads as one field, in the place of its category.
      if (key === "category") fields.push({ key, label: "Category", value: pair });
      continue;
    }
    fields.push({ key, label: describeKey(key), value: describeRecorded(value[key]) });
  }
  return fields.length > 0 ? { kind: "fields", fields } : missing();
}

/** The view as one line of text (for a title, a CSV cell or a test): "Category: Food and drink › Coffee; Transactions: 3". */
export function recordedText(view: RecordedView): string {
  switch (view.kind) {
    case "text":
      return view.text;
    case "list":
      return view.items
        .map((item) => (item.kind === "fields" ? `(${recordedText(item)})` : recordedText(item)))
        .join(", ");
    case "fields":
      return view.fields
        .map((f) => `${f.label}: ${f.value.kind === "fields" ? `(${recordedText(f.value)})` : recordedText(f.value)}`)
        .join("; ");
  }
}
