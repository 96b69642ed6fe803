import "server-only";
import { randomUUID } from "node:crypto";
import { createSafeActionClient } from "next-safe-action";
import { headers } from "next/headers";
import { z } from "zod";
import { type AuditRecord, appendAudit } from "../audit/append";
import { AUDIT_ACTION_KEYS, isPersonalAction, PERSONAL_ACTION_KEYS } from "../audit/actions";
import { describeScope, isBudgetExceeded, isBudgetUnavailable, secondsUntil } from "../budget/budget";
import { brandError, hasErrorBrand } from "../error-brand";
import { clientAddress, sessionAccount } from "../auth";
import { databaseErrorOf } from "../db/errors";
import { PERMISSION_LABELS, PERMISSIONS, ROLE_LABELS, can } from "../auth/roles";
import { describeUnstorable, findUnstorable, storableDeep } from "../http/storable-input";
import { logger } from "../logger";
import { describeUpstreamError, isUpstreamError } from "../upstream/errors";

// Every server action is built from this client: sign-in check, role check, input validation (the same zod schema
// the form uses), audit and error mapping happen here, so no action body can skip them. Server actions can be called
// by a direct POST, so the checks live here and not only in the UI or the proxy.
//
// Before any schema, every action's input is searched for text the database cannot store (a NUL, half of a surrogate
// pair: lib/http/storable-input.ts), wherever it sits, field names included: refused in words and audited, it never
// reaches a query. What the audit trail records is made storable too (an upstream's answer may hold such text), and
// writing it never turns an action's answer into a bare 500.

/** A refusal whose message is safe and useful to show (no secrets, no internals). */
export class ActionRefused extends Error {
  /** Its message is meant for the person (the action client hands it over as is). */
  readonly safeMessage = true;

  constructor(message: string) {
    super(message);
    this.name = "ActionRefused";
    brandError(this, "ActionRefused");
  }
}

/** Whether `error` is an ActionRefused, whichever server chunk's copy of the class made it (never use instanceof). */
export function isActionRefused(error: unknown): error is ActionRefused {
  return hasErrorBrand(error, "ActionRefused");
}

/** What an action body adds to its audit row through `ctx.note`. */
export type AuditNote = Partial<
  Pick<
    AuditRecord,
    "targetType" | "targetId" | "linkId" | "input" | "before" | "after" | "upstreamStatus" | "upstreamErrorCode"
  >
> & {
  /** Set when the body refused the request (ActionRefused): audited as "refused", not as a failure. */
  refused?: boolean;
};

const metadataSchema = z.object({
  action: z.enum([...AUDIT_ACTION_KEYS, ...PERSONAL_ACTION_KEYS]),
  permission: z.enum(Object.keys(PERMISSIONS) as [keyof typeof PERMISSIONS, ...(keyof typeof PERMISSIONS)[]]),
});

