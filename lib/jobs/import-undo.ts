import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { type Job, importedLinks, jobs, links } from "../db/schema";
import { isUpstreamError } from "../upstream/errors";
import type { WireLink } from "../upstream/schemas";
import { linksCreatedBy, markImportedLinkDeleted } from "./imported-links";
import { IMPORT_KIND } from "./import-items";
import { type ItemContext, type JobKind, SkipItem, type Verification } from "./kind-contract";
import { type Actor, insertJob } from "./store";
import { forgetUpstreamChecks } from "./import-upstream";

// Undoing an import: "delete the links this import created", as a durable job of DELETE /links/{id} calls through the
// rate budget. The upstream keeps a deleted link readable, in state `deleted`, for 90 days, then removes it (the
// spec's deletion rule); its identity is then free, so a later file may import it again. A link whose state is no
// longer what the import left (reconnected since: its customer linked it again) is kept unless ops tick it.

export const IMPORT_UNDO_KIND = "import-undo";
export const DELETE_ENDPOINT = "DELETE /links/{id}";

export const importUndoItemSchema = z.object({
  linkId: z.string().min(1),
  /** As the import call answered: a link found in another state when its turn comes was reconnected since. */
  importedState: z.string().nullable(),
  importedErrorCode: z.string().nullable(),
  /** Ops ticked it: deleted even if it changed since the import. */
  evenIfChanged: z.boolean(),
});
export type ImportUndoItem = z.infer<typeof importUndoItemSchema>;

export interface ImportUndoResult {
  linkId: string;
  /** Already deleted when its turn came (or gone: 404). */
  already?: boolean;
}

export const gone = (error: unknown) => isUpstreamError(error) && (error.status === 404 || error.status === 410);

/** The link as the upstream has it now, or null when it is deleted or gone. */
export async function currentLink(ctx: ItemContext, linkId: string): Promise<WireLink | null> {
  try {
    const link = await ctx.api.getLink(linkId, ctx.readOptions);
    return link.state === "deleted" ? null : link;
  } catch (error) {
    if (gone(error)) return null;
    throw error;
  }
}

const describeState = (state: string | null, code: string | null | undefined) =>
  state === "error" && code ? `error (${code})` : (state ?? "unknown");

/** Whether a link changed since its import: its state or error code is no longer what the import call answered. */
export function changedSinceImport(
  imported: { state: string | null; errorCode: string | null },
  now: { state: string | null; errorCode: string | null },
): boolean {
  return (
    imported.state !== null &&
    (now.state !== imported.state || (now.errorCode ?? null) !== (imported.errorCode ?? null))
  );
}

export const importUndoKind: JobKind<ImportUndoItem, ImportUndoResult> = {
  kind: IMPORT_UNDO_KIND,
  label: "Undo of an import",
  permission: "import",
  concurrency: 4,
  endpoint: DELETE_ENDPOINT,
  inputSchema: importUndoItemSchema,
  async execute(input, ctx) {
    const now = await currentLink(ctx, input.linkId);
    if (!now) {
      await markImportedLinkDeleted(ctx.db, input.linkId);
      return { linkId: input.linkId, already: true };
    }
    const changed = changedSinceImport(
      { state: input.importedState, errorCode: input.importedErrorCode },
      { state: now.state, errorCode: now.error_code ?? null },
    );
    if (changed && !input.evenIfChanged) {
      throw new SkipItem(
        `Kept: it is ${describeState(now.state, now.error_code)} now, not ${describeState(input.importedState, input.importedErrorCode)} as imported (reconnected since). Tick it to delete it too.`,
      );
    }
    try {
      await ctx.api.deleteLink(input.linkId, ctx.callOptions);
      forgetUpstreamChecks();
    } catch (error) {
      if (!gone(error)) throw error;
    }
    await markImportedLinkDeleted(ctx.db, input.linkId);
    // The read model learns the new state (the listing no longer holds a deleted link).
    await ctx.api.getLink(input.linkId, ctx.readOptions).catch(() => undefined);
    return { linkId: input.linkId };
  },
  async verify(input, ctx): Promise<Verification<ImportUndoResult>> {
    if (await currentLink(ctx, input.linkId)) return { applied: false };
    await markImportedLinkDeleted(ctx.db, input.linkId);
    return { applied: true, result: { linkId: input.linkId } };
  },
  audit(input, job) {
    return {
      action: "link.delete",
      targetType: "link",
      targetId: input.linkId,
      linkId: input.linkId,
      input: {
        import: job.undoesJobId,
        evenIfChanged: input.evenIfChanged,
        imported: describeState(input.importedState, input.importedErrorCode),
      },
    };
  },
  describeResult(result) {
    return result.already ? `${result.linkId}: already deleted` : `${result.linkId}: deleted`;
  },
};

