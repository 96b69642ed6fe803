import "server-only";
import { z } from "zod";
import type { Db } from "../db/client";
import type { Job } from "../db/schema";
import { forgetTransactionHistory, noteCorrectedTransactions } from "../transactions/history";
import { findTransactions } from "../transactions/read";
import type { CallOptions, UpstreamApi } from "../upstream";
import {
  type CategoryPair,
  CORRECTION_ENDPOINT,
  type ObservedPair,
  asCategoryPair,
  categoryPairSchema,
  observedPairSchema,
  describePair,
  hasPair,
  pairOf,
} from "../transactions/categories";
import type { WireTransaction } from "../upstream/schemas";
import { type ItemContext, type JobKind, NotSettledYet, SkipItem } from "./kind-contract";
import { type Actor, type NewJobItem, insertJob, readJob } from "./store";
import { jobItems, jobs } from "../db/schema";
import { and, asc, eq } from "drizzle-orm";

// Correcting transactions' categories as a job: one Correct Enrichment call per transaction, each checked by reading
// the transaction back when its answer was lost. What a transaction had before comes from the upstream (read when the
// job is planned), never from the browser.

export const CORRECTION_KIND = "correction";
/** The endpoint a correction item calls (the kind's, for the budget and the job's page). */
export { CORRECTION_ENDPOINT };

export const correctionItemSchema = z.object({
  transactionId: z.string().min(1),
  /** The transaction's date: a check reads that one day instead of the whole history. */
  date: z.string().optional(),
  /**
   * What people know the transaction by, as the upstream had it when the job was planned (the job's page names the
   * item by them). Absent on items planned before they were recorded.
   */
  description: z.string().optional(),
  /** Unsigned, as the upstream sends it; `direction` says which way the money went. */
  amount: z.number().optional(),
  currency: z.string().optional(),
  direction: z.enum(["credit", "debit"]).optional(),
  /** As the upstream had it when the job was planned; null when it had no category. */
  before: observedPairSchema.nullable(),
  after: categoryPairSchema,
  /** Undo only: the category the undone correction set. If the transaction no longer has it, the undo is skipped. */
  expect: observedPairSchema.optional(),
});
export type CorrectionItem = z.infer<typeof correctionItemSchema>;

export interface CorrectionResult {
  category: string;
  subcategory?: string;
}

/** The transaction as people know it (date, description, amount), recorded in the item for the job's page. */
export function knownAs(
  t: WireTransaction | undefined,
): Pick<CorrectionItem, "date" | "description" | "amount" | "currency" | "direction"> {
  if (!t) return {};
  return {
    date: t.date,
    ...(t.description ? { description: t.description } : {}),
    ...(Number.isFinite(t.amount) && t.currency
      ? {
          amount: Math.abs(t.amount),
          currency: t.currency,
          direction: t.type === "credit" ? ("credit" as const) : ("debit" as const),
        }
      : {}),
  };
}

/**
 * A correction that got no answer (a timeout, a dropped connection, a crash) may still be applied upstream for a while:
 * a slow upstream finishes a request it has read even after the client gave up. Until this long after it was sent, a
 * check that does not find it is not believed; it checks again, so a slow correction is never sent twice. A call that
 * got an answer (even a 5xx) is over upstream, and its check is believed at once. 30 s is three times the client's
 * default timeout: a correction still unapplied by then is taken as dropped (an assumption; no upstream figure exists).
 */
export const CORRECTION_SETTLE_MS = 30_000;

/** A correction job works on one link (the job's), though an item may name its own. */
const linkOf = (ctx: ItemContext) => ctx.item.linkId ?? ctx.job.linkId!;

const wire = (pair: CategoryPair) => ({
  category: pair.category,
  ...(pair.subcategory ? { subcategory: pair.subcategory } : {}),
});

