"use server";

import { getBudget } from "../budget";
import { callHeadroom, describeDuration, estimateCost } from "../budget/headroom";
import { CORRECTION_ENDPOINT } from "../transactions/categories";
import { getDb } from "../db/client";
import { wakeJobRunner } from "../jobs";
import { IMPORT_BATCH_ENDPOINT, IMPORT_ENDPOINT, type ImportJobParams } from "../jobs/import-items";
import { importConcurrency, resumeCancelledImport, startImportJob } from "../jobs/import-start";
import { type KnownIdentity, heldReason, lookupImported } from "../jobs/imported-links";
import { type FileReport, analyzeImportFile, sha256Hex } from "../import/reader";
import { describeIdentityRule } from "../import/identity";
import { estimateImportDuration } from "../import/plan";
import type { KnownLink } from "../import/reconcile";
import { jobIdSchema } from "../schemas/jobs";
import { identityRuleOf, importUndoSchema, importUploadSchema } from "../schemas/import";
import { planImportUndo, startImportUndo } from "../jobs/import-undo";
import { ActionRefused, actionClient } from "./safe-action";
import { upstream } from "../upstream";
import { type UpstreamCheck, checkFileWithUpstream, recordedLinks } from "../jobs/import-upstream";
import { countMatch, emptySummary } from "../jobs/import-start";
import type { UpstreamPlanSummary } from "../jobs/import-items";
import { IMPORT_MAX_TRANSACTIONS } from "../import/limits";
import { whereInFile } from "../import/positions";
import {
  type LinkDecision,
  type UpstreamDecisions,
  type UpstreamMatch,
  decide,
  decisionKey,
  describeDiff,
  describeMatch,
  recordAgrees,
} from "../import/upstream-match";

// Importing a file of links. The server reads the file itself (the same code as the page's worker), validates every
// link again, and plans the calls: the browser's preview is never trusted. Each link is known by its identity
// (lib/import/identity.ts): links already imported by any earlier job, whatever the file's bytes, are skipped, and a
// link listed twice is imported once.

/** Invalid links listed back to the page at most (the page has the full list from its own reading). */
const INVALID_LISTED = 50;

export type ImportFileResult =
  | {
      outcome: "plan";
      /** Links the import would create. */
      valid: number;
      invalid: number;
      duplicates: number;
      alreadyImported: number;
      transactions: number;
      calls: { imports: number; batches: number };
      duration: string;
      binding: string;
      invalidLinks: { position: number; line: number; problems: string[] }[];
      /** Every link of the file Linkdesk imported before (or is importing), by position. */
      known: KnownLink[];
      /** Legacy categories of the new links that could be carried over as corrections, and the time those calls take. */
      categories: { corrections: number; links: number; duration: string };
      /** What the upstream holds already for the file's customers, and what the import would do with it. */
      upstream: UpstreamPreview;
    }
  | { outcome: "started"; jobId: string; total: number; links: number; duplicates: number; alreadyImported: number }
  /** Nothing new in the file: every link it can import is imported already (or being imported). */
  | {
      outcome: "nothing_new";
      alreadyImported: number;
      duplicates: number;
      invalid: number;
      jobIds: string[];
      known: KnownLink[];
    };

/** Rows of the upstream match listed back to the page at most (the validation report has them all). */
const MATCHES_LISTED = 200;

export interface UpstreamMatchRow {
  position: number;
  line: number;
  /** Where the link is in the file, in words: "#3 ($[2], line 1, column 245)". */
  where: string;
  kind: UpstreamMatch["kind"];
  /** The upstream link matched (the first, when ambiguous). */
  linkId: string | null;
  linkIds: string[];
  /** The match and the differences in words. */
  said: string;
  differences: string | null;
  newTransactions: number | null;
  fixed: { field: string; file: string; upstream: string }[];
  /** The decision key for this row (`#position:linkId`): possible and deleted matches, and links that may be replaced. */
  key: string | null;
  /** What the import will do with it under the decisions sent. */
  act: LinkDecision["act"];
}

export interface UpstreamPreview {
  customers: number;
  checked: number;
  calls: number;
  failed: { customerUserId: string; reason: string }[];
  counts: UpstreamPlanSummary;
  /** Links the upstream holds as Linkdesk's record says it imported them, with nothing to add: "already imported". */
  recorded: number;
  /** Calls on links the upstream holds: transaction batches and tag or webhook updates. */
  updateCalls: { batches: number; updates: number };
  rows: UpstreamMatchRow[];
  more: number;
}

