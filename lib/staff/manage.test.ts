import { randomUUID } from "node:crypto";
import { userInfo } from "node:os";
import { asc, eq, gt, max } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { verifyPassword } from "../auth/password";
import { sessionStands } from "../auth/session";
import type { Db } from "../db/client";
import { auditLog, staff } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { StaffAccountRefused, addStaffAccount, listStaff, setStaffDisabled, setStaffRole } from "./manage";

const databases = withTestDatabases();

// The databases live for the whole file, so every test uses addresses of its own.
const uniqueEmail = (label: string) => `${label}.${randomUUID().slice(0, 8)}@example.com`;

/** The audit rows appended by `act` (tests in a file run one after another). */
async function auditRowsOf(db: Db, act: () => Promise<unknown>) {
  const [last] = await db.select({ id: max(auditLog.id) }).from(auditLog);
  await act();
  return db
    .select()
    .from(auditLog)
    .where(gt(auditLog.id, last?.id ?? 0))
    .orderBy(asc(auditLog.id));
}

async function refusalOf(promise: Promise<unknown>): Promise<StaffAccountRefused> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof StaffAccountRefused) return error;
  throw new Error(`expected a StaffAccountRefused, got ${String(error)}`);
}

async function accountRow(db: Db, email: string) {
  const [row] = await db.select().from(staff).where(eq(staff.email, email));
  return row;
}

const cliActor = { actorId: null, actorEmail: `cli:${userInfo().username}`, actorRole: "admin" };

