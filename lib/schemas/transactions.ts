import { z } from "zod";
import { categorySchema, correctEnrichmentRequestSchema, subcategorySchema } from "../upstream/schemas";
import { categoryOf } from "../upstream/taxonomy";

const id = z.string().trim().min(1).max(200);

// The subcategory is required: without one the upstream keeps the current subcategory or falls back to the category's
// "other" one, a choice nobody made on screen.
const subcategory = z.enum(subcategorySchema.options, {
  error: (issue) => (issue.input === undefined ? "Choose a subcategory" : "Not a subcategory"),
});

// Shared by the correction control and the correction action: only values of the taxonomy, and a subcategory of the
// chosen category.
export const correctCategorySchema = z
  .object({
    linkId: id,
    transactionId: id,
    category: categorySchema,
    subcategory,
    /**
     * The transaction's date as the page showed it: only a hint that lets the server read that one day to find what the
     * transaction has now (the audit's "before" always comes from the upstream, never from the browser).
     */
    date: z.iso.date().optional(),
  })
  .refine((v) => categoryOf(v.subcategory) === v.category, {
    message: "Choose a subcategory of the selected category",
    path: ["subcategory"],
  });

export type CorrectCategoryInput = z.infer<typeof correctCategorySchema>;

/**
 * At most this many transactions in one bulk correction (about 33 minutes at the default per-link share). The cap
 * counts what was sent, copies included; planning then takes each transaction once (uniqueCorrections in
 * lib/jobs/correction.ts), so no request makes more calls than this.
 */
export const BULK_MAX_ITEMS = 1000;

// Shared by the review list (similar transactions, or rows chosen in the table) and its action: one target category
// for the transactions left ticked.
export const correctCategoryBulkSchema = z
  .object({
    linkId: id,
    category: categorySchema,
    subcategory,
    items: z
      .array(z.object({ transactionId: id }))
      .min(1, "Choose at least one transaction")
      .max(BULK_MAX_ITEMS, `At most ${BULK_MAX_ITEMS} transactions at a time`),
  })
  .refine((v) => categoryOf(v.subcategory) === v.category, {
    message: "Choose a subcategory of the selected category",
    path: ["subcategory"],
  });

export type CorrectCategoryBulkInput = z.infer<typeof correctCategoryBulkSchema>;

/**
 * A correction is named by the correlation id of its audit row, which the correction action returns (and every
 * transaction's mark on the desk, and the audit page, show). The date is only a hint, like the correction's.
 */
export const undoCorrectionSchema = z.object({
  correlationId: z.uuid("Not a correction's reference"),
  date: z.iso.date().optional(),
});

// The wire request is the category pair alone; keep the two definitions provably in step.
export function toWireCorrection(input: {
  category: CorrectCategoryInput["category"];
  subcategory?: CorrectCategoryInput["subcategory"];
}) {
  return correctEnrichmentRequestSchema.parse({
    category: input.category,
    ...(input.subcategory ? { subcategory: input.subcategory } : {}),
  });
}
