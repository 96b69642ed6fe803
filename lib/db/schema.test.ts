import { randomUUID } from "node:crypto";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "./client";
import { databaseErrorOf, PgErrorCode } from "./errors";
import { auditLog, type NewAuditEntry, normalizeEmail, staff } from "./schema";
import { withTestDatabases } from "../testing/databases";

// On PGlite too when DATABASE_URL is set: each driver reports the refusals (databaseErrorOf) and hands back the rows
// (Dates, JSON) its own way.
const databases = withTestDatabases({ both: true });

/** The database error a query failed with. */
async function refusal(query: PromiseLike<unknown>) {
  try {
    await query;
  } catch (error) {
    const info = databaseErrorOf(error);
    if (info) return info;
    throw error;
  }
  throw new Error("the query succeeded");
}

function auditEntry(overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
  return { action: "transaction.correct", outcome: "ok", correlationId: randomUUID(), ...overrides };
}

/** One newest-first page, keyset-style: rows strictly older than the cursor (at, id). */
function auditPage(db: Db, where: SQL | undefined, cursor: { at: Date; id: number } | undefined, size: number) {
  const older =
    cursor && sql`(${auditLog.at}, ${auditLog.id}) < (${cursor.at.toISOString()}::timestamptz, ${cursor.id})`;
  return db.select().from(auditLog).where(and(where, older)).orderBy(desc(auditLog.at), desc(auditLog.id)).limit(size);
}