describe.each(databases)("$kind", (target) => {
  describe("addStaffAccount", () => {
    it("creates a password account with a generated password that verifies, and audits it without the password", async () => {
      const { db } = target.database;
      const email = uniqueEmail("ada");
      let added: Awaited<ReturnType<typeof addStaffAccount>> | undefined;
      const audit = await auditRowsOf(db, async () => {
        added = await addStaffAccount(db, { email: email.toUpperCase(), name: "  Ada Lovelace ", role: "ops" });
      });
      if (!added) throw new Error("addStaffAccount failed");
      expect(added.email).toBe(email);
      expect(added.password.length).toBeGreaterThanOrEqual(20);

      const row = await accountRow(db, email);
      // The password serves once: at first sign-in Ada chooses her own.
      expect(row).toMatchObject({
        id: added.id,
        name: "Ada Lovelace",
        role: "ops",
        authSource: "password",
        disabledAt: null,
        passwordChangeRequired: true,
      });
      expect(await verifyPassword(added.password, row!.passwordHash!)).toBe(true);
      expect(await verifyPassword(`${added.password}x`, row!.passwordHash!)).toBe(false);

      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        ...cliActor,
        action: "staff.add",
        outcome: "ok",
        targetType: "staff",
        targetId: added.id,
        input: { email, role: "ops", passwordChosen: false },
        after: { email, role: "ops" },
      });
      expect(JSON.stringify(audit)).not.toContain(added.password);
    });

    it("uses a password given by the caller, and stores no name when none is given", async () => {
      const { db } = target.database;
      const email = uniqueEmail("bob");
      const password = "correct horse battery staple";
      const added = await addStaffAccount(db, { email, role: "viewer", password });
      expect(added).toEqual({ id: expect.any(String), email, password });
      const row = await accountRow(db, email);
      expect(row?.name).toBeNull();
      expect(await verifyPassword(password, row!.passwordHash!)).toBe(true);
      expect(row?.passwordChangeRequired).toBe(true);
    });

    it("refuses an email that already has an account, whatever its case, and audits the refusal", async () => {
      const { db } = target.database;
      const email = uniqueEmail("dup");
      const first = await addStaffAccount(db, { email, role: "support" });
      const audit = await auditRowsOf(db, async () => {
        const refusal = await refusalOf(
          addStaffAccount(db, {
            email: email.replace("dup", "DUP").replace("example.com", "Example.COM"),
            role: "admin",
          }),
        );
        expect(refusal.outcome).toBe("refused");
        expect(refusal.message).toBe(`An account for ${email} already exists.`);
      });
      expect(await db.select().from(staff).where(eq(staff.email, email))).toEqual([
        expect.objectContaining({ id: first.id, role: "support" }),
      ]);
      expect(audit).toEqual([
        expect.objectContaining({
          ...cliActor,
          action: "staff.add",
          outcome: "refused",
          targetId: null,
          input: { email, role: "admin", passwordChosen: false },
        }),
      ]);
    });

    it("refuses an invalid role, email or chosen password without creating anything, and audits which fields were wrong", async () => {
      const { db } = target.database;
      const email = uniqueEmail("bad");

      const badRole = await auditRowsOf(db, async () => {
        const refusal = await refusalOf(addStaffAccount(db, { email, role: "root" }));
        expect(refusal.outcome).toBe("invalid");
        expect(refusal.message).toMatch(/^role: Choose a role \(one of: viewer, support, ops, admin\)$/);
      });
      expect(badRole).toEqual([
        expect.objectContaining({ action: "staff.add", outcome: "invalid", input: { invalidFields: ["role"] } }),
      ]);

      const badEmail = await auditRowsOf(db, async () => {
        const refusal = await refusalOf(addStaffAccount(db, { email: "not-an-email", role: "viewer" }));
        expect(refusal.outcome).toBe("invalid");
        expect(refusal.message).toBe("email: Enter an email address");
      });
      expect(badEmail).toEqual([
        expect.objectContaining({ action: "staff.add", outcome: "invalid", input: { invalidFields: ["email"] } }),
      ]);

      const shortPassword = await refusalOf(addStaffAccount(db, { email, role: "viewer", password: "short" }));
      expect(shortPassword.outcome).toBe("invalid");
      expect(shortPassword.message).toBe("password: Choose a password of at least 12 characters");

      expect(await accountRow(db, email)).toBeUndefined();
    });

    it("refuses addresses in the demo domain, which are reserved for the built-in demo accounts", async () => {
      const { db } = target.database;
      const refusal = await refusalOf(
        addStaffAccount(db, { email: `x.${randomUUID().slice(0, 8)}@demo.linkdesk.test`, role: "admin" }),
      );
      expect(refusal).toMatchObject({
        outcome: "invalid",
        message: expect.stringMatching(/reserved for the sandbox's demo accounts/),
      });
    });
  });

  describe("setStaffDisabled", () => {
    it("disables and enables an account, keeps the first disable date, and audits each call", async () => {
      const { db } = target.database;
      const email = uniqueEmail("carol");
      const { id } = await addStaffAccount(db, { email, role: "viewer" });

      const disabling = await auditRowsOf(db, async () => {
        expect(await setStaffDisabled(db, email.toUpperCase(), true)).toEqual({
          id,
          email,
          disabled: true,
          changed: true,
        });
      });
      const disabledAt = (await accountRow(db, email))?.disabledAt;
      expect(disabledAt).toBeInstanceOf(Date);
      expect(disabling).toEqual([
        expect.objectContaining({
          ...cliActor,
          action: "staff.disable",
          outcome: "ok",
          targetId: id,
          before: { disabled: false },
          after: { disabled: true },
        }),
      ]);

      const again = await auditRowsOf(db, async () => {
        expect(await setStaffDisabled(db, email, true)).toMatchObject({ disabled: true, changed: false });
      });
      expect((await accountRow(db, email))?.disabledAt).toEqual(disabledAt);
      expect(again).toEqual([
        expect.objectContaining({
          action: "staff.disable",
          outcome: "ok",
          before: { disabled: true },
          after: { disabled: true },
        }),
      ]);

      const enabling = await auditRowsOf(db, async () => {
        expect(await setStaffDisabled(db, email, false)).toEqual({ id, email, disabled: false, changed: true });
      });
      expect((await accountRow(db, email))?.disabledAt).toBeNull();
      expect(enabling).toEqual([
        expect.objectContaining({
          action: "staff.enable",
          outcome: "ok",
          targetId: id,
          before: { disabled: true },
          after: { disabled: false },
        }),
      ]);
    });

    it("ends the account's sessions for good: enabling it again does not revive a session from before", async () => {
      const { db } = target.database;
      const email = uniqueEmail("dora");
      await addStaffAccount(db, { email, role: "admin" });
      const signedInBefore = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const stands = async (signedInAt: number) =>
        sessionStands((await accountRow(db, email))!, signedInAt, { demoMode: false });
      expect(await stands(signedInBefore)).toBe(true);

      await setStaffDisabled(db, email, true);
      expect(await stands(signedInBefore)).toBe(false);
      await setStaffDisabled(db, email, false);
      expect(await stands(signedInBefore)).toBe(false);
      // A sign-in after the enable holds.
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await stands(Date.now())).toBe(true);
    });

    it("does not end the sessions of an account that was already enabled", async () => {
      const { db } = target.database;
      const email = uniqueEmail("eli");
      await addStaffAccount(db, { email, role: "ops" });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const signedIn = Date.now();
      expect(await setStaffDisabled(db, email, false)).toMatchObject({ changed: false });
      expect(sessionStands((await accountRow(db, email))!, signedIn, { demoMode: false })).toBe(true);
    });

    it("refuses an unknown or invalid email and audits the refusal", async () => {
      const { db } = target.database;
      const email = uniqueEmail("nobody");
      const audit = await auditRowsOf(db, async () => {
        const unknown = await refusalOf(setStaffDisabled(db, email, true));
        expect(unknown).toMatchObject({ outcome: "refused", message: `No staff account has the email ${email}.` });
        expect(await refusalOf(setStaffDisabled(db, "nobody", false))).toMatchObject({ outcome: "invalid" });
      });
      expect(audit).toEqual([
        expect.objectContaining({ action: "staff.disable", outcome: "refused", targetId: null, input: { email } }),
        expect.objectContaining({ action: "staff.enable", outcome: "invalid", input: { invalidFields: ["email"] } }),
      ]);
    });
  });

  describe("setStaffRole", () => {
    it("changes the role, reports the previous one, and audits before and after", async () => {
      const { db } = target.database;
      const email = uniqueEmail("dan");
      const { id } = await addStaffAccount(db, { email, role: "viewer" });
      const audit = await auditRowsOf(db, async () => {
        expect(await setStaffRole(db, email, "admin")).toEqual({ id, email, role: "admin", previousRole: "viewer" });
      });
      expect((await accountRow(db, email))?.role).toBe("admin");
      expect(audit).toEqual([
        expect.objectContaining({
          ...cliActor,
          action: "staff.change_role",
          outcome: "ok",
          targetType: "staff",
          targetId: id,
          input: { email, role: "admin" },
          before: { role: "viewer" },
          after: { role: "admin" },
        }),
      ]);
    });

    it("refuses an invalid role or an unknown account, leaving the role alone", async () => {
      const { db } = target.database;
      const email = uniqueEmail("erin");
      await addStaffAccount(db, { email, role: "support" });
      const audit = await auditRowsOf(db, async () => {
        expect(await refusalOf(setStaffRole(db, email, "superuser"))).toMatchObject({
          outcome: "invalid",
          message: expect.stringMatching(/^role: /),
        });
        expect(await refusalOf(setStaffRole(db, uniqueEmail("ghost"), "ops"))).toMatchObject({ outcome: "refused" });
      });
      expect((await accountRow(db, email))?.role).toBe("support");
      expect(audit.map((row) => [row.action, row.outcome])).toEqual([
        ["staff.change_role", "invalid"],
        ["staff.change_role", "refused"],
      ]);
    });
  });

  describe("listStaff", () => {
    it("lists every account by email, without password hashes", async () => {
      const { db } = target.database;
      const suffix = randomUUID().slice(0, 8);
      await addStaffAccount(db, { email: `zed.${suffix}@example.com`, role: "viewer" });
      await addStaffAccount(db, { email: `amy.${suffix}@example.com`, role: "ops", name: "Amy" });
      await setStaffDisabled(db, `zed.${suffix}@example.com`, true);

      const listed = await listStaff(db);
      expect(listed.filter((a) => a.email.endsWith(`${suffix}@example.com`))).toEqual([
        {
          id: expect.any(String),
          email: `amy.${suffix}@example.com`,
          name: "Amy",
          role: "ops",
          authSource: "password",
          disabledAt: null,
          createdAt: expect.any(Date),
        },
        {
          id: expect.any(String),
          email: `zed.${suffix}@example.com`,
          name: null,
          role: "viewer",
          authSource: "password",
          disabledAt: expect.any(Date),
          createdAt: expect.any(Date),
        },
      ]);
    });
  });
});
