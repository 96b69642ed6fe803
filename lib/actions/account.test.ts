import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionAccount } from "../auth";
import { hashPassword, verifyPassword } from "../auth/password";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { auditLog, staff } from "../db/schema";

// Changing one's own password, called as the form (or a direct POST) calls it.

let account: SessionAccount | null = null;
const signIns: { email: string; password: string }[] = [];
let database: Database;

vi.mock("../auth", () => ({
  sessionAccount: async () => account,
  currentStaff: async () => (account && !account.passwordChangeRequired ? account : null),
  clientAddress: () => "203.0.113.5",
  signIn: async (_provider: string, options: { email: string; password: string }) => {
    signIns.push({ email: options.email, password: options.password });
  },
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

const { changeOwnPassword } = await import("./account");
const GIVEN = "one-time-pass-4f9a";
const CHOSEN = "my own long password";

beforeAll(async () => {
  Object.assign(process.env, { LOG_LEVEL: "silent" });
  database = await openTestPglite();
}, 60_000);
afterAll(async () => {
  await database?.close();
});

async function newAccount(email: string, extra: Partial<typeof staff.$inferInsert> = {}): Promise<SessionAccount> {
  const [row] = await database.db
    .insert(staff)
    .values({ email, role: "support", passwordHash: await hashPassword(GIVEN), passwordChangeRequired: true, ...extra })
    .returning();
  return {
    id: row!.id,
    email: row!.email,
    name: null,
    role: "support",
    authSource: row!.authSource,
    passwordChangeRequired: row!.passwordChangeRequired,
  };
}

const rowOf = async (id: string) => (await database.db.select().from(staff).where(eq(staff.id, id)))[0]!;
const lastAudit = async (email: string) =>
  (
    await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "auth.change_password"), eq(auditLog.actorEmail, email)))
      .orderBy(desc(auditLog.id))
      .limit(1)
  )[0];

describe("changeOwnPassword", () => {
  beforeEach(() => {
    signIns.length = 0;
  });

  it("replaces a one-time password, ends the person's other sessions and signs them in again with the new one", async () => {
    account = await newAccount("kim@example.com");
    const before = Date.now();
    const result = await changeOwnPassword({ currentPassword: GIVEN, newPassword: CHOSEN, confirmPassword: CHOSEN });
    expect(result?.data).toEqual({ signedInAgain: true });
    const row = await rowOf(account.id);
    expect(row.passwordChangeRequired).toBe(false);
    expect(await verifyPassword(CHOSEN, row.passwordHash!)).toBe(true);
    expect(await verifyPassword(GIVEN, row.passwordHash!)).toBe(false);
    expect(row.sessionsValidAfter!.getTime()).toBeGreaterThanOrEqual(before);
    expect(signIns).toEqual([{ email: "kim@example.com", password: CHOSEN }]);
    const audit = await lastAudit("kim@example.com");
    expect(audit).toMatchObject({
      outcome: "ok",
      targetId: account.id,
      after: { passwordChangeRequired: false, otherSessionsEnded: true },
    });
    expect(JSON.stringify(audit)).not.toContain(CHOSEN);
    expect(JSON.stringify(audit)).not.toContain(GIVEN);
  });

  it("requires the current password, and changes nothing without it", async () => {
    account = await newAccount("lee@example.com", { passwordChangeRequired: false });
    const result = await changeOwnPassword({
      currentPassword: "a guess",
      newPassword: CHOSEN,
      confirmPassword: CHOSEN,
    });
    expect(result?.serverError).toBe("That is not your current password. Nothing was changed.");
    expect(await verifyPassword(GIVEN, (await rowOf(account.id)).passwordHash!)).toBe(true);
    expect(signIns).toEqual([]);
    expect(await lastAudit("lee@example.com")).toMatchObject({
      outcome: "refused",
      input: { reason: "current password wrong" },
    });
  });

  it("holds the new password to the sign-in rules, the same on the server as in the form", async () => {
    account = await newAccount("max@example.com");
    const short = await changeOwnPassword({ currentPassword: GIVEN, newPassword: "short", confirmPassword: "short" });
    expect(short?.validationErrors).toMatchObject({
      fieldErrors: { newPassword: ["Choose a password of at least 12 characters"] },
    });
    const differs = await changeOwnPassword({
      currentPassword: GIVEN,
      newPassword: CHOSEN,
      confirmPassword: `${CHOSEN}!`,
    });
    expect(differs?.validationErrors).toMatchObject({
      fieldErrors: { confirmPassword: ["Type the same new password twice"] },
    });
    const same = await changeOwnPassword({ currentPassword: GIVEN, newPassword: GIVEN, confirmPassword: GIVEN });
    expect(same?.validationErrors).toMatchObject({
      fieldErrors: { newPassword: ["Choose a password other than the current one"] },
    });
    expect((await rowOf(account.id)).passwordChangeRequired).toBe(true);
    expect(await lastAudit("max@example.com")).toMatchObject({ outcome: "invalid" });
  });

  it("leaves demo accounts and single-sign-on accounts alone", async () => {
    account = await newAccount("ops@demo.linkdesk.test", { passwordChangeRequired: false });
    expect(
      (await changeOwnPassword({ currentPassword: GIVEN, newPassword: CHOSEN, confirmPassword: CHOSEN }))?.serverError,
    ).toBe("Demo accounts keep the password shown on the sign-in page.");
    account = await newAccount("sso@example.com", {
      passwordHash: null,
      authSource: "oidc",
      passwordChangeRequired: false,
    });
    expect(
      (await changeOwnPassword({ currentPassword: GIVEN, newPassword: CHOSEN, confirmPassword: CHOSEN }))?.serverError,
    ).toMatch(/identity provider/);
  });
});