function knownLinks(report: FileReport, known: Map<string, KnownIdentity>): KnownLink[] {
  const out: KnownLink[] = [];
  for (const link of report.links) {
    const held =
      link.identityKey && link.problems.length === 0 && !link.duplicateOf ? known.get(link.identityKey) : undefined;
    if (held) out.push({ position: link.position, linkId: held.linkId, jobId: held.jobId, reason: heldReason(held) });
  }
  return out;
}

/** Plans (dry run) or starts the import of an uploaded file. */
export const importFile = actionClient
  .metadata({ action: "link.import_file", permission: "import" })
  .inputSchema(importUploadSchema)
  .action(async ({ parsedInput, ctx }): Promise<ImportFileResult> => {
    const { file, dryRun, identityTag, carryCategories } = parsedInput;
    const decisions: UpstreamDecisions = {
      addTransactions: parsedInput.addTransactions,
      applyChanges: parsedInput.applyChanges,
      importAnyway: parsedInput.importAnyway,
      sameLink: parsedInput.sameLink,
      replace: parsedInput.replace,
    };
    const { db } = await getDb();
    const bytes = new Uint8Array(await file.arrayBuffer());
    const sha256 = await sha256Hex(bytes);
    const identity = identityRuleOf(identityTag);
    ctx.note({
      targetType: "file",
      targetId: sha256,
      input: {
        fileName: file.name,
        bytes: bytes.length,
        dryRun,
        identity: describeIdentityRule(identity),
        carryCategories,
        addTransactions: decisions.addTransactions,
        applyChanges: decisions.applyChanges,
        importAnyway: decisions.importAnyway.length,
        sameLink: decisions.sameLink.length,
        replace: decisions.replace.length,
      },
    });

    const budget = await getBudget();
    const headroom = {
      imports: await callHeadroom(budget, IMPORT_ENDPOINT, {}),
      batches: await callHeadroom(budget, IMPORT_BATCH_ENDPOINT, { linkId: "·" }),
    };
    if (dryRun) {
      const legacyByPosition = new Map<number, number>();
      const { report } = await analyzeImportFile(bytes, {
        sha256,
        identity,
        legacyCategories: true,
        onPlan: (position, _plan, _link, legacy) =>
          void (legacy.length > 0 && legacyByPosition.set(position, legacy.length)),
      });
      const refused = refusalOf(report);
      if (refused) throw new ActionRefused(refused);
      const check = await checkFileWithUpstream(db, upstream(), { bytes, sha256 }, identity, {
        correlationId: ctx.correlationId,
      });
      const preview = upstreamPreview(report, check, decisions, await recordedLinks(db, check));
      const importing = new Set(preview.importing);
      const toImport = report.links.filter(
        (l) => l.problems.length === 0 && !l.duplicateOf && importing.has(l.position),
      );
      const known = knownLinks(
        report,
        await lookupImported(
          db,
          toImport.map((l) => l.identityKey!),
        ),
      );
      const held = new Set(known.map((k) => k.position));
      const fresh = toImport.filter((l) => !held.has(l.position));
      const calls = {
        imports: fresh.length,
        batches: fresh.reduce((sum, l) => sum + l.calls - 1, 0) + preview.view.updateCalls.batches,
      };
      const duration = estimateImportDuration(calls, headroom);
      const perLink = fresh.map((l) => legacyByPosition.get(l.position) ?? 0).filter((n) => n > 0);
      const categories = await categoryPhaseCost(perLink);
      ctx.note({
        after: {
          valid: fresh.length,
          invalid: report.invalid,
          duplicates: report.duplicates,
          alreadyImported: known.length,
          calls,
          upstream: preview.view.counts,
        },
      });
      return {
        outcome: "plan",
        valid: fresh.length,
        invalid: report.invalid,
        duplicates: report.duplicates,
        alreadyImported: known.length,
        transactions: fresh.reduce((sum, l) => sum + l.transactions, 0),
        calls,
        duration:
          fresh.length === 0 ? "nothing to send" : duration ? describeDuration(duration.seconds) : "a few seconds",
        binding:
          duration && fresh.length > 0
            ? `${duration.binding.endpoint} at ${duration.binding.limit}/min (${duration.binding.remaining} left now)`
            : "",
        invalidLinks: report.links
          .filter((l) => l.problems.length > 0)
          .slice(0, INVALID_LISTED)
          .map((l) => ({
            position: l.position,
            line: l.line,
            problems: l.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)),
          })),
        known,
        categories,
        upstream: preview.view,
      };
    }

    const actor = { id: ctx.staff.id, email: ctx.staff.email, role: ctx.staff.role };
    // Checked, planned and written in one pass: each link's calls go to the database as soon as they are planned.
    const started = await startImportJob(
      db,
      actor,
      { bytes, name: file.name || "upload.json", sha256 },
      (report) =>
        importConcurrency({
          importsPerMinute: headroom.imports[0]?.key.limit ?? 30,
          batchesPerMinute: headroom.batches[0]?.key.limit ?? 60,
          hasBatches: report.calls.batches > 0,
        }),
      identity,
      {
        carryCategories,
        upstream: {
          check: await checkFileWithUpstream(db, upstream(), { bytes, sha256 }, identity, {
            correlationId: ctx.correlationId,
          }),
          decisions,
        },
      },
    );
    if (started.outcome === "refused")
      throw new ActionRefused(refusalOf(started.report) ?? "The file cannot be imported.");
    if (started.outcome === "nothing_new") {
      const known = knownLinks(started.report, started.known);
      const jobIds = [...new Set(known.map((k) => k.jobId))];
      ctx.note({
        after: { nothingNew: true, alreadyImported: known.length, duplicates: started.report.duplicates, jobs: jobIds },
      });
      return {
        outcome: "nothing_new",
        alreadyImported: known.length,
        duplicates: started.report.duplicates,
        invalid: started.report.invalid,
        jobIds,
        known,
      };
    }
    const { report, job } = started;
    const params = job.params as ImportJobParams;
    ctx.note({
      targetType: "job",
      targetId: job.id,
      after: {
        job: job.id,
        links: params.links,
        invalid: report.invalid,
        duplicates: report.duplicates,
        alreadyImported: params.alreadyImported,
        calls: job.total,
      },
    });
    wakeJobRunner();
    return {
      outcome: "started",
      jobId: job.id,
      total: job.total,
      links: params.links,
      duplicates: report.duplicates,
      alreadyImported: params.alreadyImported ?? 0,
    };
  });

