"use server";

import type { AuditAction } from "../audit/actions";
import { PERMISSION_LABELS, ROLE_LABELS, can } from "../auth/roles";
import { getDb } from "../db/client";
import { wakeJobRunner } from "../jobs";
import { PlanRefused, startUndoJob } from "../jobs/correction";
import { jobKind } from "../jobs/kind-registry";
import { type JobControl, applyControl, readJob } from "../jobs/store";
import { jobIdSchema } from "../schemas/jobs";
import { upstream } from "../upstream";
import { ActionRefused, actionClient } from "./safe-action";

// Controls of a durable job. Reading jobs needs only sign-in; controlling one needs the permission of its kind (the
// role that may start such a job; admins always), checked here on the server for every call.

const pastTense: Record<JobControl, string> = {
  pause: "paused",
  resume: "resumed",
  cancel: "cancelled",
  retry: "retried",
};

function controlAction(control: JobControl, action: AuditAction) {
  return actionClient
    .metadata({ action, permission: "read" })
    .inputSchema(jobIdSchema)
    .action(async ({ parsedInput: { jobId }, ctx }) => {
      const { db } = await getDb();
      const job = await readJob(db, jobId);
      if (!job) throw new ActionRefused("There is no such job.");
      ctx.note({ targetType: "job", targetId: job.id, linkId: job.linkId ?? undefined, before: { state: job.state } });
      const permission = jobKind(job.kind)?.permission ?? "manageStaff";
      if (!can(ctx.staff.role, permission)) {
        ctx.note({ input: { reason: `role ${ctx.staff.role} lacks ${permission}`, kind: job.kind } });
        throw new ActionRefused(
          `Your role (${ROLE_LABELS[ctx.staff.role]}) may not ${PERMISSION_LABELS[permission]}, so it may not control this job.`,
        );
      }
      const state = await applyControl(db, job.id, control, ctx.staff.email);
      if (!state) throw new ActionRefused(`This job is ${job.state}: it cannot be ${pastTense[control]}.`);
      ctx.note({ after: { state } });
      wakeJobRunner();
      return { state };
    });
}

/** No new calls start; calls in flight finish. */
export const pauseJob = controlAction("pause", "job.pause");
export const resumeJob = controlAction("resume", "job.resume");
/** Every call not yet made is cancelled; calls in flight finish and are recorded. */
export const cancelJob = controlAction("cancel", "job.cancel");
/** The failed items (and those that waited on them) are tried again. */
export const retryJob = controlAction("retry", "job.retry");

/** Undoes a finished correction job as a job of its own; transactions changed again since are left as they are. */
export const undoJob = actionClient
  .metadata({ action: "job.undo", permission: "correct" })
  .inputSchema(jobIdSchema)
  .action(async ({ parsedInput: { jobId }, ctx }) => {
    const { db } = await getDb();
    ctx.note({ targetType: "job", targetId: jobId });
    const actor = { id: ctx.staff.id, email: ctx.staff.email, role: ctx.staff.role };
    const job = await startUndoJob(db, upstream(), actor, jobId, { correlationId: ctx.correlationId }).catch(
      (error: unknown) => {
        throw error instanceof PlanRefused ? new ActionRefused(error.message) : error;
      },
    );
    ctx.note({ linkId: job.linkId ?? undefined, after: { undoJob: job.id } });
    wakeJobRunner();
    return { jobId: job.id };
  });
