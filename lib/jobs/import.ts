import "server-only";
import { and, arrayContains, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { type Job, jobItems, jobs, links } from "../db/schema";
import { type FileReport, analyzeImportFile, sha256Hex } from "../import/analyze";
import { type PlannedLink, importTag, withImportTag } from "../import/plan";
import { csvRecord } from "../http/csv";
import { readAllTransactions } from "../transactions/read";
import { isUpstreamError } from "../upstream/errors";
import { importLinkRequestSchema, importTransactionSchema, type WireLink } from "../upstream/schemas";
import { FailItem, type ItemContext, type JobKind, NotSettledYet, type Verification } from "./kind";
import { type Actor, type NewJobItem, insertJobStreamed } from "./store";

// Importing links from a file as a job. Each valid link of the file is one group of items, run in order: item 0 is
// POST /links/import with the link's accounts and first batch of transactions, tagged `linkdesk-import:<job>:<pos>`;
// the later items are POST /links/{id}/import/transactions batches, which read the link id from the group's first
// result. When an answer is lost, the check finds the link by its tag, or the batch's transactions by their original
// ids, before anything is sent again.

export const IMPORT_KIND = "import";
export const IMPORT_ENDPOINT = "POST /links/import";
export const IMPORT_BATCH_ENDPOINT = "POST /links/{id}/import/transactions";

/**
 * An import may take about 10 s upstream, and a request whose answer was lost (a timeout) may still be applied after
 * it. Until this long after it was sent, a check that finds nothing is not taken as "not applied": it checks again
 * later, so a slow import is never sent twice.
 */
export const IMPORT_SETTLE_MS = 90_000;

/** Links created this long before the call was sent are still looked at (the upstream's clock against ours). */
const CLOCK_MARGIN_MS = 2 * 60_000;

const LIST_PAGE_SIZE = 5_000;

export const importLinkItemSchema = z.object({
  step: z.literal("link"),
  /** Position of the link in the file, from 0. */
  position: z.number().int().nonnegative(),
  body: importLinkRequestSchema,
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

export const importItemSchema = z.discriminatedUnion("step", [importLinkItemSchema, importBatchItemSchema]);
export type ImportItem = z.infer<typeof importItemSchema>;

export interface ImportResult {
  linkId: string;
  /** The link's state as the import call answered it (link step only). */
  state?: string;
  errorCode?: string | null;
  /** Transactions this call carried. */
  transactions: number;
}

export interface ImportJobParams {
  fileName: string;
  bytes: number;
  sha256: string;
  format: string;
  links: number;
  invalid: number;
  transactions: number;
}

/** Checked again later: what was looked for may still appear (a slow call applied after its timeout). */
class NotVisibleYet extends NotSettledYet {
  /** `what` with its verb: "The imported link is"; checked again within `retryInMs`, at most every 5 s. */
  constructor(whatIs: string, retryInMs: number) {
    super(`${whatIs} not there yet; the call may still be applied upstream, so it is checked again before anything is resent.`, Math.max(0, Math.min(5_000, retryInMs)));
    this.name = "NotVisibleYet";
  }
}

/** The item now knows its link: on its row (the items table, the CSV) and for its audit row. */
async function noteLink(ctx: ItemContext, linkId: string): Promise<void> {
  ctx.item.linkId = linkId;
  await ctx.db
    .update(jobItems)
    .set({ linkId })
    .where(and(eq(jobItems.id, ctx.item.id), ctx.item.leaseOwner ? eq(jobItems.leaseOwner, ctx.item.leaseOwner) : undefined));
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
const settleLeftMs = (ctx: ItemContext, settleMs: number) => (ctx.item.sentAt ? ctx.item.sentAt.getTime() + settleMs - Date.now() : -1);

/**
 * Finds the link an import call created, by its tag, without resending. First the read model (every link an
 * upstream answer carried is recorded there, and the sync records all links), then the upstream: GET /links lists
 * ids and creation times only, so the links created since shortly before the call was sent are read one by one
 * (GET /links/{id}) for their tags; links the read model already knows without the tag are skipped.
 */
export async function findImportedLink(ctx: ItemContext, tag: string): Promise<WireLink | null> {
  const known = await ctx.db.select({ linkId: links.linkId }).from(links).where(arrayContains(links.linkTags, [tag])).limit(1);
  if (known[0]) {
    const link = await ctx.api.getLink(known[0].linkId, ctx.readOptions);
    if (link.link_tags?.includes(tag)) return link;
  }
  const since = (ctx.item.sentAt?.getTime() ?? 0) - CLOCK_MARGIN_MS;
  const candidates: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await ctx.api.listLinks({ cursor, limit: LIST_PAGE_SIZE }, ctx.readOptions);
    const times = page.links.map((l) => Date.parse(l.created_at));
    for (const [i, l] of page.links.entries()) if (times[i]! >= since) candidates.push(l.link_id);
    // Newest first (as the sandbox and, by observation, the upstream list them): past the window, stop reading.
    const newestFirst = times.every((time, i) => i === 0 || time <= times[i - 1]!);
    if (!page.next_cursor || (newestFirst && times.length > 0 && times[times.length - 1]! < since)) break;
    cursor = page.next_cursor;
  }
  if (candidates.length === 0) return null;
  const recorded = await ctx.db.select({ linkId: links.linkId, tags: links.linkTags }).from(links).where(inArray(links.linkId, candidates));
  const knownWithoutTag = new Set(recorded.filter((r) => !r.tags.includes(tag)).map((r) => r.linkId));
  for (const linkId of candidates) {
    if (knownWithoutTag.has(linkId)) continue;
    const link = await ctx.api.getLink(linkId, ctx.readOptions);
    if (link.link_tags?.includes(tag)) return link;
  }
  return null;
}

const DAY_MS = 86_400_000;
const shiftDay = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

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
        const link = await ctx.api.importLink(withImportTag(input.body, importTag(ctx.job.id, input.position)), ctx.callOptions);
        await noteLink(ctx, link.link_id);
        return linkResult(link, input.body.transactions.length);
      }
      const linkId = await groupLinkId(ctx);
      await noteLink(ctx, linkId);
      await ctx.api.importTransactions(linkId, input.transactions, ctx.callOptions);
      return { linkId, transactions: input.transactions.length };
    },
    async verify(input, ctx): Promise<Verification<ImportResult>> {
      if (input.step === "link") {
        const link = await findImportedLink(ctx, importTag(ctx.job.id, input.position));
        if (link) {
          await noteLink(ctx, link.link_id);
          return { applied: true, result: linkResult(link, input.body.transactions.length) };
        }
        if (!sentLongAgo(ctx, settleMs)) throw new NotVisibleYet("The imported link is", settleLeftMs(ctx, settleMs) + 1);
        return { applied: false };
      }
      // The batch's transactions are looked for by their original ids in the batch's date range (a day either side:
      // the upstream may file a date-time on its UTC day).
      const linkId = await groupLinkId(ctx);
      await noteLink(ctx, linkId);
      const wanted = new Set(input.transactions.map((t) => t.transaction_id).filter((id): id is string => Boolean(id)));
      const found = await readAllTransactions(ctx.api, linkId, { startDate: shiftDay(input.firstDate, -1), endDate: shiftDay(input.lastDate, 1) }, ctx.readOptions).catch(
        (error: unknown) => {
          // The link is gone (deleted: 410; purged: 404): the batch can never land, and checking again would get the
          // same answer for ever.
          if (isUpstreamError(error) && (error.status === 410 || error.status === 404)) throw linkGone(linkId, input, error.status, error.errorCode ?? null);
          throw error;
        },
      );
      const present = found.filter((t) => t.original_id && wanted.has(t.original_id)).length;
      if (present >= wanted.size) return { applied: true, result: { linkId, transactions: input.transactions.length } };
      if (present === 0 && !sentLongAgo(ctx, settleMs)) throw new NotVisibleYet("The batch's transactions are", settleLeftMs(ctx, settleMs) + 1);
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
          },
        };
      }
      return {
        action: "link.import_batch",
        targetType: "link",
        targetId: item.linkId ?? undefined,
        linkId: item.linkId ?? undefined,
        input: { position: input.position, batch: input.batch, transactions: input.transactions.length, dates: `${input.firstDate}..${input.lastDate}` },
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
      if (r.state === undefined) return `${r.linkId}: +${r.transactions} transactions`;
      const state = r.state === "error" && r.errorCode === "auth_expired" ? "disconnected (auth_expired)" : r.errorCode ? `${r.state} (${r.errorCode})` : r.state;
      return `${r.linkId}: ${state}, ${r.transactions} transactions`;
    },
  };
}