export const actionClient = createSafeActionClient({
  defineMetadataSchema: () => metadataSchema,
  defaultValidationErrorsShape: "flattened",
  handleServerError(error, { ctx }) {
    const context = ctx as { correlationId?: string; note?: (n: AuditNote) => void } | undefined;
    const reference = context?.correlationId;
    if (isActionRefused(error)) {
      context?.note?.({ refused: true });
      return error.message;
    }
    if (isBudgetExceeded(error)) {
      // Nothing was sent: the rate budget refused the call before it reached the upstream.
      context?.note?.({ refused: true });
      return `Not sent: Linkdesk's share of the upstream's rate limit (${describeScope(error.blockedBy)}) is used up. Next slot in ${secondsUntil(error.nextSlotAt)} s.`;
    }
    if (isBudgetUnavailable(error)) return error.message;
    if (isUpstreamError(error)) {
      const { title, detail } = describeUpstreamError(error);
      return `${title}. ${detail}`;
    }
    // A failed query's message quotes its parameters (a password hash, say): log the database's own error instead.
    const dbError = databaseErrorOf(error);
    logger().error(
      dbError ? { db: dbError, correlationId: reference } : { err: error, correlationId: reference },
      "server action failed",
    );
    return `Something went wrong on Linkdesk's side.${reference ? ` Reference: ${reference}` : ""}`;
  },
}).use(async ({ next, metadata, clientInput }) => {
  const correlationId = randomUUID();
  const account = await sessionAccount();
  const ip = clientAddress(await headers());
  if (!account) {
    // Nobody identified: nothing to attribute, so no audit row (anonymous traffic must not flood the trail).
    throw new ActionRefused("Your session has ended. Sign in again to continue.");
  }
  const staff = { id: account.id, email: account.email, name: account.name, role: account.role };
  const { action } = metadata;
  if (isPersonalAction(action)) {
    // The person's own settings: session and permission checked, nothing audited (see PERSONAL_ACTIONS).
    if (account.passwordChangeRequired)
      throw new ActionRefused(
        "Choose your own password first: the one you were given serves only to sign in and do that.",
      );
    if (!can(staff.role, metadata.permission))
      throw new ActionRefused(
        `Your role (${ROLE_LABELS[staff.role]}) may not ${PERMISSION_LABELS[metadata.permission]}.`,
      );
    const unstorable = findUnstorable(clientInput);
    if (unstorable) throw new ActionRefused(describeUnstorable(unstorable));
    const unrecorded: (more: AuditNote) => void = () => undefined;
    return next({ ctx: { staff, correlationId, note: unrecorded } });
  }
  const actor = { id: staff.id, email: staff.email, role: staff.role };
  const base: Pick<AuditRecord, "actor" | "action" | "correlationId" | "ip"> = { actor, action, correlationId, ip };

  // Signed in with a one-time password: choosing one's own is the only thing allowed, by a click or a direct POST.
  if (account.passwordChangeRequired && action !== "auth.change_password") {
    await audit({
      ...base,
      outcome: "refused",
      input: { reason: "one-time password not yet replaced", fields: inputKeys(clientInput) },
    });
    throw new ActionRefused(
      "Choose your own password first: the one you were given serves only to sign in and do that.",
    );
  }

  if (!can(staff.role, metadata.permission)) {
    await audit({
      ...base,
      outcome: "refused",
      input: { reason: `role ${staff.role} lacks ${metadata.permission}`, fields: inputKeys(clientInput) },
    });
    throw new ActionRefused(
      `Your role (${ROLE_LABELS[staff.role]}) may not ${PERMISSION_LABELS[metadata.permission]}.`,
    );
  }

  const unstorable = findUnstorable(clientInput);
  if (unstorable) {
    await audit({
      ...base,
      outcome: "refused",
      input: { reason: `input holds ${unstorable.what}`, field: unstorable.path },
    });
    throw new ActionRefused(describeUnstorable(unstorable));
  }

  // The body adds what it knows (target, before/after, upstream outcome) through note(); a closure, because ctx is
  // copied between middleware layers.
  const noted: AuditNote = {};
  const note = (more: AuditNote) => Object.assign(noted, more);
  const result = await next({ ctx: { staff, correlationId, note } });

  const { refused, ...facts } = noted;
  const outcome = result.success
    ? "ok"
    : result.validationErrors
      ? "invalid"
      : refused
        ? "refused"
        : facts.upstreamStatus !== undefined || facts.upstreamErrorCode !== undefined
          ? "upstream_error"
          : "error";
  await audit({
    ...base,
    ...facts,
    outcome,
    input:
      facts.input ??
      (outcome === "invalid" ? { invalidFields: Object.keys(fieldErrors(result.validationErrors)) } : undefined),
  });
  return result;
});

/**
 * Appends an action's audit row with every free text made storable. Should the database still refuse it (down, say),
 * the failure is logged with the row's identity and the action's answer stands: a failed write must not become a
 * bare 500 whose log line quotes the row (and the person's email) as the query's parameters.
 */
async function audit(record: AuditRecord): Promise<void> {
  const { actor, action, outcome, correlationId, ip, upstreamStatus, ...text } = record;
  try {
    await appendAudit({
      actor,
      action,
      outcome,
      correlationId,
      ip,
      upstreamStatus,
      ...(storableDeep(text) as typeof text),
    });
  } catch (error) {
    logger().error(
      { db: databaseErrorOf(error), action, outcome, correlationId, actorId: actor?.id },
      "audit row not written",
    );
  }
}

/** Runs an upstream call and notes its outcome for the audit row, rethrowing failures for the error mapping. */
export async function noteUpstream<T>(
  note: (n: AuditNote) => void,
  call: () => Promise<T>,
  successStatus = 200,
): Promise<T> {
  try {
    const result = await call();
    note({ upstreamStatus: successStatus });
    return result;
  } catch (error) {
    if (isUpstreamError(error))
      note({ upstreamStatus: error.status ?? 0, upstreamErrorCode: error.errorCode ?? error.kind });
    throw error;
  }
}

function inputKeys(input: unknown): string[] | undefined {
  return input && typeof input === "object" && !Array.isArray(input) ? Object.keys(input).slice(0, 20) : undefined;
}

function fieldErrors(validationErrors: unknown): Record<string, unknown> {
  const fe = (validationErrors as { fieldErrors?: Record<string, unknown> } | undefined)?.fieldErrors;
  return fe ?? {};
}
