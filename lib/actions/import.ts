"use server";

import { getBudget } from "../budget";
import { callHeadroom, describeDuration } from "../budget/headroom";
import { getDb } from "../db/client";
import { wakeJobRunner } from "../jobs";
import { IMPORT_BATCH_ENDPOINT, IMPORT_ENDPOINT, findImportJobByHash, importConcurrency, resumeCancelledImport, startImportJob } from "../jobs/import";
import { readJobView } from "../jobs/view";
import { type FileReport, analyzeImportFile, sha256Hex } from "../import/analyze";
import { estimateImportDuration } from "../import/plan";
import { jobIdSchema } from "../schemas/jobs";
import { importUploadSchema } from "../schemas/import";
import { ActionRefused, actionClient } from "./safe-action";

// Importing a file of links. The server reads the file itself (the same code as the page's worker), validates every
// link again, and plans the calls: the browser's preview is never trusted. The same file (by content hash) is never
// imported twice: its job is answered instead.

/** Invalid links listed back to the page at most (the page has the full list from its own reading). */
const INVALID_LISTED = 50;

export type ImportFileResult =
  | { outcome: "existing"; jobId: string; state: string; title: string; resumable: boolean }
  | {
      outcome: "plan";
      valid: number;
      invalid: number;
      transactions: number;
      calls: { imports: number; batches: number };
      duration: string;
      binding: string;
      invalidLinks: { position: number; line: number; problems: string[] }[];
    }
  | { outcome: "started"; jobId: string; total: number };

/** Plans (dry run) or starts the import of an uploaded file. */
export const importFile = actionClient
  .metadata({ action: "link.import_file", permission: "import" })
  .inputSchema(importUploadSchema)
  .action(async ({ parsedInput: { file, dryRun }, ctx }): Promise<ImportFileResult> => {
    const { db } = await getDb();
    const bytes = new Uint8Array(await file.arrayBuffer());
    const sha256 = await sha256Hex(bytes);
    ctx.note({ targetType: "file", targetId: sha256, input: { fileName: file.name, bytes: bytes.length, dryRun } });

    const existing = await findImportJobByHash(db, sha256);
    if (existing) {
      const view = await readJobView(db, existing.id);
      ctx.note({ after: { existingJob: existing.id } });
      return {
        outcome: "existing",
        jobId: existing.id,
        state: existing.state,
        title: existing.title,
        resumable: existing.state === "cancelled" && (view?.counts.cancelled ?? 0) > 0 && (view?.counts.sent ?? 0) === 0,
      };
    }

    const budget = await getBudget();
    const headroom = { imports: await callHeadroom(budget, IMPORT_ENDPOINT, {}), batches: await callHeadroom(budget, IMPORT_BATCH_ENDPOINT, { linkId: "·" }) };
    if (dryRun) {
      const { report } = await analyzeImportFile(bytes, { sha256 });
      const refused = refusalOf(report);
      if (refused) throw new ActionRefused(refused);
      const duration = estimateImportDuration(report.calls, headroom);
      ctx.note({ after: { valid: report.valid, invalid: report.invalid, calls: report.calls } });
      return {
        outcome: "plan",
        valid: report.valid,
        invalid: report.invalid,
        transactions: report.transactions,
        calls: report.calls,
        duration: duration ? describeDuration(duration.seconds) : "a few seconds",
        binding: duration ? `${duration.binding.endpoint} at ${duration.binding.limit}/min (${duration.binding.remaining} left now)` : "",
        invalidLinks: report.links
          .filter((l) => l.problems.length > 0)
          .slice(0, INVALID_LISTED)
          .map((l) => ({ position: l.position, line: l.line, problems: l.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)) })),
      };
    }

    const actor = { id: ctx.staff.id, email: ctx.staff.email, role: ctx.staff.role };
    // Checked, planned and written in one pass: each link's calls go to the database as soon as they are planned.
    const started = await startImportJob(db, actor, { bytes, name: file.name || "upload.json", sha256 }, (report) =>
      importConcurrency({
        importsPerMinute: headroom.imports[0]?.key.limit ?? 30,
        batchesPerMinute: headroom.batches[0]?.key.limit ?? 60,
        hasBatches: report.calls.batches > 0,
      }),
    );
    if (started.outcome === "refused") throw new ActionRefused(refusalOf(started.report) ?? "The file cannot be imported.");
    if (started.outcome === "existing") {
      // Someone started the same file a moment ago.
      return { outcome: "existing", jobId: started.existing.id, state: started.existing.state, title: started.existing.title, resumable: false };
    }
    const { report } = started;
    ctx.note({ targetType: "job", targetId: started.job.id, after: { job: started.job.id, links: report.valid, invalid: report.invalid, calls: started.job.total } });
    wakeJobRunner();
    return { outcome: "started", jobId: started.job.id, total: started.job.total };
  });

/** Why a file cannot be imported at all (unreadable, or no link that can go), or null. */
function refusalOf(report: FileReport): string | null {
  if (report.fileProblem) return report.fileProblem.message;
  if (report.valid === 0) return `None of the ${report.links.length} link${report.links.length === 1 ? "" : "s"} in the file can be imported; fix the problems listed and upload it again.`;
  return null;
}

/** Takes up a cancelled import again: its cancelled calls were never sent, so nothing can be doubled. */
export const resumeImport = actionClient
  .metadata({ action: "job.resume", permission: "import" })
  .inputSchema(jobIdSchema)
  .action(async ({ parsedInput: { jobId }, ctx }) => {
    const { db } = await getDb();
    ctx.note({ targetType: "job", targetId: jobId, before: { state: "cancelled" } });
    if (!(await resumeCancelledImport(db, jobId))) throw new ActionRefused("Only a cancelled import with calls left, and none still being checked, can be resumed.");
    ctx.note({ after: { state: "running" } });
    wakeJobRunner();
    return { state: "running" as const };
  });