export function createCorrectionKind(opts: { settleMs?: number } = {}): JobKind<CorrectionItem, CorrectionResult> {
  const settleMs = opts.settleMs ?? CORRECTION_SETTLE_MS;
  return {
    kind: CORRECTION_KIND,
    label: "Category correction",
    permission: "correct",
    // Two calls in flight keep the per-link slot busy while the previous answer is recorded; the budget paces them.
    concurrency: 2,
    endpoint: CORRECTION_ENDPOINT,
    inputSchema: correctionItemSchema,
    async execute(input, ctx) {
      const linkId = linkOf(ctx);
      if (input.expect) {
        const [current] = (await findTransactions(ctx.api, linkId, [input], ctx.readOptions)).values();
        if (!hasPair(pairOf(current), input.expect)) {
          throw new SkipItem(`Changed since: it is now ${describePair(pairOf(current))}, so it was left as it is.`);
        }
      }
      const response = await ctx.api.correctEnrichment(linkId, input.transactionId, wire(input.after), ctx.callOptions);
      // The correction desk's cached copy of the link shows the change at once.
      noteCorrectedTransactions(linkId, response.transactions);
      const updated =
        response.transactions.find((t) => t.transaction_id === input.transactionId) ?? response.transactions[0];
      return {
        category: updated?.enrichment?.category?.value ?? input.after.category,
        subcategory: updated?.enrichment?.subcategory?.value,
      };
    },
    async verify(input, ctx) {
      const current = pairOf(
        (await findTransactions(ctx.api, linkOf(ctx), [input], ctx.readOptions)).get(input.transactionId),
      );
      // Whatever the check found, the cached copy of the link may be out of date: the next view reads it again.
      forgetTransactionHistory(linkOf(ctx));
      if (hasPair(current, input.after))
        return { applied: true, result: { category: current!.category, subcategory: current!.subcategory } };
      const sentAgoMs = ctx.item.sentAt ? Date.now() - ctx.item.sentAt.getTime() : Infinity;
      if (ctx.item.upstreamStatus === null && sentAgoMs < settleMs) {
        const waitMs = settleMs - sentAgoMs;
        throw new NotSettledYet(
          `The last call got no answer and the upstream may still apply it, so it is checked again in ${Math.ceil(waitMs / 1000)} s before anything is sent again.`,
          waitMs,
        );
      }
      return { applied: false };
    },
    audit(input, job, item) {
      return {
        action: job.undoesJobId ? "transaction.undo_correction" : "transaction.correct",
        targetType: "transaction",
        targetId: input.transactionId,
        linkId: item.linkId ?? job.linkId ?? undefined,
        input: { ...wire(input.after), ...(job.undoesJobId ? { undoes: job.undoesJobId } : {}) },
        before: input.before,
        after: input.after,
      };
    },
    describeResult: (result) => describePair(result as ObservedPair),
  };
}

export const correctionKind = createCorrectionKind();

/** Planning refused the job, with the reason in words (a transaction not on the link, nothing to undo…). */
export class PlanRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PlanRefused";
  }
}

export interface PlannedCorrection {
  transactionId: string;
  category: CategoryPair["category"];
  subcategory?: CategoryPair["subcategory"];
}

/** A transaction asked for twice with two different categories: nobody can tell which one was meant. */
export class ConflictingCorrections extends PlanRefused {
  constructor(
    readonly transactionId: string,
    readonly first: CategoryPair,
    readonly second: CategoryPair,
  ) {
    super(
      `Transaction ${transactionId} is in the request twice, once to ${describePair(first)} and once to ${describePair(second)}: choose one category for it and start again.`,
    );
    this.name = "ConflictingCorrections";
  }
}

const targetOf = (c: PlannedCorrection): CategoryPair =>
  ({ category: c.category, ...(c.subcategory ? { subcategory: c.subcategory } : {}) }) as CategoryPair;
const sameTarget = (a: CategoryPair, b: CategoryPair) => a.category === b.category && a.subcategory === b.subcategory;

/**
 * One correction per transaction of the link, however the request was made: the desk never sends a transaction twice,
 * but a direct POST can, and each copy would be a call of its own against the link's per-link limit. Copies with the
 * same category are dropped (and counted); copies with different categories are refused with ConflictingCorrections.
 */
export function uniqueCorrections(corrections: readonly PlannedCorrection[]): {
  corrections: PlannedCorrection[];
  duplicates: number;
} {
  const byId = new Map<string, PlannedCorrection>();
  for (const c of corrections) {
    const seen = byId.get(c.transactionId);
    if (!seen) byId.set(c.transactionId, c);
    else if (!sameTarget(targetOf(seen), targetOf(c)))
      throw new ConflictingCorrections(c.transactionId, targetOf(seen), targetOf(c));
  }
  return { corrections: [...byId.values()], duplicates: corrections.length - byId.size };
}

