import {
  CATEGORIES,
  type Category,
  type Subcategory,
  TAXONOMY,
  categoryOf,
  isCategory,
  isSubcategory,
} from "../upstream/taxonomy";

// The category a legacy transaction carries, in the upstream's taxonomy (lib/upstream/taxonomy.ts). POST /links/import
// takes no category, so Linkdesk can only carry one over afterwards, as a category correction of the imported
// transaction; this says which category that would be. Pure (no server-only): the page's worker counts them for the
// preview, the server for the plan.
//
// Legacy exports write a category in several ways: a transaction's own `category` (the upstream's deprecated dotted
// form such as `food_and_drinks.restaurants`, or a value of today's taxonomy, alone or dotted as
// `category.subcategory`), or an `enrichment` copied from the upstream's own answers (`{category: {value}}`), or
// flattened by an export tool (`{category: "x", subcategory: "y"}`).

export type LegacyCategory = { category: Category; subcategory?: Subcategory } | { unmapped: string };

/**
 * Names of the deprecated dotted taxonomy, as far as the upstream's public docs show them (the full list of that
 * taxonomy is not published with the spec): a primary name, or `primary.sub`. Any other legacy name is counted as
 * unmapped and shown in the preview rather than guessed.
 */
const LEGACY_NAMES: Readonly<Record<string, { category: Category; subcategory?: Subcategory }>> = {
  food_and_drinks: { category: "food_and_drink" },
  "food_and_drinks.restaurants": { category: "food_and_drink", subcategory: "eating_out_and_takeaways" },
  fee: { category: "banking" },
  wages: { category: "income", subcategory: "employment_income" },
};

/**
 * Subcategories of today's taxonomy renamed or removed upstream (taxonomy change of 2025-01-13, upstream-facts §5.3):
 * an export made before it still carries the old names. A removed one keeps its category only.
 */
const RENAMED_SUBCATEGORIES: Readonly<Record<string, { category: Category; subcategory?: Subcategory }>> = {
  overdraft_fees: { category: "banking", subcategory: "nsf_and_overdraft_fees" },
  bank_fees_and_currency_exchange: { category: "banking", subcategory: "account_fees_and_other_bank_charges" },
  deferred_bills: { category: "borrowing_and_loans" },
};

/** The deprecated form's word for "no more exact subcategory" (`fee.other.misc_charge`). */
const OTHER = "other";