/**
 * The calls and time of the optional category phase: one Correct Enrichment call per transaction whose legacy category
 * could differ, paced by the per-link limit within each link and the per-app limit over all of them.
 */
async function categoryPhaseCost(perLink: number[]): Promise<{ corrections: number; links: number; duration: string }> {
  const corrections = perLink.reduce((a, b) => a + b, 0);
  if (corrections === 0) return { corrections: 0, links: 0, duration: "no calls" };
  const budget = await getBudget();
  const headroom = await callHeadroom(budget, CORRECTION_ENDPOINT, { linkId: "·" });
  const app = headroom.filter((h) => h.key.scope === "app");
  const link = headroom.filter((h) => h.key.scope === "link");
  const seconds = Math.max(
    estimateCost(corrections, app)?.seconds ?? 0,
    estimateCost(Math.max(...perLink), link)?.seconds ?? 0,
  );
  return { corrections, links: perLink.length, duration: seconds === 0 ? "a few seconds" : describeDuration(seconds) };
}

/** The upstream match of a file's links under ops' decisions: what the preview lists, and which links it imports. */
function upstreamPreview(
  report: FileReport,
  check: UpstreamCheck,
  decisions: UpstreamDecisions,
  recorded: ReadonlyMap<number, string>,
): { view: UpstreamPreview; importing: number[] } {
  const counts = emptySummary(check);
  const rows: UpstreamMatchRow[] = [];
  const importing: number[] = [];
  const updateCalls = { batches: 0, updates: 0 };
  let more = 0;
  let agreeing = 0;
  for (const link of report.links) {
    if (link.problems.length > 0 || link.duplicateOf) continue;
    const match = check.matches.get(link.position);
    const facts = check.files.get(link.position);
    const linkId = match && "linkId" in match ? match.linkId : null;
    const decision = decide(match, facts, linkId ? check.upstreamLinks.get(linkId) : undefined, decisions);
    // Linkdesk's record says the same: listed as already imported, with its import, as before.
    if (recordAgrees(decision, recorded.get(link.position))) {
      importing.push(link.position);
      agreeing++;
      continue;
    }
    countMatch(counts, match, decision);
    if (decision.act === "import" || decision.act === "replace") importing.push(link.position);
    if (decision.act === "update") {
      // Batches under the upstream's limits: about one per 4,000 transactions (or per 1 MB).
      updateCalls.batches += Math.ceil(decision.newTransactions.length / IMPORT_MAX_TRANSACTIONS);
      if (decision.update) updateCalls.updates++;
    }
    if (!match || match.kind === "new") continue;
    if (rows.length >= MATCHES_LISTED) {
      more++;
      continue;
    }
    const diff = match.kind === "same" || match.kind === "possible" ? match.diff : null;
    rows.push({
      position: link.position,
      line: link.line,
      where: whereInFile(link),
      kind: match.kind,
      linkId: linkId ?? (match.kind === "ambiguous" ? (match.linkIds[0] ?? null) : null),
      linkIds: match.kind === "ambiguous" ? match.linkIds : linkId ? [linkId] : [],
      said: describeMatch(match),
      differences: diff ? describeDiff(diff) : null,
      newTransactions: diff ? (diff.newTransactions?.length ?? null) : null,
      fixed: diff?.fixed ?? [],
      key:
        linkId && (match.kind === "possible" || match.kind === "deleted" || (diff?.fixed.length ?? 0) > 0)
          ? decisionKey(link.position, linkId)
          : null,
      act: decision.act,
    });
  }
  return {
    view: {
      customers: check.customers,
      checked: check.checked,
      calls: check.calls,
      failed: check.failed.slice(0, 20),
      counts,
      recorded: agreeing,
      updateCalls,
      rows,
      more,
    },
    importing,
  };
}

