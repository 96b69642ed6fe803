import "server-only";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { appendAudit } from "../audit/append";
import type { Db } from "../db/client";
import { normalizeEmail, staff, type Staff } from "../db/schema";
import { isDemoEmail } from "./demo";
import { verifyAgainstDecoy, verifyPassword } from "./password";
import { type Role, isRole } from "./roles";
import { admitSignInAttempt, settleSignInAttempt } from "./sign-in-attempts";

export interface SignedInStaff {
  id: string;
  email: string;
  name: string | null;
  role: Role;
}

export type CredentialsResult =
  { ok: true; staff: SignedInStaff } | { ok: false; reason: "invalid" } | { ok: false; reason: "locked"; until: Date };

export interface CredentialsContext {
  db: Db;
  ip: string | null;
  /** Demo accounts are accepted only when the upstream is the bundled sandbox. */
  demoMode: boolean;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Checks an email and password, slowing and then refusing repeated failures per account and per address. The answer
 * and its timing are the same whether or not the email exists. Every attempt is recorded and audited; the password
 * is checked only once the attempt has been counted (sign-in-attempts.ts).
 */
export async function verifyCredentials(
  emailInput: string,
  password: string,
  ctx: CredentialsContext,
): Promise<CredentialsResult> {
  const now = ctx.now ?? Date.now;
  const email = normalizeEmail(emailInput);
  const subjects = [`email:${email}`, ...(ctx.ip ? [`ip:${ctx.ip}`] : [])];
  const correlationId = randomUUID();

  const audit = (outcome: "ok" | "refused", account: Staff | undefined, reason?: string) =>
    appendAudit(
      {
        actor: account ? { id: account.id, email: account.email, role: account.role } : { id: null, email, role: null },
        action: "auth.sign_in",
        outcome,
        correlationId,
        targetType: "staff",
        targetId: account?.id,
        input: { email, ...(reason ? { reason } : {}) },
        ip: ctx.ip,
      },
      ctx.db,
    );

  // Counted before the password is checked, so attempts sent at once cannot outrun the lock.
  const admission = await admitSignInAttempt(ctx.db, subjects, now);
  if (admission.kind === "locked") {
    await audit("refused", undefined, "locked");
    return { ok: false, reason: "locked", until: admission.until };
  }
  if (admission.delayMs > 0) await (ctx.sleep ?? defaultSleep)(admission.delayMs);

  const [account] = await ctx.db.select().from(staff).where(eq(staff.email, email)).limit(1);
  const usable =
    account &&
    account.disabledAt === null &&
    account.passwordHash !== null &&
    isRole(account.role) &&
    (ctx.demoMode || !isDemoEmail(email));
  const valid = usable ? await verifyPassword(password, account.passwordHash!) : await verifyAgainstDecoy(password);
  await settleSignInAttempt(ctx.db, admission.attemptIds, valid);

  if (!valid || !account) {
    await audit("refused", account, account?.disabledAt ? "disabled" : "invalid credentials");
    return { ok: false, reason: "invalid" };
  }
  await audit("ok", account);
  return { ok: true, staff: { id: account.id, email: account.email, name: account.name, role: account.role as Role } };
}