/** A link an undo would delete, with what the read model says of it now. */
export interface UndoCandidate {
  linkId: string;
  line: number;
  customerUserId: string;
  imported: string;
  now: string;
  changed: boolean;
}

/** What undoing an import would delete: its links still there, and which of them changed since (by the read model). */
export async function planImportUndo(db: Db, jobId: string): Promise<{ job: Job; links: UndoCandidate[] } | null> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, jobId));
  if (!job || job.kind !== IMPORT_KIND) return null;
  const created = await linksCreatedBy(db, jobId);
  const ids = created.map((c) => c.linkId!).filter(Boolean);
  const known = new Map<string, { state: string | null; errorCode: string | null }>();
  for (let i = 0; i < ids.length; i += 1_000) {
    const rows = await db
      .select({ linkId: links.linkId, state: links.state, errorCode: links.errorCode })
      .from(links)
      .where(inArray(links.linkId, ids.slice(i, i + 1_000)));
    for (const row of rows) known.set(row.linkId, row);
  }
  const candidates: UndoCandidate[] = [];
  for (const c of created) {
    if (!c.linkId) continue;
    const now = known.get(c.linkId) ?? { state: c.importedState, errorCode: c.importedErrorCode };
    if (now.state === "deleted") continue;
    candidates.push({
      linkId: c.linkId,
      line: c.line,
      customerUserId: c.customerUserId,
      imported: describeState(c.importedState, c.importedErrorCode),
      now: describeState(now.state, now.errorCode),
      changed: changedSinceImport({ state: c.importedState, errorCode: c.importedErrorCode }, now),
    });
  }
  return { job, links: candidates };
}

export type StartUndoResult =
  { outcome: "started"; job: Job; deleting: number; keeping: number } | { outcome: "refused"; reason: string };

/**
 * Starts the undo of an import: one DELETE per link it created, except links changed since that ops did not tick
 * (`include`), which are planned as skipped with the reason. One undo of an import runs at a time.
 */
export async function startImportUndo(
  db: Db,
  actor: Actor,
  jobId: string,
  include: readonly string[],
): Promise<StartUndoResult> {
  const plan = await planImportUndo(db, jobId);
  if (!plan) return { outcome: "refused", reason: "There is no such import." };
  if (plan.job.state === "running" || plan.job.state === "paused") {
    return {
      outcome: "refused",
      reason:
        "The import is still running: pause or cancel it, and let it finish its calls in flight, before undoing it.",
    };
  }
  const [running] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(eq(jobs.kind, IMPORT_UNDO_KIND), eq(jobs.undoesJobId, jobId), sql`${jobs.state} in ('running', 'paused')`),
    );
  if (running) return { outcome: "refused", reason: `An undo of this import is already running (job ${running.id}).` };
  if (plan.links.length === 0) return { outcome: "refused", reason: "This import has no links left to delete." };
  const ticked = new Set(include);
  const keeping = plan.links.filter((l) => l.changed && !ticked.has(l.linkId));
  const rows = await db.select().from(importedLinks).where(eq(importedLinks.jobId, jobId));
  const byLink = new Map(rows.map((r) => [r.linkId, r]));
  const job = await insertJob(db, {
    kind: IMPORT_UNDO_KIND,
    title: `Undo of “${plan.job.title}”: delete ${plan.links.length - keeping.length} link${plan.links.length - keeping.length === 1 ? "" : "s"}`,
    params: { importJobId: jobId, links: plan.links.length, keeping: keeping.length },
    concurrency: importUndoKind.concurrency,
    createdBy: actor,
    undoesJobId: jobId,
    items: plan.links.map((l) => {
      const row = byLink.get(l.linkId);
      const keep = keeping.includes(l);
      return {
        linkId: l.linkId,
        targetId: `line ${l.line}`,
        input: {
          linkId: l.linkId,
          importedState: row?.importedState ?? null,
          importedErrorCode: row?.importedErrorCode ?? null,
          evenIfChanged: ticked.has(l.linkId),
        } satisfies ImportUndoItem,
        ...(keep
          ? {
              state: "skipped" as const,
              reason: `Kept: it is ${l.now} now, not ${l.imported} as imported (reconnected since); not ticked.`,
            }
          : {}),
      };
    }),
  });
  return { outcome: "started", job, deleting: plan.links.length - keeping.length, keeping: keeping.length };
}
