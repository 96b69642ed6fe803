import { z } from "zod";
import { IDENTITY_TAG_NAME_PATTERN, type IdentityRule } from "../import/identity";
import { UPLOAD_MAX_BYTES, UPLOAD_MAX_LABEL, checkFileSize } from "../import/limits";

// The Import page's upload, shared by the page (which checks the size before reading) and the server action (which
// checks it again, then reads and validates the file itself: nothing the browser concluded is trusted).

/** One link of the file and the upstream link it matched, as the preview names them (decisionKey). */
const decisionKeySchema = z
  .string()
  .regex(/^#\d{1,7}:\S{1,200}$/, { message: "Not a link of the file and a link id." });

export const importUploadSchema = z.object({
  file: z.instanceof(File, { message: "Choose a file to import." }).superRefine((file, ctx) => {
    const problem = checkFileSize(file.size);
    if (problem) ctx.addIssue({ code: "custom", message: problem.message });
  }),
  /** Stop at the plan: nothing is sent upstream and no job is made. */
  dryRun: z.boolean(),
  /**
   * How each link is known (lib/import/identity.ts): empty for customer user + institution + account ids, or the name
   * of a `link_tags` entry `<name>:<value>` that carries the old system's own id.
   */
  identityTag: z
    .string()
    .trim()
    .refine((name) => name === "" || IDENTITY_TAG_NAME_PATTERN.test(name), {
      message:
        "The identity tag is the part of a link_tags entry before its colon: letters, digits, _ . or -, starting with a letter or digit (e.g. legacy_id).",
    })
    .default(""),
  /** After each link is imported, correct its transactions whose legacy category (in the file) differs upstream. */
  carryCategories: z.boolean().default(false),
  // What to do with the links the upstream holds already (lib/import/upstream-match.ts UpstreamDecisions).
  /** Add the file's transactions their upstream copies lack. */
  addTransactions: z.boolean().default(true),
  /** Give the upstream copies the file's tags and webhook. */
  applyChanges: z.boolean().default(false),
  /** Possible matches that are different links, and links deleted upstream, to import (`#position:linkId`). */
  importAnyway: z.array(decisionKeySchema).max(20_000).default([]),
  /** Possible matches that are the same link (`#position:linkId`). */
  sameLink: z.array(decisionKeySchema).max(20_000).default([]),
  /** Matched links to replace: deleted at the upstream, then the file's link imported (`#position:linkId`). */
  replace: z.array(decisionKeySchema).max(20_000).default([]),
});
export type ImportUploadInput = z.input<typeof importUploadSchema>;

/** The identity rule an upload asks for. */
export function identityRuleOf(identityTag: string): IdentityRule {
  return identityTag === "" ? { kind: "default" } : { kind: "tag", name: identityTag };
}

export { UPLOAD_MAX_BYTES, UPLOAD_MAX_LABEL };

/** Undoing an import: the links changed since the import that ops ticked to delete too (the rest are kept). */
export const importUndoSchema = z.object({
  jobId: z.uuid({ message: "Not an import job." }),
  include: z.array(z.string().min(1).max(200)).max(20_000).default([]),
});
