import { and, eq, like } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { withTestDatabases } from "../testing/databases";
import { auditLog, signInAttempts, staff } from "../db/schema";
import { verifyCredentials } from "./credentials";
import { hashPassword, verifyAgainstDecoy, verifyPassword } from "./password";
import { CHECK_TIMEOUT_MS } from "./sign-in-attempts";
import { FREE_FAILURES, LOCK_FAILURES } from "./throttle";

// Every password check goes through these two, so their calls count what a guesser got checked. A test may hold the
// checks at a gate, to send more attempts while earlier ones are still being checked.
// The hashes here, the decoy's included, are scrypt's at N=2^10 instead of 2^15: these tests count the checks the
// throttle lets through, hundreds of them, and each at full cost took a tenth of a second of CPU (password.test.ts
// holds the real cost and the decoy).
let gate: Promise<void> | undefined;
vi.mock("./password", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./password")>();
  const cheap = (password: string) => actual.hashPassword(password, { n: 2 ** 10, r: 8, p: 1 });
  let decoy: Promise<string> | undefined;
  return {
    ...actual,
    hashPassword: vi.fn(cheap),
    verifyPassword: vi.fn(async (password: string, stored: string) => {
      await gate;
      return actual.verifyPassword(password, stored);
    }),
    verifyAgainstDecoy: vi.fn(async (password: string) => {
      await gate;
      decoy ??= cheap("decoy");
      await actual.verifyPassword(password, await decoy);
      return false as const;
    }),
  };
});
const passwordChecks = () =>
  vi.mocked(verifyPassword).mock.calls.length + vi.mocked(verifyAgainstDecoy).mock.calls.length;

// On PGlite too when DATABASE_URL is set: the throttle promises its cap on the embedded database, where one
// connection runs every statement in turn (an attempt waiting for others inside its transaction would hang there).
const databases = withTestDatabases({ both: true });

beforeEach(() => {
  vi.mocked(verifyPassword).mockClear();
  vi.mocked(verifyAgainstDecoy).mockClear();
  gate = undefined;
});

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
    await target.database.db
      .insert(staff)
      .values({ email, role: "support", passwordHash: await hashPassword(password), ...extra });
  }

  it("signs in with the right password and audits it", async () => {
    await account("ana@example.com", "right-password");
    const result = await verifyCredentials(" Ana@Example.com ", "right-password", context("198.51.100.1"));
    expect(result).toMatchObject({ ok: true, staff: { email: "ana@example.com", role: "support" } });
    const rows = await target.database.db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.action, "auth.sign_in"),
          eq(auditLog.actorEmail, "ana@example.com"),
          eq(auditLog.outcome, "ok"),
        ),
      );
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
    expect(await verifyCredentials("viewer@demo.linkdesk.test", "demo-viewer", context("198.51.100.5"))).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect(
      await verifyCredentials("viewer@demo.linkdesk.test", "demo-viewer", {
        ...context("198.51.100.5"),
        demoMode: true,
      }),
    ).toMatchObject({ ok: true });
  });

  it("slows repeated failures of one account, then locks it, even with the right password", async () => {
    await account("dee@example.com", "right-password");
    const slept: number[] = [];
    for (let i = 0; i < LOCK_FAILURES; i++) {
      // From changing addresses: the account's own count is what locks it.
      expect(await verifyCredentials("dee@example.com", `guess-${i}`, context(`203.0.113.${i}`, slept))).toEqual({
        ok: false,
        reason: "invalid",
      });
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
    expect(await verifyCredentials("ghost-x@example.com", "guess", context(ip))).toMatchObject({
      ok: false,
      reason: "locked",
    });
  });
});

