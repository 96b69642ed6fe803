import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { withTestDatabases } from "../db/test-databases";
import { auditLog, staff } from "../db/schema";
import { verifyCredentials } from "./credentials";
import { hashPassword } from "./password";
import { FREE_FAILURES, LOCK_FAILURES } from "./throttle";

const databases = withTestDatabases();

describe.each(databases)("verifyCredentials on $kind", (target) => {
  const context = (ip: string, slept: number[] = []) => ({
    db: target.database.db,
    ip,
    demoMode: false,
    sleep: async (ms: number) => {
      slept.push(ms);
    },
  });

  async function account(email: string, password: string, extra: Partial<typeof staff.$inferInsert> = {}) {
    await target.database.db.insert(staff).values({ email, role: "support", passwordHash: await hashPassword(password), ...extra });
  }

  it("signs in with the right password and audits it", async () => {
    await account("ana@example.com", "right-password");
    const result = await verifyCredentials(" Ana@Example.com ", "right-password", context("198.51.100.1"));
    expect(result).toMatchObject({ ok: true, staff: { email: "ana@example.com", role: "support" } });
    const rows = await target.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "auth.sign_in"), eq(auditLog.actorEmail, "ana@example.com"), eq(auditLog.outcome, "ok")));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.ip).toBe("198.51.100.1");
  });

  it("answers a wrong password, an unknown email and a disabled account alike", async () => {
    await account("ben@example.com", "right-password");
    await account("cid@example.com", "right-password", { disabledAt: new Date() });
    const answers = [
      await verifyCredentials("ben@example.com", "wrong", context("198.51.100.2")),
      await verifyCredentials("nobody@example.com", "wrong", context("198.51.100.3")),
      await verifyCredentials("cid@example.com", "right-password", context("198.51.100.4")),
    ];
    expect(answers).toEqual([
      { ok: false, reason: "invalid" },
      { ok: false, reason: "invalid" },
      { ok: false, reason: "invalid" },
    ]);
  });

  it("refuses demo accounts outside demo mode", async () => {
    await account("viewer@demo.linkdesk.test", "demo-viewer", { role: "viewer" });
    expect(await verifyCredentials("viewer@demo.linkdesk.test", "demo-viewer", context("198.51.100.5"))).toEqual({ ok: false, reason: "invalid" });
    expect(await verifyCredentials("viewer@demo.linkdesk.test", "demo-viewer", { ...context("198.51.100.5"), demoMode: true })).toMatchObject({ ok: true });
  });

  it("slows repeated failures of one account, then locks it, even with the right password", async () => {
    await account("dee@example.com", "right-password");
    const slept: number[] = [];
    for (let i = 0; i < LOCK_FAILURES; i++) {
      // From changing addresses: the account's own count is what locks it.
      expect(await verifyCredentials("dee@example.com", `guess-${i}`, context(`203.0.113.${i}`, slept))).toEqual({ ok: false, reason: "invalid" });
    }
    expect(slept.length).toBe(LOCK_FAILURES - FREE_FAILURES);
    expect(slept[0]).toBe(1000);
    const locked = await verifyCredentials("dee@example.com", "right-password", context("203.0.113.200"));
    expect(locked).toMatchObject({ ok: false, reason: "locked" });
    if (locked.ok || locked.reason !== "locked") throw new Error("unreachable");
    expect(locked.until.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
  });

  it("locks one address guessing at many accounts, and an unknown email the same way as a real one", async () => {
    const ip = "192.0.2.77";
    for (let i = 0; i < LOCK_FAILURES; i++) {
      await verifyCredentials(`ghost-${i}@example.com`, "guess", context(ip));
    }
    expect(await verifyCredentials("ghost-x@example.com", "guess", context(ip))).toMatchObject({ ok: false, reason: "locked" });
  });
});

describe.each(databases)("sign-in attempts on $kind", (target) => {
  it("keeps only the throttle window of a subject's attempts", async () => {
    const { signInAttempts } = await import("../db/schema");
    const { db } = target.database;
    const subject = "email:old@example.com";
    await db.insert(signInAttempts).values([{ subject, succeeded: false, at: new Date(Date.now() - 2 * 60 * 60_000) }]);
    await verifyCredentials("old@example.com", "guess", { db, ip: null, demoMode: false, sleep: async () => undefined });
    const rows = await db.select().from(signInAttempts).where(eq(signInAttempts.subject, subject));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.at.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });
});
