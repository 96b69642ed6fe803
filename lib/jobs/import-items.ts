import "server-only";
import { z } from "zod";
import type { IdentityRule } from "../import/identity";
import {
  categorySchema,
  importLinkRequestSchema,
  importTransactionSchema,
  subcategorySchema,
} from "../upstream/schemas";

// What an import job is made of: its kind's name and endpoints, the input of each of its items (the link's import call,
// a batch of its transactions, a legacy category carried over), an item's result, and the job's params. The kind
// (import.ts), planning (import-start.ts) and the outcomes (import-outcomes.ts) share them.

export const IMPORT_KIND = "import";
export const IMPORT_ENDPOINT = "POST /links/import";
export const IMPORT_BATCH_ENDPOINT = "POST /links/{id}/import/transactions";

export const importLinkItemSchema = z.object({
  step: z.literal("link"),
  /** Position of the link in the file, from 0. */
  position: z.number().int().nonnegative(),
  body: importLinkRequestSchema,
  /** Who and what the link is; absent on items planned before identities were recorded. */
  identity: z.object({ key: z.string(), tag: z.string() }).optional(),
});

export const importBatchItemSchema = z.object({
  step: z.literal("batch"),
  position: z.number().int().nonnegative(),
  /** 1 for the first batch after the import call. */
  batch: z.number().int().positive(),
  firstDate: z.string(),
  lastDate: z.string(),
  transactions: z.array(importTransactionSchema),
});

/**
 * The second phase of an import, when ops choose it: a transaction whose legacy category (in the file, which the
 * upstream does not take) differs from the upstream's enrichment is corrected through Correct Enrichment, after the
 * link and all its batches.
 */
export const importCategoryItemSchema = z.object({
  step: z.literal("category"),
  position: z.number().int().nonnegative(),
  /** The transaction's id in the file (the upstream keeps it as original_id). */
  originalId: z.string().min(1),
  date: z.string(),
  category: categorySchema,
  subcategory: subcategorySchema.optional(),
});

export const importItemSchema = z.discriminatedUnion("step", [
  importLinkItemSchema,
  importBatchItemSchema,
  importCategoryItemSchema,
]);
export type ImportItem = z.infer<typeof importItemSchema>;

export interface ImportResult {
  linkId: string;
  /** The link was found already imported (by its identity tag) right before the call: nothing was sent. */
  found?: boolean;
  /** The link's state as the import call answered it (link step only). */
  state?: string;
  errorCode?: string | null;
  /** Transactions this call carried. */
  transactions: number;
  /** Category phase: the upstream id of the transaction corrected. */
  corrected?: string;
}

export interface ImportJobParams {
  fileName: string;
  bytes: number;
  sha256: string;
  format: string;
  links: number;
  invalid: number;
  /** Links of the file not planned: the same identity earlier in the file, or imported before. */
  duplicates?: number;
  alreadyImported?: number;
  transactions: number;
  identity?: IdentityRule;
  /** Legacy categories carried over as corrections after each link's import (0 when not chosen). */
  corrections?: number;
}