export const importKind = createImportKind();

function linkGone(linkId: string, input: Extract<ImportItem, { step: "batch" }>, status: number, code: string | null): FailItem {
  const what = `batch ${input.batch} (${input.transactions.length.toLocaleString("en-US")} transactions, ${input.firstDate} to ${input.lastDate})`;
  return new FailItem(
    `Link ${linkId} was ${status === 410 ? "deleted" : "removed"} upstream after it was imported, so ${what} can no longer be added to it or checked. Nothing was resent; import the link again from a new file if it is still wanted.`,
    status,
    code,
  );
}

export const groupKeyOf = (position: number) => `link-${position}`;

/** Items of one valid link of a file: the import, then its batches (with their sizes, for writing them in chunks). */
export function importItemsOf(position: number, plan: PlannedLink): (NewJobItem & { bytes: number })[] {
  const groupKey = groupKeyOf(position);
  const label = `link ${position + 1}`;
  return [
    { groupKey, targetId: label, bytes: plan.bytes, input: { step: "link", position, body: plan.body } satisfies ImportItem },
    ...plan.batches.map((batch, index) => ({
      groupKey,
      targetId: `${label} batch ${index + 1}`,
      bytes: batch.bytes,
      input: { step: "batch", position, batch: index + 1, firstDate: batch.firstDate, lastDate: batch.lastDate, transactions: batch.transactions } satisfies ImportItem,
    })),
  ];
}

