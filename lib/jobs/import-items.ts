import "server-only";
import { z } from "zod";
import type { IdentityRule } from "../import/identity";
import {
  categorySchema,
  importLinkRequestSchema,
  importTransactionSchema,
  subcategorySchema,
  updateLinkRequestSchema,
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
  identity: z
    .object({
      key: z.string(),
      tag: z.string(),
      /**
       * Other tags that identify the link at the upstream (its identity tag under the default rule, the tags ops named
       * as identities in any import): right before the call, a link of the customer carrying one is the same link.
       */
      also: z.array(z.string()).max(20).optional(),
    })
    .optional(),
});

export const importBatchItemSchema = z.object({
  step: z.literal("batch"),
  position: z.number().int().nonnegative(),
  /** 1 for the first batch after the import call. */
  batch: z.number().int().positive(),
  firstDate: z.string(),
  lastDate: z.string(),
  transactions: z.array(importTransactionSchema),
  /**
   * A batch for a link the upstream holds already (matched when planned, lib/import/upstream-match.ts): the file's
   * transactions its copy lacks. Absent: the link the group's import call made.
   */
  linkId: z.string().min(1).optional(),
});

/** The file's tags and webhook given to a link the upstream holds already, when ops tick it (PATCH /links/{id}). */
export const importUpdateItemSchema = z.object({
  step: z.literal("update"),
  position: z.number().int().nonnegative(),
  linkId: z.string().min(1),
  body: updateLinkRequestSchema,
});

/**
 * A link the upstream holds that ops chose to replace (the file differs in what cannot change after an import): it is
 * deleted, first in its group, before the file's link is imported in its place (the group's next item).
 */
export const importRetireItemSchema = z.object({
  step: z.literal("retire"),
  position: z.number().int().nonnegative(),
  linkId: z.string().min(1),
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
  importUpdateItemSchema,
  importRetireItemSchema,
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
  /** The file's tags or webhook given to a link the upstream held already. */
  updated?: boolean;
  /** The upstream's copy, deleted so that the file's link replaces it. */
  retired?: boolean;
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
  /** What the upstream held already, when planned (lib/jobs/import-upstream.ts). */
  upstream?: UpstreamPlanSummary;
}

/** What matching a file with the upstream found and planned, for the job's page. */
export interface UpstreamPlanSummary {
  customers: number;
  checked: number;
  calls: number;
  same: number;
  possible: number;
  ambiguous: number;
  deleted: number;
  unchecked: number;
  /** Links the upstream holds that get calls: their new transactions, their tags and webhook. */
  updating: number;
  newTransactions: number;
  updates: number;
  /** Links the upstream held that are deleted and imported again from the file (absent on jobs planned before). */
  replacing?: number;
}