describe.each(databases)("parallel sign-in attempts on $kind", (target) => {
  const context = (ip: string) => ({ db: target.database.db, ip, demoMode: false, sleep: async () => undefined });
  const attemptRows = (subject: string) =>
    target.database.db.select().from(signInAttempts).where(like(signInAttempts.subject, subject));

  it.each([40, 80])(
    "checks at most the cap of %i wrong passwords sent at once for one account, and the right one with them does not sign in",
    async (count) => {
      const email = `burst-${count}@example.com`;
      await target.database.db
        .insert(staff)
        .values({ email, role: "admin", passwordHash: await hashPassword("right-password") });
      // From as many addresses as attempts: the account's own count is what must hold.
      const wrong = Array.from({ length: count }, (_, i) =>
        verifyCredentials(email, `guess-${i}`, context(`198.18.${count}.${i}`)),
      );
      const right = verifyCredentials(email, "right-password", context(`198.18.${count}.250`));
      const answers = await Promise.all([...wrong, right]);

      expect(passwordChecks()).toBeLessThanOrEqual(LOCK_FAILURES);
      expect(answers.filter((a) => a.ok)).toEqual([]);
      expect(answers.filter((a) => !a.ok && a.reason === "locked").length).toBeGreaterThanOrEqual(
        count + 1 - LOCK_FAILURES,
      );
      expect((await attemptRows(`email:${email}`)).length).toBeLessThanOrEqual(LOCK_FAILURES);
    },
  );

  it("does not check the right password sent while the capped guesses are still being checked, and refuses it", async () => {
    const email = "held@example.com";
    await target.database.db
      .insert(staff)
      .values({ email, role: "admin", passwordHash: await hashPassword("right-password") });
    let open = () => {};
    gate = new Promise((resolve) => (open = resolve));
    const wrong = Array.from({ length: 40 }, (_, i) =>
      verifyCredentials(email, `guess-${i}`, context(`198.19.0.${i}`)),
    );
    // The cap is taken by guesses held at the gate; the others wait for them.
    await vi.waitFor(() => expect(passwordChecks()).toBe(LOCK_FAILURES), { timeout: 20_000 });
    let answered = false;
    const right = verifyCredentials(email, "right-password", context("198.19.1.1")).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    open();
    expect(await right).toMatchObject({ ok: false, reason: "locked" });
    expect((await Promise.all(wrong)).filter((a) => a.ok)).toEqual([]);
    expect(passwordChecks()).toBe(LOCK_FAILURES);
  });

  it("signs in people sending the right password at once from one address, more of them than the cap", async () => {
    // As 50 sessions of a load test, or an office behind one address, at the start of the day.
    const accounts = Array.from({ length: 3 }, (_, i) => `crowd-${i}@example.com`);
    for (const email of accounts) {
      await target.database.db
        .insert(staff)
        .values({ email, role: "viewer", passwordHash: await hashPassword("right-password") });
    }
    const answers = await Promise.all(
      Array.from({ length: 5 * LOCK_FAILURES }, (_, i) =>
        verifyCredentials(accounts[i % accounts.length]!, "right-password", context("198.21.0.1")),
      ),
    );
    expect(answers.filter((a) => !a.ok)).toEqual([]);
  });

  it("counts a check that never ended (a crash) as a failure", async () => {
    const email = "lost@example.com";
    await target.database.db
      .insert(staff)
      .values({ email, role: "ops", passwordHash: await hashPassword("right-password") });
    const at = new Date(Date.now() - CHECK_TIMEOUT_MS - 1000);
    await target.database.db
      .insert(signInAttempts)
      .values(Array.from({ length: LOCK_FAILURES }, () => ({ subject: `email:${email}`, succeeded: null, at })));
    expect(await verifyCredentials(email, "right-password", context("198.22.0.1"))).toMatchObject({
      ok: false,
      reason: "locked",
    });
    expect(passwordChecks()).toBe(0);
  });

  it("checks at most the cap of guesses sent at once from one address at many accounts", async () => {
    const ip = "198.20.0.1";
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => verifyCredentials(`spray-${i}@example.com`, "guess", context(ip))),
    );
    expect(passwordChecks()).toBeLessThanOrEqual(LOCK_FAILURES);
    expect(answers.filter((a) => !a.ok && a.reason === "locked")).toHaveLength(40 - LOCK_FAILURES);
    expect((await attemptRows(`ip:${ip}`)).length).toBeLessThanOrEqual(LOCK_FAILURES);
  });
});

describe.each(databases)("sign-in attempts on $kind", (target) => {
  it("keeps only the throttle window of a subject's attempts", async () => {
    const { signInAttempts } = await import("../db/schema");
    const { db } = target.database;
    const subject = "email:old@example.com";
    await db.insert(signInAttempts).values([{ subject, succeeded: false, at: new Date(Date.now() - 2 * 60 * 60_000) }]);
    await verifyCredentials("old@example.com", "guess", {
      db,
      ip: null,
      demoMode: false,
      sleep: async () => undefined,
    });
    const rows = await db.select().from(signInAttempts).where(eq(signInAttempts.subject, subject));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.at.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });
});
