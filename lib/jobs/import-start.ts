import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type ImportRowOutcome, type Job, importFileRows, jobs } from "../db/schema";
import {
  type FileReport,
  type LegacyCorrection,
  type LinkReport,
  analyzeImportFile,
  sha256Hex,
} from "../import/reader";
import { DEFAULT_IDENTITY, type IdentityRule } from "../import/identity";
import type { PlannedLink } from "../import/plan";
import { validationRow } from "../import/reconcile";
import {
  type KnownIdentity,
  heldReason,
  identityTag,
  lookupImported,
  releaseReplacedIdentities,
  reserveIdentities,
} from "./imported-links";
import { IMPORT_KIND, type ImportItem, type ImportJobParams, type UpstreamPlanSummary } from "./import-items";
import { type UpstreamCheck, factsOf, identifyingTags, recordedLinks } from "./import-upstream";
import { planImportBatches } from "../import/plan";
import {
  type LinkDecision,
  type UpstreamDecisions,
  type UpstreamMatch,
  decide,
  recordAgrees,
} from "../import/upstream-match";
import { type Actor, type NewJobItem, insertJobStreamed } from "./store";

// Starting an import job from a file: read, check and plan it (lib/import/), reserve each link's identity, and write
// the job's items a chunk at a time with a row per link of the file; and taking a cancelled import up again.

export const groupKeyOf = (position: number) => `link-${position}`;