/** `Food & Drink`, `food-and-drink`, ` FOOD_AND_DRINK ` all become `food_and_drink`; labels (`Buy now, pay later`) too. */
export function normaliseCategoryName(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[,'’]/g, "")
    .replace(/[\s_-]+/g, "_")
    .replace(/^_|_$/g, "");
}

type Mapped = { category: Category; subcategory?: Subcategory };

/** Labels whose words differ from their value (`Broadband, phone and TV` is `broadband_phone_tv`), normalised. */
const VALUE_OF_LABEL = new Map<string, string>();
for (const category of CATEGORIES) {
  VALUE_OF_LABEL.set(normaliseCategoryName(TAXONOMY[category].label), category);
  for (const [subcategory, label] of Object.entries(TAXONOMY[category].subcategories))
    VALUE_OF_LABEL.set(normaliseCategoryName(label), subcategory);
}
for (const [label, value] of VALUE_OF_LABEL) if (label === value) VALUE_OF_LABEL.delete(label);

/** A normalised name as a value of the taxonomy where it is one of its labels. */
const valueOfName = (name: string): string => VALUE_OF_LABEL.get(name) ?? name;

const pair = (category: Category, subcategory?: Subcategory): Mapped =>
  subcategory ? { category, subcategory } : { category };

/** One name alone: a category, a subcategory (its category from the taxonomy), or a legacy name. */
function mapName(name: string): Mapped | null {
  if (isCategory(name)) return { category: name };
  if (isSubcategory(name)) return pair(categoryOf(name)!, name);
  return RENAMED_SUBCATEGORIES[name] ?? LEGACY_NAMES[name] ?? null;
}

/** A subcategory name under a known category: a value of that category, a renamed one, or the legacy `other`. */
function mapUnder(category: Category, name: string): Mapped | null {
  if (isSubcategory(name)) return categoryOf(name) === category ? pair(category, name) : null;
  const renamed = RENAMED_SUBCATEGORIES[name];
  if (renamed) return renamed.category === category ? renamed : null;
  if (name === OTHER) {
    const other = `other_${category}`;
    return isSubcategory(other) ? pair(category, other) : pair(category);
  }
  return null;
}

/** A dotted or plain category text: `groceries`, `food_and_drink.coffee`, `food_and_drinks.restaurants`. */
function mapText(text: string): Mapped | null {
  const parts = text
    .split(".")
    .map((part) => valueOfName(normaliseCategoryName(part)))
    .filter((part) => part !== "");
  if (parts.length === 0) return null;
  if (parts.length === 1) return mapName(parts[0]!);
  const [first, second] = parts as [string, string];
  const legacy = LEGACY_NAMES[`${first}.${second}`];
  if (legacy) return legacy;
  // The primary name decides the category; what follows must belong to it (a third part is the deprecated form's
  // free detail after `other`, e.g. `wages.other.supplemental`).
  const primary = isCategory(first) ? pair(first) : LEGACY_NAMES[first];
  if (!primary) return null;
  if (second === OTHER && !isCategory(first)) return pair(primary.category, primary.subcategory);
  return mapUnder(primary.category, second);
}

// A 20 MB file carries the same few hundred category texts on 100,000 transactions: each is worked out once.
const MAX_REMEMBERED = 5_000;
const remembered = new Map<string, Mapped | null>();

function mapTextOnce(text: string): Mapped | null {
  const known = remembered.get(text);
  if (known !== undefined || remembered.has(text)) return known ?? null;
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  const mapped = mapText(text);
  remembered.set(text, mapped);
  return mapped;
}

const MAX_UNMAPPED_LENGTH = 100;

/** The value as text for `unmapped`: strings as they are, anything else as its JSON, cut to a readable length. */
function asText(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length > MAX_UNMAPPED_LENGTH ? `${text.slice(0, MAX_UNMAPPED_LENGTH)}…` : text;
}

const given = (value: unknown): boolean => value !== undefined && value !== null && value !== "";

/** `{value: "x"}` as the upstream writes it, or the bare `"x"` an export tool flattened it to. */
function valueOf(part: unknown): unknown {
  if (part !== null && typeof part === "object" && !Array.isArray(part) && "value" in part)
    return (part as { value: unknown }).value;
  return part;
}

function mapEnrichment(enrichment: unknown): LegacyCategory | null {
  if (!given(enrichment)) return null;
  if (typeof enrichment === "string") return mapTextOnce(enrichment) ?? { unmapped: asText(enrichment) };
  if (typeof enrichment !== "object" || Array.isArray(enrichment)) return { unmapped: asText(enrichment) };
  const category = valueOf((enrichment as { category?: unknown }).category);
  const subcategory = valueOf((enrichment as { subcategory?: unknown }).subcategory);
  const hasCategory = given(category);
  const hasSubcategory = given(subcategory);
  if (!hasCategory && !hasSubcategory) return null;
  const shown = [category, subcategory].filter(given).map(asText).join(".");
  if ((hasCategory && typeof category !== "string") || (hasSubcategory && typeof subcategory !== "string"))
    return { unmapped: shown };
  if (!hasSubcategory) return mapTextOnce(category as string) ?? { unmapped: shown };
  const sub = valueOfName(normaliseCategoryName(subcategory as string));
  if (!hasCategory) {
    const alone = isSubcategory(sub) ? pair(categoryOf(sub)!, sub) : (RENAMED_SUBCATEGORIES[sub] ?? null);
    return alone ?? { unmapped: shown };
  }
  const primary = mapTextOnce(category as string);
  const both = primary ? mapUnder(primary.category, sub) : null;
  // A category written as a subcategory (`coffee`) already names one: the two must agree.
  if (!both || (primary!.subcategory && both.subcategory !== primary!.subcategory)) return { unmapped: shown };
  return both;
}

/**
 * The category a legacy transaction carries, in the upstream's taxonomy; `{ unmapped }` with the text as the file
 * wrote it when Linkdesk cannot tell which one it is; null when the transaction carries none. `enrichment` is read
 * first (the upstream's own shape), then `category`.
 */
export function legacyCategoryOf(transaction: unknown): LegacyCategory | null {
  if (transaction === null || typeof transaction !== "object" || Array.isArray(transaction)) return null;
  const { category, enrichment } = transaction as { category?: unknown; enrichment?: unknown };
  const fromEnrichment = mapEnrichment(enrichment);
  if (fromEnrichment && !("unmapped" in fromEnrichment)) return { ...fromEnrichment };
  if (!given(category)) return fromEnrichment;
  const fromCategory = typeof category === "string" ? mapTextOnce(category) : null;
  // A copy: the remembered answers are shared by every transaction with the same text.
  return fromCategory ? { ...fromCategory } : (fromEnrichment ?? { unmapped: asText(category) });
}
