import "server-only";
import { randomUUID } from "node:crypto";
import { userInfo } from "node:os";
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { type AuditActor, type AuditRecord, appendAudit } from "../audit/append";
import { generatePassword, hashPassword } from "../auth/password";
import { ROLES, type Role } from "../auth/roles";
import type { Db } from "../db/client";
import { type AuthSource, staff } from "../db/schema";
import { newPasswordSchema } from "../schemas/auth";
import { addStaffSchema } from "../schemas/staff";
import { setAccountDisabled } from "./access";

// Staff account changes made outside the dashboard (the `npm run staff` command): the same rules and audit trail as
// the Staff page's actions, with the operating-system user as the actor, since nobody is signed in.

/** A change that was refused; the message is meant for the person who asked (no secrets, no internals). */
export class StaffAccountRefused extends Error {
  constructor(
    message: string,
    /** "invalid": the input broke the schema; "refused": valid input that the current data does not allow. */
    readonly outcome: "invalid" | "refused",
  ) {
    super(message);
    this.name = "StaffAccountRefused";
  }
}

export interface StaffAccountInput {
  email: string;
  name?: string;
  /** Untrusted (typed on a command line): checked against ROLES. */
  role: string;
  /** A password chosen by the caller; without one, a random password is generated and returned once. */
  password?: string;
}

export interface StaffListing {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  authSource: AuthSource;
  disabledAt: Date | null;
  createdAt: Date;
}

// Only what these functions need from the shared schema, so the command line and the Staff page agree on what an
// email and a role are.
const emailSchema = addStaffSchema.pick({ email: true });
const emailAndRoleSchema = addStaffSchema.pick({ email: true, role: true });

/**
 * Creates a password account. Refuses an email that already has an account, whatever its case. The password, made up
 * or chosen by the operator, serves once: its owner sets their own at first sign-in.
 */
export async function addStaffAccount(
  db: Db,
  input: StaffAccountInput,
): Promise<{ id: string; email: string; password: string }> {
  return audited(db, "staff.add", async (note) => {
    const parsed = validate(note, addStaffSchema, { email: input.email, name: input.name, role: input.role });
    const { email, role } = parsed;
    note({ targetType: "staff", input: { email, role, passwordChosen: input.password !== undefined } });
    const password =
      input.password === undefined ? generatePassword() : validate(note, newPasswordSchema, input.password, "password");
    const [row] = await db
      .insert(staff)
      .values({
        email,
        name: parsed.name || null,
        role,
        passwordHash: await hashPassword(password),
        passwordChangeRequired: true,
      })
      .onConflictDoNothing({ target: staff.email })
      .returning({ id: staff.id });
    if (!row) throw new StaffAccountRefused(`An account for ${email} already exists.`, "refused");
    note({ targetId: row.id, after: { email, role } });
    return { id: row.id, email, password };
  });
}

/** Disables or enables an account. Its sessions end at their next request, and enabling it does not revive them. */
export async function setStaffDisabled(
  db: Db,
  email: string,
  disabled: boolean,
): Promise<{ id: string; email: string; disabled: boolean; changed: boolean }> {
  return audited(db, disabled ? "staff.disable" : "staff.enable", async (note) => {
    const parsed = validate(note, emailSchema, { email });
    note({ input: { email: parsed.email } });
    const target = await findAccount(db, note, parsed.email);
    const wasDisabled = target.disabledAt !== null;
    note({ before: { disabled: wasDisabled } });
    const changed = await setAccountDisabled(db, target.id, disabled);
    note({ after: { disabled } });
    return { id: target.id, email: target.email, disabled, changed };
  });
}

export async function setStaffRole(
  db: Db,
  email: string,
  role: string,
): Promise<{ id: string; email: string; role: Role; previousRole: Role }> {
  return audited(db, "staff.change_role", async (note) => {
    const parsed = validate(note, emailAndRoleSchema, { email, role });
    note({ input: { email: parsed.email, role: parsed.role } });
    const target = await findAccount(db, note, parsed.email);
    note({ before: { role: target.role } });
    if (target.role !== parsed.role) await db.update(staff).set({ role: parsed.role }).where(eq(staff.id, target.id));
    note({ after: { role: parsed.role } });
    return { id: target.id, email: target.email, role: parsed.role, previousRole: target.role };
  });
}

/** Every account, by email. Reading is not audited (there is no audit action for it). */
export async function listStaff(db: Db): Promise<StaffListing[]> {
  return db
    .select({
      id: staff.id,
      email: staff.email,
      name: staff.name,
      role: staff.role,
      authSource: staff.authSource,
      disabledAt: staff.disabledAt,
      createdAt: staff.createdAt,
    })
    .from(staff)
    .orderBy(asc(staff.email));
}

type StaffAuditAction = "staff.add" | "staff.change_role" | "staff.disable" | "staff.enable";
type AuditNote = Partial<Pick<AuditRecord, "targetType" | "targetId" | "input" | "before" | "after">>;
type Note = (more: AuditNote) => void;

/** Runs one change and appends its audit row, whatever came of it: the same outcomes the action client records. */
async function audited<T>(db: Db, action: StaffAuditAction, run: (note: Note) => Promise<T>): Promise<T> {
  const base = { actor: commandLineActor(), action, correlationId: randomUUID() };
  const noted: AuditNote = {};
  let result: T;
  try {
    result = await run((more) => Object.assign(noted, more));
  } catch (error) {
    const outcome = error instanceof StaffAccountRefused ? error.outcome : "error";
    try {
      await appendAudit({ ...base, ...noted, outcome }, db);
    } catch {
      // The database that failed the change may fail the audit too; the change's own error says more.
    }
    throw error;
  }
  await appendAudit({ ...base, ...noted, outcome: "ok" }, db);
  return result;
}

function commandLineActor(): AuditActor {
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // A container user without a passwd entry has no name.
  }
  return { id: null, email: `cli:${user}`, role: "admin" };
}

function validate<S extends z.ZodType>(note: Note, schema: S, value: unknown, field?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = [...new Set(result.error.issues.map((issue) => String(issue.path[0] ?? field ?? "input")))];
  note({ input: { invalidFields: fields } });
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? field ?? "input");
    const message = name === "role" ? `${issue.message} (one of: ${ROLES.join(", ")})` : issue.message;
    return `${name}: ${message}`;
  });
  throw new StaffAccountRefused(problems.join("; "), "invalid");
}

async function findAccount(db: Db, note: Note, email: string) {
  note({ targetType: "staff" });
  const [row] = await db.select().from(staff).where(eq(staff.email, email)).limit(1);
  if (!row) throw new StaffAccountRefused(`No staff account has the email ${email}.`, "refused");
  note({ targetId: row.id });
  return row;
}