/** Items of one valid link of a file: the import, then its batches (with their sizes, for writing them in chunks). */
export function importItemsOf(
  position: number,
  plan: PlannedLink,
  identity?: { key: string; tag: string; also?: string[] },
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
  /**
   * Every link of the file that can be imported is imported already, being imported, or at the upstream with nothing
   * to add: nothing was written.
   */
  | { outcome: "nothing_new"; report: FileReport; known: Map<string, KnownIdentity>; upstream?: UpstreamCheck }
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
  opts: { carryCategories?: boolean; upstream?: { check: UpstreamCheck; decisions: UpstreamDecisions } } = {},
): Promise<StartImportResult> {
  const sha256 = file.sha256 ?? (await sha256Hex(file.bytes));
  for (let attempt = 1; ; attempt++) {
    try {
      return await planImportJob(
        db,
        actor,
        file,
        sha256,
        concurrency,
        identity,
        opts.carryCategories ?? false,
        opts.upstream,
      );
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
  upstream?: { check: UpstreamCheck; decisions: UpstreamDecisions },
): Promise<StartImportResult> {
  let report: FileReport | undefined;
  let planned = 0;
  let corrections = 0;
  /** What the upstream held decided for these links of the file: not imported, or calls on the upstream's copy. */
  const decided = new Map<number, { outcome: ImportRowOutcome; linkId: string | null; reason: string }>();
  /** Links of the file that replace the upstream's copy, with the reason in words. */
  const replacing = new Map<number, string>();
  const summary = upstream ? emptySummary(upstream.check) : undefined;
  const recorded = upstream ? await recordedLinks(db, upstream.check) : new Map<number, string>();
  const job = await insertJobStreamed(
    db,
    { kind: IMPORT_KIND, title: `Import of ${file.name}`, concurrency: 1, createdBy: actor },
    async (writer) => {
      const { tx, jobId } = writer;
      const held = new Map<number, KnownIdentity>();
      let buffer: {
        position: number;
        plan: PlannedLink;
        link: LinkReport;
        legacy: LegacyCorrection[];
        /** The upstream link this one replaces (deleted first). */
        replaces?: string;
      }[] = [];
      let bufferBytes = 0;
      const flush = async () => {
        const chunk = buffer;
        buffer = [];
        bufferBytes = 0;
        // A link replacing the one Linkdesk imported under the same identity takes that identity over.
        await releaseReplacedIdentities(
          tx,
          chunk.flatMap(({ link, replaces }) =>
            replaces ? [{ identityKey: link.identityKey!, linkId: replaces }] : [],
          ),
        );
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
        for (const { position, plan, link, legacy, replaces } of chunk) {
          const key = link.identityKey!;
          if (taken.has(key)) {
            planned++;
            corrections += legacy.length;
            const tag = identityTag(key);
            const also = upstream
              ? identifyingTags(factsOf(plan, link, identity), upstream.check.identityNames, tag)
              : [];
            const items = importItemsOf(position, plan, { key, tag, ...(also.length > 0 ? { also } : {}) }, legacy);
            await writer.add(replaces ? [retireItemOf(position, replaces), ...items] : items);
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
          if (upstream) {
            const match = upstream.check.matches.get(position);
            const facts = upstream.check.files.get(position);
            const linkId = match && "linkId" in match ? match.linkId : undefined;
            const decision = decide(
              match,
              facts,
              linkId ? upstream.check.upstreamLinks.get(linkId) : undefined,
              upstream.decisions,
            );
            // Linkdesk's record agrees: planned as before, and found held ("already imported", with its import).
            const agrees = recordAgrees(decision, recorded.get(position));
            if (!agrees) countMatch(summary!, match, decision);
            if (decision.act === "skip" && !agrees) {
              decided.set(position, { outcome: decision.outcome, linkId: decision.linkId, reason: decision.reason });
              return;
            }
            if (decision.act === "update") {
              decided.set(position, { outcome: "updating", linkId: decision.linkId, reason: decision.reason });
              await writer.add(updateItemsOf(position, plan, decision));
              return;
            }
            if (decision.act === "replace") {
              replacing.set(position, decision.reason);
              buffer.push({ position, plan, link, legacy, replaces: decision.linkId });
              bufferBytes += plan.bytes;
              if (buffer.length >= RESERVE_CHUNK || bufferBytes >= RESERVE_CHUNK_BYTES) await flush();
              return;
            }
          }
          buffer.push({ position, plan, link, legacy });
          bufferBytes += plan.bytes + plan.batches.reduce((sum, b) => sum + b.bytes, 0);
          if (buffer.length >= RESERVE_CHUNK || bufferBytes >= RESERVE_CHUNK_BYTES) await flush();
        },
      });
      await flush();
      report = analyzed.report;
      if (report.fileProblem || (planned === 0 && (summary?.updating ?? 0) === 0)) return null;
      for (let i = 0; i < report.links.length; i += ROWS_CHUNK) {
        await tx.insert(importFileRows).values(
          report.links.slice(i, i + ROWS_CHUNK).map((link) => {
            const holder = held.get(link.position);
            const upstreamSaid = decided.get(link.position);
            const where = {
              jobId,
              position: link.position,
              line: link.line,
              column: link.column || null,
              identityKey: link.identityKey,
              customerUserId: link.customerUserId,
              institutionId: link.institutionId,
              tags: link.tags,
            };
            if (upstreamSaid)
              return {
                ...where,
                planned: upstreamSaid.outcome,
                linkId: upstreamSaid.linkId,
                reason: upstreamSaid.reason,
              };
            const row = validationRow(link, holder ? { linkId: holder.linkId, reason: heldReason(holder) } : undefined);
            const replaces = row.outcome === "to_import" ? replacing.get(link.position) : undefined;
            return {
              ...where,
              planned: (row.outcome === "to_import" ? "planned" : row.outcome) as ImportRowOutcome,
              linkId: row.linkId,
              reason: replaces ?? row.reason,
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
        ...(summary ? { upstream: summary } : {}),
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
  return {
    outcome: "nothing_new",
    report: report!,
    known: await lookupImported(db, keys),
    ...(upstream ? { upstream: upstream.check } : {}),
  };
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

/** The first item of a link that replaces the upstream's copy: deleting that copy (DELETE /links/{id}). */
export function retireItemOf(position: number, linkId: string): NewJobItem & { bytes: number } {
  return {
    groupKey: groupKeyOf(position),
    targetId: `link ${position + 1}: delete ${linkId}, which it replaces`,
    bytes: 100,
    input: { step: "retire", position, linkId } satisfies ImportItem,
  };
}

/**
 * Items for a link the upstream holds already: its copy's missing transactions in batches under the upstream's
 * limits (keyed by original_id there, so a batch sent twice adds nothing), then the file's tags and webhook.
 */
export function updateItemsOf(
  position: number,
  plan: PlannedLink,
  decision: Extract<LinkDecision, { act: "update" }>,
): (NewJobItem & { bytes: number })[] {
  const groupKey = groupKeyOf(position);
  const label = `link ${position + 1}`;
  const wanted = new Set(decision.newTransactions);
  const items: (NewJobItem & { bytes: number })[] = [];
  if (wanted.size > 0) {
    const transactions = [...plan.body.transactions, ...plan.batches.flatMap((b) => b.transactions)].filter((t) =>
      wanted.has(t.transaction_id!),
    );
    const planned = planImportBatches({ ...plan.body, accounts: [], transactions }, position);
    if (planned.ok) {
      const batches = [planned.plan.firstBatch, ...planned.plan.batches].filter((b) => b !== null);
      batches.forEach((batch, index) =>
        items.push({
          groupKey,
          targetId: `${label} batch ${index + 1} for ${decision.linkId}`,
          bytes: batch.bytes,
          input: {
            step: "batch",
            position,
            batch: index + 1,
            firstDate: batch.firstDate,
            lastDate: batch.lastDate,
            transactions: batch.transactions,
            linkId: decision.linkId,
          } satisfies ImportItem,
        }),
      );
    }
  }
  if (decision.update)
    items.push({
      groupKey,
      targetId: `${label} tags and webhook of ${decision.linkId}`,
      bytes: JSON.stringify(decision.update).length,
      input: { step: "update", position, linkId: decision.linkId, body: decision.update } satisfies ImportItem,
    });
  return items;
}

/** An upstream plan's counts before any link is counted: the check's own figures, the rest zero. */
export function emptySummary(check: UpstreamCheck): UpstreamPlanSummary {
  return {
    customers: check.customers,
    checked: check.checked,
    calls: check.calls,
    same: 0,
    possible: 0,
    ambiguous: 0,
    deleted: 0,
    unchecked: 0,
    updating: 0,
    newTransactions: 0,
    updates: 0,
  };
}

/** Counts one link's match and what was decided for it into the job's summary. */
export function countMatch(summary: UpstreamPlanSummary, match: UpstreamMatch | undefined, decision: LinkDecision) {
  if (match?.kind === "same") summary.same++;
  else if (match?.kind === "possible") summary.possible++;
  else if (match?.kind === "ambiguous") summary.ambiguous++;
  else if (match?.kind === "deleted") summary.deleted++;
  else if (match?.kind === "unchecked") summary.unchecked++;
  if (decision.act === "replace") summary.replacing = (summary.replacing ?? 0) + 1;
  if (decision.act === "update") {
    summary.updating++;
    summary.newTransactions += decision.newTransactions.length;
    if (decision.update) summary.updates++;
  }
}