/** Why a file cannot be imported at all (unreadable, or no link that can go), or null. */
function refusalOf(report: FileReport): string | null {
  if (report.fileProblem) return report.fileProblem.message;
  if (report.valid === 0) {
    return `None of the ${report.links.length.toLocaleString("en-US")} link${report.links.length === 1 ? "" : "s"} in the file can be imported; fix the problems listed and upload it again.`;
  }
  return null;
}

/** Takes up a cancelled import again: its cancelled calls were never sent, so nothing can be doubled. */
export const resumeImport = actionClient
  .metadata({ action: "job.resume", permission: "import" })
  .inputSchema(jobIdSchema)
  .action(async ({ parsedInput: { jobId }, ctx }) => {
    const { db } = await getDb();
    ctx.note({ targetType: "job", targetId: jobId, before: { state: "cancelled" } });
    if (!(await resumeCancelledImport(db, jobId)))
      throw new ActionRefused("Only a cancelled import with calls left, and none still being checked, can be resumed.");
    ctx.note({ after: { state: "running" } });
    wakeJobRunner();
    return { state: "running" as const };
  });

/** What undoing an import would delete, for the confirmation: how many links, and which changed since the import. */
export const previewImportUndo = actionClient
  .metadata({ action: "link.import_undo", permission: "import" })
  .inputSchema(jobIdSchema)
  .action(async ({ parsedInput: { jobId }, ctx }) => {
    const { db } = await getDb();
    ctx.note({ targetType: "job", targetId: jobId, input: { preview: true } });
    const plan = await planImportUndo(db, jobId);
    if (!plan) throw new ActionRefused("There is no such import.");
    return {
      links: plan.links.length,
      changed: plan.links.filter((l) => l.changed).slice(0, 200),
      changedCount: plan.links.filter((l) => l.changed).length,
    };
  });

/** Deletes the links an import created, as a durable job; links reconnected since are kept unless ticked. */
export const undoImport = actionClient
  .metadata({ action: "link.import_undo", permission: "import" })
  .inputSchema(importUndoSchema)
  .action(async ({ parsedInput: { jobId, include }, ctx }) => {
    const { db } = await getDb();
    ctx.note({ targetType: "job", targetId: jobId, input: { include: include.length } });
    const started = await startImportUndo(
      db,
      { id: ctx.staff.id, email: ctx.staff.email, role: ctx.staff.role },
      jobId,
      include,
    );
    if (started.outcome === "refused") throw new ActionRefused(started.reason);
    ctx.note({ after: { job: started.job.id, deleting: started.deleting, keeping: started.keeping } });
    wakeJobRunner();
    return { jobId: started.job.id, deleting: started.deleting, keeping: started.keeping };
  });