/** Items in flight that keep the busiest limit busy when each answer takes `latencyS`. */
export function importConcurrency(limits: { importsPerMinute: number; batchesPerMinute: number; hasBatches: boolean }, latencyS = 10): number {
  const inFlight = (perMinute: number) => Math.ceil((perMinute / 60) * latencyS);
  return Math.max(1, Math.min(16, inFlight(limits.importsPerMinute) + (limits.hasBatches ? inFlight(limits.batchesPerMinute) : 0) + 1));
}

export async function findImportJobByHash(db: Db, sha256: string): Promise<Job | null> {
  const [job] = await db.select().from(jobs).where(and(eq(jobs.kind, IMPORT_KIND), eq(jobs.dedupeKey, sha256))).limit(1);
  return job ?? null;
}

export type StartImportResult =
  | { outcome: "started"; job: Job; report: FileReport }
  | { outcome: "existing"; existing: Job }
  /** The file cannot be read, or none of its links can be imported: nothing was written. */
  | { outcome: "refused"; report: FileReport };

/**
 * Reads, checks and plans a file and writes its job, unless a job for the same file (by content hash) exists: then
 * that one is answered and nothing new is planned. Planning streams into the job's transaction: each link's calls are
 * written as soon as they are planned and dropped, so the server holds about one link's calls at a time, not the
 * file's. Two people uploading one file at once: the unique (kind, dedupe_key) index lets one win.
 */
