import { z } from "zod";
import { categorySchema, subcategorySchema, type WireTransaction } from "../upstream/schemas";
import { categoryLabel, subcategoryLabel } from "../upstream/taxonomy";

// A transaction's category as Linkdesk speaks of it: a category of the taxonomy and, optionally, one of its
// subcategories. What a correction sets, what the audit trail records before and after, what the desk shows.

/** The upstream endpoint that sets a transaction's category (Correct Enrichment). */
export const CORRECTION_ENDPOINT = "POST /links/{id}/transactions/{txn_id}/enrichment";

/** A pair Linkdesk may send: the taxonomy's category and, optionally, one of its own subcategories' names. */
export const categoryPairSchema = z.object({ category: categorySchema, subcategory: subcategorySchema.optional() });
export type CategoryPair = z.infer<typeof categoryPairSchema>;

/**
 * A pair as a transaction carries it: any strings, for the upstream may send a category from before the taxonomy's
 * revision of 2025-01-13 or one added since. Read and shown, recorded as what a correction replaced; never sent as is.
 */
export const observedPairSchema = z.object({ category: z.string().min(1), subcategory: z.string().min(1).optional() });
export type ObservedPair = z.infer<typeof observedPairSchema>;

export function pairOf(t: WireTransaction | undefined): ObservedPair | null {
  const category = t?.enrichment?.category?.value;
  if (!category) return null;
  const subcategory = t?.enrichment?.subcategory?.value;
  return { category, ...(subcategory ? { subcategory } : {}) };
}

/** The pair as one Linkdesk may send, or null when it is outside today's taxonomy (an old or a newer value). */
export function asCategoryPair(pair: ObservedPair): CategoryPair | null {
  const parsed = categoryPairSchema.safeParse(pair);
  return parsed.success ? parsed.data : null;
}

/** Whether a transaction's category is `pair` (a pair without subcategory matches any subcategory of it). */
export function hasPair(current: ObservedPair | null, pair: ObservedPair): boolean {
  return (
    current !== null &&
    current.category === pair.category &&
    (pair.subcategory === undefined || current.subcategory === pair.subcategory)
  );
}

export function describePair(pair: ObservedPair | null | undefined): string {
  if (!pair) return "no category";
  return pair.subcategory
    ? `${categoryLabel(pair.category)} › ${subcategoryLabel(pair.subcategory)}`
    : categoryLabel(pair.category);
}