/** How many copies of transactions already in the request planning dropped (job.params, so the job row keeps it). */
export function duplicatesDropped(job: Pick<Job, "params">): number {
  const n = (job.params as { duplicatesDropped?: unknown }).duplicatesDropped;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * Plans a correction job: drops copies of a transaction already in the request (refusing one asked for with two
 * categories), reads the transactions from the upstream (refusing ids that are not on the link), records what each
 * had, and marks those already in the target category as skipped. Returns the job, already running; its params say
 * how many copies were dropped (duplicatesDropped).
 */
export async function startCorrectionJob(
  db: Db,
  api: UpstreamApi,
  actor: Actor,
  linkId: string,
  requested: PlannedCorrection[],
  opts: CallOptions = {},
): Promise<Job> {
  const { corrections, duplicates } = uniqueCorrections(requested);
  const current = await findTransactions(api, linkId, corrections, opts);
  const missing = corrections.filter((c) => !current.has(c.transactionId)).map((c) => c.transactionId);
  if (missing.length > 0) {
    throw new PlanRefused(
      `${missing.length === 1 ? "This transaction is" : `${missing.length} transactions are`} not on link ${linkId}: ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? "…" : ""}.`,
    );
  }
  const items: NewJobItem[] = corrections.map((c) => {
    const t = current.get(c.transactionId)!;
    const after = targetOf(c);
    const before = pairOf(t);
    const input: CorrectionItem = { transactionId: c.transactionId, ...knownAs(t), before, after };
    const same = before !== null && before.category === after.category && before.subcategory === after.subcategory;
    return {
      input,
      targetId: c.transactionId,
      ...(same ? { state: "skipped" as const, reason: "Already in that category: no call needed." } : {}),
    };
  });
  const targets = new Set(corrections.map((c) => describePair(targetOf(c))));
  const title = `${corrections.length} transaction${corrections.length === 1 ? "" : "s"} to ${targets.size === 1 ? [...targets][0] : "several categories"}`;
  return insertJob(db, {
    kind: CORRECTION_KIND,
    title,
    linkId,
    createdBy: actor,
    concurrency: correctionKind.concurrency,
    params: duplicates > 0 ? { duplicatesDropped: duplicates } : {},
    items,
  });
}

/**
 * Plans the undo of a correction job as a job of its own: each corrected transaction goes back to what it had, unless
 * it was changed again since (then it is skipped, saying so: an undo never overwrites a later change).
 */
export async function startUndoJob(
  db: Db,
  api: UpstreamApi,
  actor: Actor,
  jobId: string,
  opts: CallOptions = {},
): Promise<Job> {
  const original = await readJob(db, jobId);
  if (!original || original.kind !== CORRECTION_KIND || !original.linkId)
    throw new PlanRefused("That job is not a category correction.");
  if (original.state === "running" || original.state === "paused")
    throw new PlanRefused("Pause or cancel the job, or let it finish, before undoing it.");
  const [undone] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.undoesJobId, jobId), eq(jobs.kind, CORRECTION_KIND)))
    .limit(1);
  if (undone)
    throw new PlanRefused(`That job is undone already (job ${undone.id}): undoing it again would change nothing.`);
  const done = await db
    .select()
    .from(jobItems)
    .where(and(eq(jobItems.jobId, jobId), eq(jobItems.state, "done")))
    .orderBy(asc(jobItems.seq));
  if (done.length === 0) throw new PlanRefused("Nothing of that job went through, so there is nothing to undo.");
  // A job planned before copies were dropped may hold a transaction more than once: it is put back once.
  const seen = new Set<string>();
  const parsed = done
    .map((row) => correctionItemSchema.parse(row.input))
    .filter((item) => !seen.has(item.transactionId) && seen.add(item.transactionId));
  const current = await findTransactions(api, original.linkId, parsed, opts);
  const items: NewJobItem[] = parsed.map((item) => {
    const seenNow = current.get(item.transactionId);
    const now = pairOf(seenNow);
    const base = { targetId: item.transactionId };
    // Named as the upstream has it now, or as the undone job recorded it when the transaction is not found.
    const known = seenNow
      ? knownAs(seenNow)
      : {
          date: item.date,
          description: item.description,
          amount: item.amount,
          currency: item.currency,
          direction: item.direction,
        };
    if (!item.before)
      return {
        ...base,
        input: { ...item, before: now, after: item.after },
        state: "skipped" as const,
        reason: "It had no category before, so there is nothing to put back.",
      };
    const restore = asCategoryPair(item.before);
    if (!restore)
      return {
        ...base,
        input: { ...item, before: now, after: item.after },
        state: "skipped" as const,
        reason: `It was ${describePair(item.before)} before, a category the upstream no longer takes, so it cannot be put back.`,
      };
    const input: CorrectionItem = {
      transactionId: item.transactionId,
      ...known,
      before: now,
      after: restore,
      expect: item.after,
    };
    if (!hasPair(now, item.after))
      return {
        ...base,
        input,
        state: "skipped" as const,
        reason: `Changed since: it is now ${describePair(now)}, so it was left as it is.`,
      };
    return { ...base, input };
  });
  return insertJob(db, {
    kind: CORRECTION_KIND,
    title: `Undo: ${original.title}`,
    linkId: original.linkId,
    createdBy: actor,
    concurrency: correctionKind.concurrency,
    undoesJobId: original.id,
    items,
  });
}
