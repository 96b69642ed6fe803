import { z } from "zod";
import { categorySchema, subcategorySchema, type WireTransaction } from "../upstream/schemas";
import { categoryLabel, subcategoryLabel } from "../upstream/taxonomy";

// A transaction's category as Linkdesk speaks of it: a category of the taxonomy and, optionally, one of its
// subcategories. What a correction sets, what the audit trail records before and after, what the desk shows.

/** The upstream endpoint that sets a transaction's category (Correct Enrichment). */
export const CORRECTION_ENDPOINT = "POST /links/{id}/transactions/{txn_id}/enrichment";

export const categoryPairSchema = z.object({ category: categorySchema, subcategory: subcategorySchema.optional() });
export type CategoryPair = z.infer<typeof categoryPairSchema>;

export function pairOf(t: WireTransaction | undefined): CategoryPair | null {
  const category = t?.enrichment?.category?.value;
  if (!category) return null;
  const subcategory = t?.enrichment?.subcategory?.value;
  return { category, ...(subcategory ? { subcategory } : {}) } as CategoryPair;
}

/** Whether a transaction's category is `pair` (a pair without subcategory matches any subcategory of it). */
export function hasPair(current: CategoryPair | null, pair: CategoryPair): boolean {
  return (
    current !== null &&
    current.category === pair.category &&
    (pair.subcategory === undefined || current.subcategory === pair.subcategory)
  );
}

export function describePair(pair: CategoryPair | null | undefined): string {
  if (!pair) return "no category";
  return pair.subcategory
    ? `${categoryLabel(pair.category)} › ${subcategoryLabel(pair.subcategory)}`
    : categoryLabel(pair.category);
}
