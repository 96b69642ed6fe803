import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { SignedInStaff } from "../auth/credentials";
import { ROLES, type Role } from "../auth/roles";
import { type Database, createDatabase } from "../db/client";
import { auditLog, staff } from "../db/schema";

// Every server action, called as every role and as nobody, the way a direct POST would call it: only the permitted
// roles get through, every refusal of a known person is audited, nobody gets nothing.

let signedIn: SignedInStaff | null = null;
let database: Database;

vi.mock("../auth", () => ({ currentStaff: async () => signedIn, clientAddress: () => "203.0.113.7" }));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("../db/client", async (importOriginal) => ({ ...(await importOriginal<object>()), getDb: async () => database }));

const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0 });
const people = {} as Record<Role, SignedInStaff>;
let linkId = "";
let transactionId = "";

beforeAll(async () => {
  const url = await sandbox.listen(0);
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: url,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "matrix-secret-0123456789abcdef0123456789",
    LOG_LEVEL: "silent",
  });
  database = await createDatabase({ dataDir: "memory" });
  for (const role of ROLES) {
    const [row] = await database.db.insert(staff).values({ email: `${role}@matrix.test`, role }).returning();
    people[role] = { id: row!.id, email: row!.email, name: null, role };
  }
  const fixtures = (await (await fetch(`${url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  linkId = fixtures.plain![0]!;
  const { upstream } = await import("../upstream");
  transactionId = (await upstream().getTransactions(linkId, { size: 1 })).transactions[0]!.transaction_id;
}, 60_000);

afterAll(async () => {
  await database?.close();
  await sandbox.close();
});

const { correctCategory, correctCategoryBulk, undoCorrection } = await import("./transactions");
const { exchangeToken, createSandboxExchangeToken } = await import("./links");
const { refreshLink, refreshAllLinks } = await import("./sync");
const { addStaff, changeRole, disableStaff, enableStaff, resetStaffPassword } = await import("./staff");

interface Case {
  name: string;
  audit: string;
  allowed: readonly Role[];
  call: () => Promise<{ serverError?: string; validationErrors?: unknown; data?: unknown } | undefined>;
}

const supportUp = ["support", "ops", "admin"] as const;
const opsUp = ["ops", "admin"] as const;
const adminOnly = ["admin"] as const;
const target = () => people.viewer.id;

const cases: Case[] = [
  { name: "correctCategory", audit: "transaction.correct", allowed: supportUp, call: () => correctCategory({ linkId, transactionId, category: "banking", subcategory: "atm_fees" }) },
  {
    name: "correctCategoryBulk",
    audit: "transaction.correct_bulk",
    allowed: supportUp,
    call: () => correctCategoryBulk({ linkId, category: "banking", items: [{ transactionId }] }),
  },
  { name: "refreshLink", audit: "link.refresh", allowed: ["viewer", "support", "ops", "admin"], call: () => refreshLink({ linkId }) },
  { name: "refreshAllLinks", audit: "link.refresh_all", allowed: supportUp, call: () => refreshAllLinks() },
  { name: "undoCorrection", audit: "transaction.undo_correction", allowed: supportUp, call: () => undoCorrection({ correlationId: randomUUID() }) },
  { name: "exchangeToken", audit: "link.exchange_token", allowed: opsUp, call: () => exchangeToken({ exchangeableToken: randomUUID() }) },
  { name: "createSandboxExchangeToken", audit: "link.sandbox_session", allowed: opsUp, call: () => createSandboxExchangeToken() },
  { name: "addStaff", audit: "staff.add", allowed: adminOnly, call: () => addStaff({ email: `new-${randomUUID()}@matrix.test`, role: "viewer" }) },
  { name: "changeRole", audit: "staff.change_role", allowed: adminOnly, call: () => changeRole({ staffId: target(), role: "viewer" }) },
  { name: "disableStaff", audit: "staff.disable", allowed: adminOnly, call: () => disableStaff({ staffId: people.support.id === signedIn?.id ? target() : people.support.id }) },
  { name: "enableStaff", audit: "staff.enable", allowed: adminOnly, call: () => enableStaff({ staffId: people.support.id }) },
  { name: "resetStaffPassword", audit: "staff.reset_password", allowed: adminOnly, call: () => resetStaffPassword({ staffId: target() }) },
];

/** Refusals by the role gate (a business refusal, like "not found", comes after the gate and does not count). */
async function refusedRows(action: string, email: string) {
  const rows = await database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.actorEmail, email), eq(auditLog.outcome, "refused")))
    .orderBy(auditLog.id);
  return rows.filter((r) => String((r.input as { reason?: string } | null)?.reason ?? "").startsWith("role "));
}

describe.each(cases)("$name", (c) => {
  it.each(ROLES)("as %s", async (role) => {
    signedIn = people[role];
    const before = (await refusedRows(c.audit, signedIn.email)).length;
    const result = await c.call();
    const after = await refusedRows(c.audit, signedIn.email);
    if (c.allowed.includes(role as never)) {
      expect(result?.serverError ?? "").not.toMatch(/may not|session has ended/);
      // Getting through the gate leaves an audit row of the attempt, whatever the upstream then said.
      // Past the gate, the attempt is audited with what came of it.
      const rows = await database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, c.audit), eq(auditLog.actorEmail, signedIn.email)))
        .orderBy(auditLog.id);
      expect(rows.at(-1)?.input).not.toMatchObject({ reason: expect.stringMatching(/^role /) });
      expect(after.length).toBe(before);
    } else {
      expect(result?.serverError).toMatch(/^Your role \(\w+\) may not /);
      expect(after.length).toBe(before + 1);
      expect(after.at(-1)?.actorRole).toBe(role);
    }
  });

  it("as nobody", async () => {
    signedIn = null;
    const before = await database.db.select().from(auditLog).where(eq(auditLog.action, c.audit));
    const result = await c.call();
    expect(result?.serverError).toBe("Your session has ended. Sign in again to continue.");
    const after = await database.db.select().from(auditLog).where(eq(auditLog.action, c.audit));
    expect(after.length).toBe(before.length);
  });
});

describe("what gets through is validated with the form's schema", () => {
  it("refuses a subcategory of another category before calling the upstream, and audits it as invalid", async () => {
    signedIn = people.support;
    const result = await correctCategory({ linkId, transactionId, category: "banking", subcategory: "coffee" } as never);
    expect(result?.validationErrors).toMatchObject({ fieldErrors: { subcategory: ["Choose a subcategory of the selected category"] } });
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "transaction.correct"), eq(auditLog.outcome, "invalid")));
    expect(row?.input).toEqual({ invalidFields: ["subcategory"] });
  });

  it("records the upstream outcome of a correction that went through", async () => {
    signedIn = people.support;
    const result = await correctCategory({ linkId, transactionId, category: "charity", previous: { category: "banking" } });
    expect(result?.data).toBeTruthy();
    const rows = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "transaction.correct"), eq(auditLog.outcome, "ok"), eq(auditLog.actorEmail, "support@matrix.test")))
      .orderBy(auditLog.id);
    expect(rows.at(-1)).toMatchObject({ linkId, targetId: transactionId, upstreamStatus: 200, before: { category: "banking" } });
  });
});
