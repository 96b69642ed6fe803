import "server-only";
import { and, arrayContains, eq, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { type ImportRowOutcome, type Job, importFileRows, jobItems, jobs, links } from "../db/schema";
import { type FileReport, type LinkReport, analyzeImportFile, sha256Hex } from "../import/analyze";
import { DEFAULT_IDENTITY, type IdentityRule } from "../import/identity";
import { type PlannedLink, importTag, withImportTags } from "../import/plan";
import {
  type ReconciliationOutcome,
  type ReconciliationRow,
  RECONCILIATION_HEADER,
  reconciliationRecord,
  validationRow,
} from "../import/reconcile";
import { csvRecord } from "../http/csv";
import { readAllTransactions } from "../transactions/read";
import { isUpstreamError } from "../upstream/errors";
import {
  categorySchema,
  importLinkRequestSchema,
  importTransactionSchema,
  subcategorySchema,
  type WireLink,
  type WireTransaction,
} from "../upstream/schemas";
import type { LegacyCorrection } from "../import/analyze";
import { hasPair, pairOf } from "../transactions/categories";
import {
  type KnownIdentity,
  claimIdentity,
  heldReason,
  identityTag,
  lookupImported,
  recordImportedLink,
  recordedLinkOf,
  reserveIdentities,
} from "./imported-links";
import { FailItem, type ItemContext, type JobKind, NotSettledYet, SkipItem, type Verification } from "./kind-contract";
import { type Actor, type NewJobItem, insertJobStreamed } from "./store";

// Importing links from a file as a job. Each link of the file that is new to Linkdesk (by its identity key,
// lib/import/identity.ts) is one group of items, run in order: item 0 is POST /links/import with the link's accounts
// and first batch of transactions, tagged with the identity (`linkdesk-id:<hash>`) and the job
// (`linkdesk-import:<job>:<pos>`); the later items are POST /links/{id}/import/transactions batches, which read the
// link id from the group's first result. Before an import call, and when its answer is lost, the link is looked for
// by its identity tag in Linkdesk's records and under its customer (GET /users/{id}/links), never through GET /links,
// which lists active links only (upstream-facts §2) while an import without credentials is created disconnected.

export const IMPORT_KIND = "import";
export const IMPORT_ENDPOINT = "POST /links/import";
export const IMPORT_BATCH_ENDPOINT = "POST /links/{id}/import/transactions";

/**
 * An import may take about 10 s upstream, and a request whose answer was lost (a timeout) may still be applied after
 * it. Until this long after it was sent, a check that finds nothing is not taken as "not applied": it checks again
 * later, so a slow import is never sent twice.
 */
export const IMPORT_SETTLE_MS = 90_000;

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

/** Checked again later: what was looked for may still appear (a slow call applied after its timeout). */
class NotVisibleYet extends NotSettledYet {
  /** `what` with its verb: "The imported link is"; checked again within `retryInMs`, at most every 5 s. */
  constructor(whatIs: string, retryInMs: number) {
    super(
      `${whatIs} not there yet; the call may still be applied upstream, so it is checked again before anything is resent.`,
      Math.max(0, Math.min(5_000, retryInMs)),
    );
    this.name = "NotVisibleYet";
  }
}

/** The item now knows its link: on its row (the items table, the CSV) and for its audit row. */
async function noteLink(ctx: ItemContext, linkId: string): Promise<void> {
  ctx.item.linkId = linkId;
  await ctx.db
    .update(jobItems)
    .set({ linkId })
    .where(
      and(eq(jobItems.id, ctx.item.id), ctx.item.leaseOwner ? eq(jobItems.leaseOwner, ctx.item.leaseOwner) : undefined),
    );
}

/** The item, and Linkdesk's record of its identity, now know the link. */
async function recordImported(
  ctx: ItemContext,
  input: Extract<ImportItem, { step: "link" }>,
  link: WireLink,
): Promise<void> {
  await noteLink(ctx, link.link_id);
  if (input.identity) await recordImportedLink(ctx.db, input.identity.key, ctx.job.id, link);
}

function linkResult(link: WireLink, transactions: number): ImportResult {
  return { linkId: link.link_id, state: link.state, errorCode: link.error_code ?? null, transactions };
}

/** The link id of the group's import, from the results of the items before this one. */
async function groupLinkId(ctx: ItemContext): Promise<string> {
  const [first] = await ctx.groupResults();
  const linkId = (first as Partial<ImportResult> | null | undefined)?.linkId;
  if (!linkId) throw new Error("The link this batch belongs to has no id recorded.");
  return linkId;
}

const sentLongAgo = (ctx: ItemContext, settleMs: number) => settleLeftMs(ctx, settleMs) < 0;
/** How long until a call sent without an answer can no longer be applied late (negative once it cannot). */
const settleLeftMs = (ctx: ItemContext, settleMs: number) =>
  ctx.item.sentAt ? ctx.item.sentAt.getTime() + settleMs - Date.now() : -1;

/**
 * Finds the link an import call created, by its tags, without resending: Linkdesk's record of the identity, the read
 * model (every link an upstream answer carried is recorded there), then the customer's links at the upstream
 * (GET /users/{id}/links, which holds links in any state). Deleted links do not count: their identity is free again.
 */
export async function findImportedLink(
  ctx: ItemContext,
  input: Extract<ImportItem, { step: "link" }>,
): Promise<WireLink | null> {
  const tags = input.identity ? [input.identity.tag] : [importTag(ctx.job.id, input.position)];
  const carries = (link: WireLink) => link.state !== "deleted" && tags.some((tag) => link.link_tags?.includes(tag));
  const recorded = input.identity ? await recordedLinkOf(ctx.db, input.identity.key, ctx.job.id) : null;
  const known = await ctx.db
    .select({ linkId: links.linkId })
    .from(links)
    .where(and(arrayContains(links.linkTags, [tags[0]!]), ne(links.state, "deleted")))
    .limit(1);
  for (const linkId of new Set([recorded, known[0]?.linkId].filter((id): id is string => Boolean(id)))) {
    const link = await ctx.api.getLink(linkId, ctx.readOptions).catch((error: unknown) => {
      if (isUpstreamError(error) && (error.status === 404 || error.status === 410)) return null;
      throw error;
    });
    if (link && carries(link)) return link;
  }
  const { links: theirs } = await ctx.api.getUserLinks(input.body.customer_user.id, ctx.readOptions);
  return Object.values(theirs).find(carries) ?? null;
}

type CategoryItem = Extract<ImportItem, { step: "category" }>;
const wireCategory = (input: Pick<CategoryItem, "category" | "subcategory">) => ({
  category: input.category,
  ...(input.subcategory ? { subcategory: input.subcategory } : {}),
});

/**
 * An imported link's transactions by original id, read once per link for its category phase and kept a few minutes:
 * one read of the history instead of one per correction (reads and corrections share the per-link limits).
 */
const importedByLink = new Map<string, { at: number; byOriginalId: Map<string, WireTransaction> }>();
const IMPORTED_KEEP_MS = 5 * 60_000;
const forgetImportedTransactions = (jobId: string, linkId: string) =>
  importedByLink.get(`${jobId}:${linkId}`)?.byOriginalId.clear();

async function importedTransaction(
  ctx: ItemContext,
  linkId: string,
  input: CategoryItem,
  opts: { fresh: boolean },
): Promise<WireTransaction> {
  const key = `${ctx.job.id}:${linkId}`;
  let kept = importedByLink.get(key);
  if (opts.fresh || !kept || Date.now() - kept.at > IMPORTED_KEEP_MS || !kept.byOriginalId.has(input.originalId)) {
    // A fresh check reads the transaction's own days; a first read takes the whole history for the link's next items.
    const range = opts.fresh || kept ? { startDate: shiftDay(input.date, -1), endDate: shiftDay(input.date, 1) } : {};
    const read = await readAllTransactions(ctx.api, linkId, range, ctx.readOptions);
    if (!kept || Date.now() - kept.at > IMPORTED_KEEP_MS) {
      for (const [k, v] of importedByLink) if (Date.now() - v.at > IMPORTED_KEEP_MS) importedByLink.delete(k);
      kept = { at: Date.now(), byOriginalId: new Map() };
      importedByLink.set(key, kept);
    }
    for (const t of read) if (t.original_id) kept.byOriginalId.set(t.original_id, t);
  }
  const found = kept.byOriginalId.get(input.originalId);
  if (!found)
    throw new FailItem(
      `Transaction ${input.originalId} of the file is not on link ${linkId}: its category cannot be carried over.`,
    );
  return found;
}

const DAY_MS = 86_400_000;
const shiftDay = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

export function createImportKind(opts: { settleMs?: number } = {}): JobKind<ImportItem, ImportResult> {
  const settleMs = opts.settleMs ?? IMPORT_SETTLE_MS;
  return {
    kind: IMPORT_KIND,
    label: "Link import",
    permission: "import",
    // At Linkdesk's default share, 30 imports a minute with answers taking up to 10 s keep 5 calls in flight; one
    // more covers the recording between calls. Each job gets its own figure from the budget when planned.
    concurrency: 6,
    endpoint: IMPORT_ENDPOINT,
    inputSchema: importItemSchema,
    async execute(input, ctx) {
      if (input.step === "link") {
        const tags = [importTag(ctx.job.id, input.position)];
        if (input.identity) {
          // Another import may have taken the identity since this one was planned (this item was cancelled or failed,
          // then resumed or retried): that import creates the link, not this one.
          const holder = await claimIdentity(ctx.db, input.identity.key, ctx.job.id, input.position);
          if (holder)
            throw new SkipItem(
              `Already imported${holder.linkId ? ` as link ${holder.linkId}` : ""} by another import (job ${holder.jobId}); not sent again.`,
            );
          // Found under the customer already (an earlier call landed, whatever Linkdesk recorded): not sent again.
          const existing = await findImportedLink(ctx, input);
          if (existing) {
            await recordImported(ctx, input, existing);
            return { ...linkResult(existing, input.body.transactions.length), found: true };
          }
          tags.push(input.identity.tag);
        }
        const link = await ctx.api.importLink(withImportTags(input.body, tags), ctx.callOptions);
        await recordImported(ctx, input, link);
        return linkResult(link, input.body.transactions.length);
      }
      const linkId = await groupLinkId(ctx);
      await noteLink(ctx, linkId);
      if (input.step === "category") {
        const found = await importedTransaction(ctx, linkId, input, { fresh: false });
        if (hasPair(pairOf(found), input))
          throw new SkipItem("Already in the file's category upstream: nothing to correct.");
        await ctx.api.correctEnrichment(linkId, found.transaction_id, wireCategory(input), ctx.callOptions);
        forgetImportedTransactions(ctx.job.id, linkId);
        return { linkId, transactions: 0, corrected: found.transaction_id };
      }
      await ctx.api.importTransactions(linkId, input.transactions, ctx.callOptions);
      return { linkId, transactions: input.transactions.length };
    },
    async verify(input, ctx): Promise<Verification<ImportResult>> {
      if (input.step === "link") {
        const link = await findImportedLink(ctx, input);
        if (link) {
          await recordImported(ctx, input, link);
          return { applied: true, result: linkResult(link, input.body.transactions.length) };
        }
        if (!sentLongAgo(ctx, settleMs))
          throw new NotVisibleYet("The imported link is", settleLeftMs(ctx, settleMs) + 1);
        return { applied: false };
      }
      if (input.step === "category") {
        const linkId = await groupLinkId(ctx);
        const found = await importedTransaction(ctx, linkId, input, { fresh: true });
        if (hasPair(pairOf(found), input))
          return { applied: true, result: { linkId, transactions: 0, corrected: found.transaction_id } };
        if (!sentLongAgo(ctx, settleMs)) throw new NotVisibleYet("The correction is", settleLeftMs(ctx, settleMs) + 1);
        return { applied: false };
      }
      // The batch's transactions are looked for by their original ids in the batch's date range (a day either side:
      // the upstream may file a date-time on its UTC day).
      const linkId = await groupLinkId(ctx);
      await noteLink(ctx, linkId);
      const wanted = new Set(input.transactions.map((t) => t.transaction_id).filter((id): id is string => Boolean(id)));
      const found = await readAllTransactions(
        ctx.api,
        linkId,
        { startDate: shiftDay(input.firstDate, -1), endDate: shiftDay(input.lastDate, 1) },
        ctx.readOptions,
      ).catch((error: unknown) => {
        // The link is gone (deleted: 410; purged: 404): the batch can never land, and checking again would get the
        // same answer for ever.
        if (isUpstreamError(error) && (error.status === 410 || error.status === 404))
          throw linkGone(linkId, input, error.status, error.errorCode ?? null);
        throw error;
      });
      const present = found.filter((t) => t.original_id && wanted.has(t.original_id)).length;
      if (present >= wanted.size) return { applied: true, result: { linkId, transactions: input.transactions.length } };
      if (present === 0 && !sentLongAgo(ctx, settleMs))
        throw new NotVisibleYet("The batch's transactions are", settleLeftMs(ctx, settleMs) + 1);
      // None (or, oddly, only some) are there: sending the batch again is safe, since the upstream keys imported
      // transactions by their original id and replaces rather than doubles those already there.
      return { applied: false };
    },
    audit(input, job, item) {
      if (input.step === "link") {
        return {
          action: "link.import",
          targetType: "link",
          targetId: item.linkId ?? undefined,
          linkId: item.linkId ?? undefined,
          input: {
            position: input.position,
            customer_user: input.body.customer_user.id,
            institution_id: input.body.institution_id,
            provider: input.body.provider,
            accounts: input.body.accounts.length,
            transactions: input.body.transactions.length,
            tag: importTag(job.id, input.position),
            identity: input.identity?.key,
          },
        };
      }
      if (input.step === "category") {
        return {
          action: "transaction.correct",
          targetType: "transaction",
          targetId: input.originalId,
          linkId: item.linkId ?? undefined,
          input: { legacyCategory: true, originalId: input.originalId },
          after: wireCategory(input),
        };
      }
      return {
        action: "link.import_batch",
        targetType: "link",
        targetId: item.linkId ?? undefined,
        linkId: item.linkId ?? undefined,
        input: {
          position: input.position,
          batch: input.batch,
          transactions: input.transactions.length,
          dates: `${input.firstDate}..${input.lastDate}`,
        },
      };
    },
    settledInput(input) {
      // Once the link exists its provider_data (which may hold credentials) is no longer needed: it is not kept.
      if (input.step !== "link" || input.body.provider_data === undefined) return input;
      const body = { ...input.body };
      delete body.provider_data;
      return { ...input, body };
    },
    describeResult(result) {
      const r = result as ImportResult;
      if (r.corrected) return `${r.linkId}: transaction ${r.corrected} corrected to the file's category`;
      if (r.state === undefined) return `${r.linkId}: +${r.transactions} transactions`;
      if (r.found) return `${r.linkId}: found already imported under its customer; not sent again`;
      const state =
        r.state === "error" && r.errorCode === "auth_expired"
          ? "disconnected (auth_expired)"
          : r.errorCode
            ? `${r.state} (${r.errorCode})`
            : r.state;
      return `${r.linkId}: ${state}, ${r.transactions} transactions`;
    },
  };
}

export const importKind = createImportKind();

function linkGone(
  linkId: string,
  input: Extract<ImportItem, { step: "batch" }>,
  status: number,
  code: string | null,
): FailItem {
  const what = `batch ${input.batch} (${input.transactions.length.toLocaleString("en-US")} transactions, ${input.firstDate} to ${input.lastDate})`;
  return new FailItem(
    `Link ${linkId} was ${status === 410 ? "deleted" : "removed"} upstream after it was imported, so ${what} can no longer be added to it or checked. Nothing was resent; import the link again from a new file if it is still wanted.`,
    status,
    code,
  );
}

export const groupKeyOf = (position: number) => `link-${position}`;

/** Items of one valid link of a file: the import, then its batches (with their sizes, for writing them in chunks). */
export function importItemsOf(
  position: number,
  plan: PlannedLink,
  identity?: { key: string; tag: string },
  legacy: readonly LegacyCorrection[] = [],
): (NewJobItem & { bytes: number })[] {
  const groupKey = groupKeyOf(position);
  const label = `link ${position + 1}`;
  const dates = new Map<string, string>();
  if (legacy.length > 0)
    for (const t of [...plan.body.transactions, ...plan.batches.flatMap((b) => b.transactions)])
      dates.set(t.transaction_id!, t.date.slice(0, 10));
  const corrections = legacy.map((c) => {
    const originalId = plan.transactionIds[c.index]!;
    return {
      groupKey,
      targetId: `${label} transaction ${originalId}`,
      bytes: 200,
      input: {
        step: "category",
        position,
        originalId,
        date: dates.get(originalId) ?? "",
        category: c.category,
        ...(c.subcategory ? { subcategory: c.subcategory } : {}),
      } as ImportItem,
    };
  });
  return [
    {
      groupKey,
      targetId: label,
      bytes: plan.bytes,
      input: { step: "link", position, body: plan.body, ...(identity ? { identity } : {}) } satisfies ImportItem,
    },
    ...plan.batches.map((batch, index) => ({
      groupKey,
      targetId: `${label} batch ${index + 1}`,
      bytes: batch.bytes,
      input: {
        step: "batch",
        position,
        batch: index + 1,
        firstDate: batch.firstDate,
        lastDate: batch.lastDate,
        transactions: batch.transactions,
      } satisfies ImportItem,
    })),
    ...corrections,
  ];
}

/** Items in flight that keep the busiest limit busy when each answer takes `latencyS`. */
export function importConcurrency(
  limits: { importsPerMinute: number; batchesPerMinute: number; hasBatches: boolean },
  latencyS = 10,
): number {
  const inFlight = (perMinute: number) => Math.ceil((perMinute / 60) * latencyS);
  return Math.max(
    1,
    Math.min(16, inFlight(limits.importsPerMinute) + (limits.hasBatches ? inFlight(limits.batchesPerMinute) : 0) + 1),
  );
}

export type StartImportResult =
  | { outcome: "started"; job: Job; report: FileReport }
  /** Every link of the file that can be imported is imported already, or being imported: nothing was written. */
  | { outcome: "nothing_new"; report: FileReport; known: Map<string, KnownIdentity> }
  /** The file cannot be read, or none of its links can be imported: nothing was written. */
  | { outcome: "refused"; report: FileReport };

/** Links planned per reservation statement (and at most this many links' calls held in memory at once). */
const RESERVE_CHUNK = 200;
const RESERVE_CHUNK_BYTES = 4 * 1024 * 1024;
const ROWS_CHUNK = 1_000;

const plural = (n: number, one: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : `${one}s`}`;

/**
 * Reads, checks and plans a file and writes its job. Each link is known by its identity (the rule `identity`): a
 * link the same file has earlier is a duplicate; a link imported by any earlier job, or being imported now, is
 * skipped, whatever the file's bytes. Identities are reserved in the job's own transaction, so two imports of
 * overlapping files started together plan each link once. Planning streams into that transaction: links' calls are
 * written a chunk at a time and dropped, so the server holds about one chunk of calls at a time, not the file's. Every
 * link of the file gets a row (line, identity, customer, tags, what planning decided) for the reconciliation report.
 */
export async function startImportJob(
  db: Db,
  actor: Actor,
  file: { bytes: Uint8Array; name: string; sha256?: string },
  concurrency: number | ((report: FileReport) => number),
  identity: IdentityRule = DEFAULT_IDENTITY,
  opts: { carryCategories?: boolean } = {},
): Promise<StartImportResult> {
  const sha256 = file.sha256 ?? (await sha256Hex(file.bytes));
  for (let attempt = 1; ; attempt++) {
    try {
      return await planImportJob(db, actor, file, sha256, concurrency, identity, opts.carryCategories ?? false);
    } catch (error) {
      // Two transactions reserving overlapping identities in different orders: PostgreSQL ends one; plan it again.
      if (attempt < 3 && (error as { code?: string })?.code === "40P01") continue;
      throw error;
    }
  }
}

async function planImportJob(
  db: Db,
  actor: Actor,
  file: { bytes: Uint8Array; name: string },
  sha256: string,
  concurrency: number | ((report: FileReport) => number),
  identity: IdentityRule,
  carryCategories: boolean,
): Promise<StartImportResult> {
  let report: FileReport | undefined;
  let planned = 0;
  let corrections = 0;
  const job = await insertJobStreamed(
    db,
    { kind: IMPORT_KIND, title: `Import of ${file.name}`, concurrency: 1, createdBy: actor },
    async (writer) => {
      const { tx, jobId } = writer;
      const held = new Map<number, KnownIdentity>();
      let buffer: { position: number; plan: PlannedLink; link: LinkReport; legacy: LegacyCorrection[] }[] = [];
      let bufferBytes = 0;
      const flush = async () => {
        const chunk = buffer;
        buffer = [];
        bufferBytes = 0;
        const taken = await reserveIdentities(
          tx,
          jobId,
          chunk.map(({ link }) => ({
            identityKey: link.identityKey!,
            customerUserId: link.customerUserId ?? "",
            institutionId: link.institutionId,
            position: link.position,
            line: link.line,
          })),
        );
        const heldHere = await lookupImported(
          tx,
          chunk.filter(({ link }) => !taken.has(link.identityKey!)).map(({ link }) => link.identityKey!),
        );
        for (const { position, plan, link, legacy } of chunk) {
          const key = link.identityKey!;
          if (taken.has(key)) {
            planned++;
            corrections += legacy.length;
            await writer.add(importItemsOf(position, plan, { key, tag: identityTag(key) }, legacy));
          } else {
            const holder = heldHere.get(key);
            if (holder) held.set(position, holder);
          }
        }
      };
      const analyzed = await analyzeImportFile(file.bytes, {
        sha256,
        identity,
        legacyCategories: carryCategories,
        onPlan: async (position, plan, link, legacy) => {
          buffer.push({ position, plan, link, legacy });
          bufferBytes += plan.bytes + plan.batches.reduce((sum, b) => sum + b.bytes, 0);
          if (buffer.length >= RESERVE_CHUNK || bufferBytes >= RESERVE_CHUNK_BYTES) await flush();
        },
      });
      await flush();
      report = analyzed.report;
      if (report.fileProblem || planned === 0) return null;
      for (let i = 0; i < report.links.length; i += ROWS_CHUNK) {
        await tx.insert(importFileRows).values(
          report.links.slice(i, i + ROWS_CHUNK).map((link) => {
            const holder = held.get(link.position);
            const row = validationRow(link, holder ? { linkId: holder.linkId, reason: heldReason(holder) } : undefined);
            return {
              jobId,
              position: link.position,
              line: link.line,
              identityKey: link.identityKey,
              customerUserId: link.customerUserId,
              institutionId: link.institutionId,
              tags: link.tags,
              planned: (row.outcome === "to_import" ? "planned" : row.outcome) as ImportRowOutcome,
              linkId: row.linkId,
              reason: row.reason,
            };
          }),
        );
      }
      const params: ImportJobParams = {
        fileName: file.name,
        bytes: report.bytes,
        sha256,
        format: report.format ?? "",
        links: planned,
        invalid: report.invalid,
        duplicates: report.duplicates,
        alreadyImported: held.size,
        transactions: report.transactions,
        identity,
        corrections,
      };
      return {
        title: `Import of ${file.name}: ${plural(planned, "link")}`,
        params: { ...params },
        concurrency: typeof concurrency === "number" ? concurrency : concurrency(report),
      };
    },
  );
  if (job) return { outcome: "started", job, report: report! };
  if (report!.fileProblem || report!.valid === 0) return { outcome: "refused", report: report! };
  const keys = report!.links.filter((l) => l.problems.length === 0 && !l.duplicateOf).map((l) => l.identityKey!);
  return { outcome: "nothing_new", report: report!, known: await lookupImported(db, keys) };
}

/**
 * A cancelled import can be taken up again: its cancelled items were never sent (cancelling stops only calls not yet
 * made; a call in flight is checked and settled), so running them now cannot duplicate anything. Returns false when
 * the job is not a cancelled import with cancelled items and no call still being settled.
 */
export async function resumeCancelledImport(db: Db, jobId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for("update");
    if (!job || job.kind !== IMPORT_KIND || job.state !== "cancelled") return false;
    const counts = await tx.execute<{ cancelled: number; sent: number }>(sql`
      select count(*) filter (where state = 'cancelled')::int as cancelled, count(*) filter (where state = 'sent')::int as sent
      from job_items where job_id = ${jobId}
    `);
    const row = counts.rows[0];
    if (!row || Number(row.cancelled) === 0 || Number(row.sent) > 0) return false;
    await tx.execute(sql`
      update job_items set state = 'pending', reason = null, not_before = null, finished_at = null, updated_at = now()
      where job_id = ${jobId} and state = 'cancelled'
    `);
    await tx
      .update(jobs)
      .set({ state: "running", finishedAt: null, updatedAt: sql`now()` })
      .where(eq(jobs.id, jobId));
    return true;
  });
}

/** Per link of an import job's file: where it is, the link it made, and what matches it back to the old system. */
export interface ImportLinkOutcome extends ReconciliationRow {
  position: number;
  /** Of the link's calls: waiting, importing, done, failed, skipped, cancelled; "–" for a link not planned. */
  state: string;
  linkState: string | null;
  errorCode: string | null;
  calls: number;
  callsDone: number;
  transactions: number;
}

type GroupRow = {
  position: number;
  line: number | null;
  identity_key: string | null;
  customer_user_id: string | null;
  tags: string[] | null;
  planned: string | null;
  known_link_id: string | null;
  row_reason: string | null;
  first_state: string | null;
  link_id: string | null;
  result: ImportResult | null;
  calls: number | null;
  calls_done: number | null;
  failed: number | null;
  active: number | null;
  transactions: number | null;
  reason: string | null;
};

// The link's own calls (the import and its batches) decide its outcome; the optional category phase after them does not.
const GROUP_COLUMNS = sql`
  (array_agg(i.state order by i.seq))[1] as first_state,
  max(i.link_id) as link_id,
  (array_agg(i.result order by i.seq))[1] as result,
  count(i.*) filter (where i.input->>'step' <> 'category')::int as calls,
  count(*) filter (where i.state = 'done' and i.input->>'step' <> 'category')::int as calls_done,
  count(*) filter (where i.state = 'failed' and i.input->>'step' <> 'category')::int as failed,
  count(*) filter (where i.state in ('pending', 'sent') and i.input->>'step' <> 'category')::int as active,
  coalesce(sum((i.result->>'transactions')::int) filter (where i.state = 'done'), 0)::int as transactions,
  (array_agg(i.reason order by i.seq) filter (where i.state in ('failed', 'skipped', 'cancelled')))[1] as reason`;

/**
 * Every link of an import job's file, in file order: the rows planning wrote (lib/db/schema.ts importFileRows) with
 * the outcome of the planned ones from their items. Jobs planned before those rows existed list their items' groups.
 */
export async function readImportOutcomes(
  db: Db,
  jobId: string,
  opts: { limit?: number; offset?: number } = {},
): Promise<ImportLinkOutcome[]> {
  const limit = opts.limit ?? 1000;
  const offset = opts.offset ?? 0;
  const [hasRows] = await db
    .select({ jobId: importFileRows.jobId })
    .from(importFileRows)
    .where(eq(importFileRows.jobId, jobId))
    .limit(1);
  const rows = hasRows
    ? await db.execute<GroupRow>(sql`
        select r.position, r.line, r.identity_key, r.customer_user_id, r.tags, r.planned, r.link_id as known_link_id, r.reason as row_reason, g.*
        from import_file_rows r
        left join lateral (
          select ${GROUP_COLUMNS} from job_items i where i.job_id = r.job_id and i.group_key = 'link-' || r.position
        ) g on r.planned = 'planned'
        where r.job_id = ${jobId}
        order by r.position
        limit ${limit} offset ${offset}
      `)
    : await db.execute<GroupRow>(sql`
        select min((i.input->>'position')::int) as position, null as line, null as identity_key, null as customer_user_id, null as tags,
          'planned' as planned, null as known_link_id, null as row_reason, ${GROUP_COLUMNS}
        from job_items i where i.job_id = ${jobId}
        group by i.group_key
        order by min(i.seq)
        limit ${limit} offset ${offset}
      `);
  return rows.rows.map((r) => {
    const calls = Number(r.calls ?? 0);
    const done = Number(r.calls_done ?? 0);
    const state =
      r.planned !== "planned" || calls === 0
        ? "–"
        : Number(r.failed) > 0
          ? "failed"
          : Number(r.active) > 0
            ? done > 0
              ? "importing"
              : "waiting"
            : done === calls
              ? "done"
              : (r.first_state ?? "–");
    const outcome: ReconciliationOutcome =
      r.planned === "invalid" || r.planned === "duplicate" || r.planned === "already_imported"
        ? r.planned
        : state === "done"
          ? "created"
          : state === "failed"
            ? "failed"
            : state === "cancelled"
              ? "cancelled"
              : state === "skipped"
                ? "already_imported"
                : "pending";
    return {
      position: Number(r.position),
      line: Number(r.line ?? 0) || Number(r.position) + 1,
      identityKey: r.identity_key,
      customerUserId: r.customer_user_id,
      tags: r.tags ?? [],
      outcome,
      state,
      linkId: r.link_id ?? r.known_link_id,
      linkState: r.result?.state ?? null,
      errorCode: r.result?.errorCode ?? null,
      calls,
      callsDone: done,
      transactions: Number(r.transactions ?? 0),
      reason: r.reason ?? r.row_reason,
    };
  });
}

/** The reconciliation report of an import job as CSV: a row for every link of its file, a thousand at a time. */
export async function* streamImportOutcomesCsv(db: Db, jobId: string): AsyncGenerator<string, void, unknown> {
  yield csvRecord(RECONCILIATION_HEADER);
  for (let offset = 0; ; offset += 1000) {
    const page = await readImportOutcomes(db, jobId, { limit: 1000, offset });
    if (page.length === 0) return;
    yield page.map(reconciliationRecord).join("");
    if (page.length < 1000) return;
  }
}

/** Counts over a whole import's file (the page lists 500 rows at a time; its totals come from here). */
export interface ImportSummary {
  /** Links of the file, every row. */
  rows: number;
  planned: number;
  created: number;
  failed: number;
  cancelled: number;
  duplicates: number;
  alreadyImported: number;
  invalid: number;
}

export async function readImportSummary(db: Db, jobId: string): Promise<ImportSummary> {
  const result = await db.execute<{ planned: string; n: number }>(sql`
    select planned, count(*)::int as n from import_file_rows where job_id = ${jobId} group by planned
  `);
  const byPlan = Object.fromEntries(result.rows.map((r) => [r.planned, Number(r.n)]));
  const items = await db.execute<{ state: string; n: number }>(sql`
    select state, count(*)::int as n from job_items where job_id = ${jobId} and input->>'step' = 'link' group by state
  `);
  const byState = Object.fromEntries(items.rows.map((r) => [r.state, Number(r.n)]));
  const planned = Object.values(byState).reduce((a, b) => a + b, 0);
  const rows = Object.values(byPlan).reduce((a, b) => a + b, 0);
  return {
    rows: rows || planned,
    planned,
    created: byState.done ?? 0,
    failed: byState.failed ?? 0,
    cancelled: byState.cancelled ?? 0,
    duplicates: byPlan.duplicate ?? 0,
    alreadyImported: (byPlan.already_imported ?? 0) + (byState.skipped ?? 0),
    invalid: byPlan.invalid ?? 0,
  };
}