export async function startImportJob(
  db: Db,
  actor: Actor,
  file: { bytes: Uint8Array; name: string; sha256?: string },
  concurrency: number | ((report: FileReport) => number),
): Promise<StartImportResult> {
  const sha256 = file.sha256 ?? (await sha256Hex(file.bytes));
  const existing = await findImportJobByHash(db, sha256);
  if (existing) return { outcome: "existing", existing };
  let report: FileReport | undefined;
  try {
    const job = await insertJobStreamed(
      db,
      { kind: IMPORT_KIND, title: `Import of ${file.name}`, concurrency: 1, createdBy: actor, dedupeKey: sha256 },
      async (writer) => {
        const analyzed = await analyzeImportFile(file.bytes, { sha256, onPlan: (position, plan) => writer.add(importItemsOf(position, plan)) });
        report = analyzed.report;
        if (report.fileProblem || report.valid === 0) return null;
        const params: ImportJobParams = {
          fileName: file.name,
          bytes: report.bytes,
          sha256,
          format: report.format ?? "",
          links: report.valid,
          invalid: report.invalid,
          transactions: report.transactions,
        };
        return {
          title: `Import of ${file.name}: ${report.valid} link${report.valid === 1 ? "" : "s"}`,
          params: { ...params },
          concurrency: typeof concurrency === "number" ? concurrency : concurrency(report),
        };
      },
    );
    if (!job) return { outcome: "refused", report: report! };
    return { outcome: "started", job, report: report! };
  } catch (error) {
    const raced = await findImportJobByHash(db, sha256);
    if (raced) return { outcome: "existing", existing: raced };
    throw error;
  }
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
    await tx.update(jobs).set({ state: "running", finishedAt: null, updatedAt: sql`now()` }).where(eq(jobs.id, jobId));
    return true;
  });
}

/** Per link of an import job: where it is, and the link it made. */
export interface ImportLinkOutcome {
  position: number;
  state: string;
  linkId: string | null;
  linkState: string | null;
  errorCode: string | null;
  calls: number;
  callsDone: number;
  transactions: number;
  reason: string | null;
}

/** The outcome of every link of an import job, in file order (from its items: one group per link). */
export async function readImportOutcomes(db: Db, jobId: string, opts: { limit?: number; offset?: number } = {}): Promise<ImportLinkOutcome[]> {
  const rows = await db.execute<{
    group_key: string;
    position: number;
    first_state: string;
    link_id: string | null;
    result: ImportResult | null;
    calls: number;
    calls_done: number;
    failed: number;
    active: number;
    transactions: number;
    reason: string | null;
  }>(sql`
    select group_key,
      min((input->>'position')::int) as position,
      (array_agg(state order by seq))[1] as first_state,
      max(link_id) as link_id,
      (array_agg(result order by seq))[1] as result,
      count(*)::int as calls,
      count(*) filter (where state = 'done')::int as calls_done,
      count(*) filter (where state = 'failed')::int as failed,
      count(*) filter (where state in ('pending', 'sent'))::int as active,
      coalesce(sum((result->>'transactions')::int) filter (where state = 'done'), 0)::int as transactions,
      (array_agg(reason order by seq) filter (where state in ('failed', 'skipped', 'cancelled')))[1] as reason
    from job_items where job_id = ${jobId}
    group by group_key
    order by min(seq)
    limit ${opts.limit ?? 1000} offset ${opts.offset ?? 0}
  `);
  return rows.rows.map((r) => ({
    position: Number(r.position),
    state: Number(r.failed) > 0 ? "failed" : Number(r.active) > 0 ? (Number(r.calls_done) > 0 ? "importing" : "waiting") : Number(r.calls_done) === Number(r.calls) ? "done" : r.first_state,
    linkId: r.link_id,
    linkState: r.result?.state ?? null,
    errorCode: r.result?.errorCode ?? null,
    calls: Number(r.calls),
    callsDone: Number(r.calls_done),
    transactions: Number(r.transactions),
    reason: r.reason,
  }));
}

const OUTCOMES_CSV_HEADER = ["position", "state", "link_id", "link_state", "error_code", "transactions", "calls", "calls_done", "reason"];

/** Per-link results of an import job as CSV (1-based positions, as the page shows them), a thousand links at a time. */
export async function* streamImportOutcomesCsv(db: Db, jobId: string): AsyncGenerator<string, void, unknown> {
  yield csvRecord(OUTCOMES_CSV_HEADER);
  for (let offset = 0; ; offset += 1000) {
    const page = await readImportOutcomes(db, jobId, { limit: 1000, offset });
    if (page.length === 0) return;
    yield page.map((o) => csvRecord([o.position + 1, o.state, o.linkId, o.linkState, o.errorCode, o.transactions, o.calls, o.callsDone, o.reason])).join("");
    if (page.length < 1000) return;
  }
}
