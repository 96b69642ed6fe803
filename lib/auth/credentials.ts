import "server-only";
import { randomUUID } from "node:crypto";
import { and, eq, gt, inArray, lt } from "drizzle-orm";
import { appendAudit } from "../audit/append";
import type { Db } from "../db/client";
import { normalizeEmail, signInAttempts, staff, type Staff } from "../db/schema";
import { isDemoEmail } from "./demo";
import { verifyAgainstDecoy, verifyPassword } from "./password";
import { type Role, isRole } from "./roles";
import { THROTTLE_WINDOW_MS, decideThrottle, strictest } from "./throttle";

export interface SignedInStaff {
  id: string;
  email: string;
  name: string | null;
  role: Role;
}

export type CredentialsResult =
  | { ok: true; staff: SignedInStaff }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "locked"; until: Date };

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
 * and its timing are the same whether or not the email exists. Every attempt is recorded and audited.
 */
export async function verifyCredentials(emailInput: string, password: string, ctx: CredentialsContext): Promise<CredentialsResult> {
  const now = ctx.now ?? Date.now;
  const email = normalizeEmail(emailInput);
  const subjects = [`email:${email}`, ...(ctx.ip ? [`ip:${ctx.ip}`] : [])];
  const correlationId = randomUUID();

  const recent = await ctx.db
    .select({ subject: signInAttempts.subject, at: signInAttempts.at, succeeded: signInAttempts.succeeded })
    .from(signInAttempts)
    .where(and(inArray(signInAttempts.subject, subjects), gt(signInAttempts.at, new Date(now() - THROTTLE_WINDOW_MS))));
  const decision = strictest(subjects.map((subject) => decideThrottle(failuresSinceSuccess(recent, subject), now())));

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

  if (decision.kind === "locked") {
    // Not recorded as another failure: the lock must end when announced, not keep moving.
    await audit("refused", undefined, "locked");
    return { ok: false, reason: "locked", until: decision.until };
  }
  if (decision.delayMs > 0) await (ctx.sleep ?? defaultSleep)(decision.delayMs);

  const [account] = await ctx.db.select().from(staff).where(eq(staff.email, email)).limit(1);
  const usable =
    account && account.disabledAt === null && account.passwordHash !== null && isRole(account.role) && (ctx.demoMode || !isDemoEmail(email));
  const valid = usable ? await verifyPassword(password, account.passwordHash!) : await verifyAgainstDecoy(password);

  await ctx.db.insert(signInAttempts).values(subjects.map((subject) => ({ subject, succeeded: valid, at: new Date(now()) })));
  // Only the throttle window matters: older attempts of these subjects go (the audit trail keeps the history).
  await ctx.db
    .delete(signInAttempts)
    .where(and(inArray(signInAttempts.subject, subjects), lt(signInAttempts.at, new Date(now() - THROTTLE_WINDOW_MS))));
  if (!valid || !account) {
    await audit("refused", account, account?.disabledAt ? "disabled" : "invalid credentials");
    return { ok: false, reason: "invalid" };
  }
  await audit("ok", account);
  return { ok: true, staff: { id: account.id, email: account.email, name: account.name, role: account.role as Role } };
}

function failuresSinceSuccess(rows: { subject: string; at: Date; succeeded: boolean }[], subject: string): number[] {
  const mine = rows.filter((r) => r.subject === subject);
  const lastSuccess = Math.max(0, ...mine.filter((r) => r.succeeded).map((r) => r.at.getTime()));
  return mine.filter((r) => !r.succeeded && r.at.getTime() > lastSuccess).map((r) => r.at.getTime());
}
