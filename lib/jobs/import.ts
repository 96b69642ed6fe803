import "server-only";
import { and, arrayContains, eq, ne } from "drizzle-orm";
import { jobItems, links } from "../db/schema";
import { importTag, withImportTags } from "../import/plan";
import { readAllTransactions } from "../transactions/read";
import { isUpstreamError } from "../upstream/errors";
import type { WireLink, WireTransaction } from "../upstream/schemas";
import { hasPair, pairOf } from "../transactions/categories";
import { claimIdentity, markImportedLinkDeleted, recordImportedLink, recordedLinkOf } from "./imported-links";
import { currentLink, gone } from "./import-undo";
import { forgetUpstreamChecks } from "./import-upstream";
import { IMPORT_ENDPOINT, IMPORT_KIND, type ImportItem, type ImportResult, importItemSchema } from "./import-items";
import { FailItem, type ItemContext, type JobKind, NotSettledYet, SkipItem, type Verification } from "./kind-contract";

// Importing links from a file as a job. Each link of the file that is new to Linkdesk (by its identity key,
// lib/import/identity.ts) is one group of items, run in order: item 0 is POST /links/import with the link's accounts
// and first batch of transactions, tagged with the identity (`linkdesk-id:<hash>`) and the job
// (`linkdesk-import:<job>:<pos>`); the later items are POST /links/{id}/import/transactions batches, which read the
// link id from the group's first result. Before an import call, and when its answer is lost, the link is looked for
// by its identity tag in Linkdesk's records and under its customer (GET /users/{id}/links), never through GET /links,
// which lists active links only (upstream-facts §2) while an import without credentials is created disconnected.
// What the items are: import-items.ts; how a file becomes a job: import-start.ts; what each link became:
// import-outcomes.ts.

/**
 * An import may take about 10 s upstream, and a request whose answer was lost (a timeout) may still be applied after
 * it. Until this long after it was sent, a check that finds nothing is not taken as "not applied": it checks again
 * later, so a slow import is never sent twice.
 */
export const IMPORT_SETTLE_MS = 90_000;

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

/** A replaced link is deleted: its identity is free, the read model and the plan's kept checks learn it. */
async function retired(ctx: ItemContext, linkId: string): Promise<void> {
  forgetUpstreamChecks();
  await markImportedLinkDeleted(ctx.db, linkId);
  await ctx.api.getLink(linkId, ctx.readOptions).catch(() => undefined);
}

function linkResult(link: WireLink, transactions: number): ImportResult {
  return { linkId: link.link_id, state: link.state, errorCode: link.error_code ?? null, transactions };
}

/**
 * The link an item acts on: its own (a link the upstream held already when the file was planned), or the one the
 * group's import call made, from the results of the items before this one.
 */
async function groupLinkId(ctx: ItemContext, input?: { linkId?: string }): Promise<string> {
  if (input?.linkId) return input.linkId;
  // A replaced link's deletion comes first in the group: the link is the import call's.
  const results = (await ctx.groupResults()) as (Partial<ImportResult> | null | undefined)[];
  const linkId = results.find((r) => r && !r.retired)?.linkId;
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
  const tags = input.identity
    ? [input.identity.tag, ...(input.identity.also ?? [])]
    : [importTag(ctx.job.id, input.position)];
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
        forgetUpstreamChecks();
        await recordImported(ctx, input, link);
        return linkResult(link, input.body.transactions.length);
      }
      if (input.step === "retire") {
        await noteLink(ctx, input.linkId);
        if (await currentLink(ctx, input.linkId)) {
          try {
            await ctx.api.deleteLink(input.linkId, ctx.callOptions);
          } catch (error) {
            if (!gone(error)) throw error;
          }
        }
        await retired(ctx, input.linkId);
        return { linkId: input.linkId, transactions: 0, retired: true };
      }
      const linkId = await groupLinkId(ctx, input.step === "category" ? undefined : input);
      await noteLink(ctx, linkId);
      if (input.step === "update") {
        await ctx.api.updateLink(linkId, input.body, ctx.callOptions);
        forgetUpstreamChecks();
        return { linkId, transactions: 0, updated: true };
      }
      if (input.step === "category") {
        const found = await importedTransaction(ctx, linkId, input, { fresh: false });
        if (hasPair(pairOf(found), input))
          throw new SkipItem("Already in the file's category upstream: nothing to correct.");
        await ctx.api.correctEnrichment(linkId, found.transaction_id, wireCategory(input), ctx.callOptions);
        forgetImportedTransactions(ctx.job.id, linkId);
        return { linkId, transactions: 0, corrected: found.transaction_id };
      }
      await ctx.api.importTransactions(linkId, input.transactions, ctx.callOptions);
      forgetUpstreamChecks();
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
      if (input.step === "retire") {
        // Deleting is idempotent: the link is gone now, or the call is simply made again.
        if (await currentLink(ctx, input.linkId)) return { applied: false };
        await retired(ctx, input.linkId);
        return { applied: true, result: { linkId: input.linkId, transactions: 0, retired: true } };
      }
      if (input.step === "update") {
        // Setting tags and a webhook is idempotent: the link either has them now or the call is simply made again.
        const link = await ctx.api.getLink(input.linkId, ctx.readOptions);
        const applied =
          (input.body.link_tags === undefined ||
            JSON.stringify(link.link_tags ?? []) === JSON.stringify(input.body.link_tags)) &&
          (input.body.webhook === undefined || (link.webhook ?? null) === input.body.webhook);
        return applied
          ? { applied: true, result: { linkId: input.linkId, transactions: 0, updated: true } }
          : { applied: false };
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
      const linkId = await groupLinkId(ctx, input);
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
      if (input.step === "retire") {
        return {
          action: "link.delete",
          targetType: "link",
          targetId: input.linkId,
          linkId: input.linkId,
          input: { position: input.position, replacedByImport: job.id },
        };
      }
      if (input.step === "update") {
        return {
          action: "link.update",
          targetType: "link",
          targetId: input.linkId,
          linkId: input.linkId,
          input: { position: input.position, fromImport: true },
          after: input.body,
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
      if (r.retired) return `${r.linkId}: deleted, to be replaced by the file's link`;
      if (r.corrected) return `${r.linkId}: transaction ${r.corrected} corrected to the file's category`;
      if (r.updated) return `${r.linkId}: the file's tags and webhook given to the link the upstream held`;
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