describe.each(databases)("$kind", (target) => {
  describe("staff", () => {
    it("keeps emails unique regardless of case, since they are stored lower-cased", async () => {
      const { db } = target.database;
      const email = `Ada.${randomUUID()}@Example.COM`;
      const [created] = await db
        .insert(staff)
        .values({ email: normalizeEmail(email), name: "Ada", role: "ops" })
        .returning();
      expect(created).toMatchObject({
        email: email.toLowerCase(),
        role: "ops",
        authSource: "password",
        passwordHash: null,
        disabledAt: null,
      });
      expect(created?.createdAt).toBeInstanceOf(Date);

      const duplicate = await refusal(
        db.insert(staff).values({ email: normalizeEmail(` ${email.toUpperCase()} `), role: "admin" }),
      );
      expect(duplicate).toMatchObject({ code: PgErrorCode.uniqueViolation, constraint: "staff_email_unique" });
      // Mixed case cannot slip past the unique constraint either.
      const mixedCase = await refusal(db.insert(staff).values({ email, role: "admin" }));
      expect(mixedCase).toMatchObject({ code: PgErrorCode.checkViolation, constraint: "staff_email_lower_case_check" });
    });

    it("accepts single-sign-on staff without a password and refuses unknown roles", async () => {
      const { db } = target.database;
      const email = `sso.${randomUUID()}@example.com`;
      await db.insert(staff).values({ email, role: "viewer", authSource: "oidc" });
      const [row] = await db.select().from(staff).where(eq(staff.email, email));
      expect(row).toMatchObject({ authSource: "oidc", passwordHash: null });

      const badRole = await refusal(
        db.execute(sql`insert into staff (email, role) values (${`root.${randomUUID()}@example.com`}, 'root')`),
      );
      expect(badRole).toMatchObject({ code: PgErrorCode.checkViolation, constraint: "staff_role_check" });
    });
  });

  describe("audit_log", () => {
    it("pages newest-first by keyset without skipping or repeating rows that share a timestamp", async () => {
      const { db } = target.database;
      const action = `test.keyset.${randomUUID()}`;
      const base = Date.parse("2026-01-01T00:00:00.000Z");
      // Rows share timestamps, so the id must break ties. Two differ only in microseconds, as now() would make them,
      // and the third page starts between them: a cursor read back as a JS Date must not skip the older one.
      const micros = (us: number) =>
        sql`${new Date(base).toISOString()}::timestamptz + make_interval(secs => ${us / 1e6})`;
      const stamps = [0, 0, 0, 1, 1, 1, micros(3_200), micros(3_400), 4, 4].map((t) =>
        typeof t === "number" ? new Date(base + t) : t,
      );
      const inserted = await db
        .insert(auditLog)
        .values(stamps.map((at) => ({ ...auditEntry({ action }), at })))
        .returning({ id: auditLog.id, at: auditLog.at });
      const expected = [...inserted].sort((a, b) => b.at.getTime() - a.at.getTime() || b.id - a.id).map((r) => r.id);

      const seen: number[] = [];
      let cursor: { at: Date; id: number } | undefined;
      for (let page = 0; page < 5; page++) {
        const rows = await auditPage(db, eq(auditLog.action, action), cursor, 3);
        seen.push(...rows.map((r) => r.id));
        const last = rows.at(-1);
        if (!last || rows.length < 3) break;
        cursor = { at: last.at, id: last.id };
      }
      expect(seen).toEqual(expected);
    });

    it("round-trips every column, JSON included", async () => {
      const { db } = target.database;
      const entry = auditEntry({
        actorId: randomUUID(),
        actorEmail: "ops@example.com",
        actorRole: "ops",
        targetType: "transaction",
        targetId: "txn_1",
        linkId: "link_1",
        input: { category: "groceries", note: "ünïcode ✓" },
        before: { category: "other" },
        after: { category: "groceries" },
        outcome: "upstream_error",
        upstreamStatus: 429,
        upstreamErrorCode: "rate_limited",
        ip: "203.0.113.7",
      });
      const [row] = await db.insert(auditLog).values(entry).returning();
      expect(row).toMatchObject(entry);
      expect(row?.at).toBeInstanceOf(Date);
      expect(Number.isSafeInteger(row?.id)).toBe(true);
    });

    it("has an index serving each Audit page filter in newest-first order, with no sort step", async () => {
      const { db } = target.database;
      const filters: [string, SQL | undefined][] = [
        ["audit_log_at_id_idx", undefined],
        ["audit_log_actor_email_at_id_idx", eq(auditLog.actorEmail, "ops@example.com")],
        ["audit_log_action_at_id_idx", eq(auditLog.action, "auth.sign_in")],
        ["audit_log_link_id_at_id_idx", eq(auditLog.linkId, "link_1")],
        ["audit_log_outcome_at_id_idx", eq(auditLog.outcome, "refused")],
      ];
      const cursor = { at: new Date(), id: 1_000_000 };
      for (const [index, where] of filters) {
        // With few rows the planner would rather scan and sort; forbid that to see whether an index fits the order.
        const plan = await db.transaction(async (tx) => {
          await tx.execute(sql`set local enable_seqscan = off`);
          await tx.execute(sql`set local enable_bitmapscan = off`);
          const result = await tx.execute<{ "QUERY PLAN": string }>(sql`explain ${auditPage(tx, where, cursor, 50)}`);
          return result.rows.map((r) => r["QUERY PLAN"]).join("\n");
        });
        expect(plan, plan).toContain(index);
        expect(plan, plan).not.toMatch(/\bSort\b/);
      }
    });

    it("refuses UPDATE, DELETE and TRUNCATE in the database itself", async () => {
      const { db } = target.database;
      const [row] = await db
        .insert(auditLog)
        .values(auditEntry({ action: `test.append_only.${randomUUID()}` }))
        .returning();
      if (!row) throw new Error("insert returned nothing");

      const update = await refusal(db.update(auditLog).set({ outcome: "error" }).where(eq(auditLog.id, row.id)));
      expect(update).toMatchObject({
        code: PgErrorCode.restrictViolation,
        message: "audit_log is append-only: UPDATE refused",
      });
      const remove = await refusal(db.delete(auditLog).where(eq(auditLog.id, row.id)));
      expect(remove).toMatchObject({
        code: PgErrorCode.restrictViolation,
        message: "audit_log is append-only: DELETE refused",
      });
      const truncate = await refusal(db.execute(sql`truncate audit_log`));
      expect(truncate).toMatchObject({
        code: PgErrorCode.restrictViolation,
        message: "audit_log is append-only: TRUNCATE refused",
      });

      const [after] = await db.select().from(auditLog).where(eq(auditLog.id, row.id));
      expect(after).toEqual(row);
    });
  });
});
