import { z } from "zod";
import { categorySchema, correctEnrichmentRequestSchema, subcategorySchema } from "../upstream/schemas";
import { categoryOf } from "../upstream/taxonomy";

const id = z.string().trim().min(1).max(200);

// Shared by the correction form and the correction action: only values of the taxonomy, and a subcategory of the
// chosen category.
export const correctCategorySchema = z
  .object({
    linkId: id,
    transactionId: id,
    category: categorySchema,
    subcategory: subcategorySchema.optional(),
    /** What staff saw before correcting, kept in the audit trail so the correction can be undone. */
    previous: z.object({ category: categorySchema, subcategory: subcategorySchema.optional() }).optional(),
  })
  .refine((v) => v.subcategory === undefined || categoryOf(v.subcategory) === v.category, {
    message: "Choose a subcategory of the selected category",
    path: ["subcategory"],
  });

export type CorrectCategoryInput = z.infer<typeof correctCategorySchema>;

/** At most this many transactions in one bulk correction (about 33 minutes at the default per-link share). */
export const BULK_MAX_ITEMS = 1000;

// Shared by the "apply to similar" form and its action.
export const correctCategoryBulkSchema = z
  .object({
    linkId: id,
    category: categorySchema,
    subcategory: subcategorySchema.optional(),
    items: z
      .array(z.object({ transactionId: id, previous: z.object({ category: categorySchema, subcategory: subcategorySchema.optional() }).optional() }))
      .min(1, "Choose at least one transaction")
      .max(BULK_MAX_ITEMS, `At most ${BULK_MAX_ITEMS} transactions at a time`),
  })
  .refine((v) => v.subcategory === undefined || categoryOf(v.subcategory) === v.category, {
    message: "Choose a subcategory of the selected category",
    path: ["subcategory"],
  });

export type CorrectCategoryBulkInput = z.infer<typeof correctCategoryBulkSchema>;

/** A correction is named by the correlation id of its audit row, which the correction action returns. */
export const undoCorrectionSchema = z.object({ correlationId: z.uuid() });

// The wire request is the category pair alone; keep the two definitions provably in step.
export function toWireCorrection(input: Pick<CorrectCategoryInput, "category" | "subcategory">) {
  return correctEnrichmentRequestSchema.parse({ category: input.category, ...(input.subcategory ? { subcategory: input.subcategory } : {}) });
}
