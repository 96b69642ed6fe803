import { randomUUID } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionAccount } from "../auth";
import type { Role } from "../auth/roles";
import type { Database } from "../db/client";
import { auditLog, webhookEvents } from "../db/schema";
import { withTestDatabases } from "../testing/databases";

// The Webhooks page's Reprocess, called as the page (or a direct POST) calls it: only ops and admins get through, a
// refused request is refused in words, and a requeued event wakes the processor.

let database: Database;
let account: SessionAccount | null = null;
const signIn = (role: Role) => {
  account = {
    id: randomUUID(),
    email: `${role}-${randomUUID().slice(0, 6)}@example.com`,
    name: null,
    role,
    authSource: "password",
    passwordChangeRequired: false,
  };
  return account;
};

const kicks = vi.hoisted(() => ({ count: 0 }));
vi.mock("../auth", () => ({
  sessionAccount: async () => account,
  currentStaff: async () => account,
  clientAddress: () => "203.0.113.9",
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));
vi.mock("../webhooks/processor", () => ({
  kickWebhookProcessor: () => {
    kicks.count++;
  },
}));

const { reprocessWebhookEvent } = await import("./webhooks");
const databases = withTestDatabases();

describe.each(databases)("reprocessWebhookEvent on $kind", (target) => {
  beforeEach(() => {
    database = target.database;
    Object.assign(process.env, { LOG_LEVEL: "silent" });
  });

  const insert = async (values: Partial<typeof webhookEvents.$inferInsert>) =>
    (
      await database.db
        .insert(webhookEvents)
        .values({
          verification: "verified",
          outcome: "failed",
          event: "link.state_changed",
          linkId: `mk_${randomUUID().slice(0, 8)}`,
          idempotencyKey: randomUUID(),
          processAttempts: 6,
          ...values,
        })
        .returning()
    )[0]!;
  const rowOf = async (id: string) =>
    (await database.db.select().from(webhookEvents).where(eq(webhookEvents.id, id)))[0]!;
  const lastAudit = async (email: string) =>
    (
      await database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorEmail, email), eq(auditLog.action, "webhook.reprocess")))
        .orderBy(desc(auditLog.id))
        .limit(1)
    )[0];

  it("lets ops and admins set a failed event to be processed again, audited, and wakes the processor", async () => {
    for (const role of ["ops", "admin"] as const) {
      const event = await insert({});
      const person = signIn(role);
      const kicked = kicks.count;
      const result = await reprocessWebhookEvent({ eventId: event.id });
      expect(result?.data).toEqual({ eventId: event.id });
      expect(kicks.count).toBe(kicked + 1);
      expect(await rowOf(event.id)).toMatchObject({ outcome: "pending", detail: "Set to be processed again." });
      expect((await rowOf(event.id)).nextAttemptAt).toBeInstanceOf(Date);
      expect(await lastAudit(person.email)).toMatchObject({
        outcome: "ok",
        actorRole: role,
        targetType: "webhook_event",
        targetId: event.id,
        linkId: event.linkId,
        before: { outcome: "failed" },
        after: { outcome: "pending" },
      });
    }
  });

  it("refuses viewers and support, audited as refused, and leaves the event as it was", async () => {
    const event = await insert({});
    for (const role of ["viewer", "support"] as const) {
      const person = signIn(role);
      const kicked = kicks.count;
      const result = await reprocessWebhookEvent({ eventId: event.id });
      expect(result?.serverError).toBe(
        `Your role (${role === "viewer" ? "Viewer" : "Support"}) may not process webhook events again.`,
      );
      expect(kicks.count).toBe(kicked);
      expect(await lastAudit(person.email)).toMatchObject({
        outcome: "refused",
        input: { reason: `role ${role} lacks reprocessWebhook` },
      });
    }
    expect(await rowOf(event.id)).toMatchObject({ outcome: "failed", nextAttemptAt: null });
  });

  it("refuses a refused request in words: it was never verified and nothing of it was kept", async () => {
    const refused = await insert({
      verification: "refused",
      outcome: "refused",
      refusal: "The request has no MoneyKit-Signature header.",
      event: null,
      linkId: null,
      idempotencyKey: null,
      processAttempts: 0,
    });
    const person = signIn("ops");
    const kicked = kicks.count;
    const result = await reprocessWebhookEvent({ eventId: refused.id });
    expect(result?.serverError).toMatch(
      /^This request was refused \(The request has no MoneyKit-Signature header\.\): it was never verified/,
    );
    expect(kicks.count).toBe(kicked);
    expect(await rowOf(refused.id)).toMatchObject({ outcome: "refused", nextAttemptAt: null });
    expect(await lastAudit(person.email)).toMatchObject({ outcome: "refused", targetId: refused.id });
  });

  it("answers an unknown id, a malformed one and nobody signed in with words, never a crash", async () => {
    signIn("admin");
    expect((await reprocessWebhookEvent({ eventId: randomUUID() }))?.serverError).toBe(
      "There is no such webhook event.",
    );
    expect((await reprocessWebhookEvent({ eventId: "not-a-uuid" }))?.validationErrors).toMatchObject({
      fieldErrors: { eventId: ["Not a webhook event id"] },
    });
    expect((await reprocessWebhookEvent({ eventId: "x\u0000" } as never))?.serverError).toMatch(/\w/);
    account = null;
    expect((await reprocessWebhookEvent({ eventId: randomUUID() }))?.serverError).toBe(
      "Your session has ended. Sign in again to continue.",
    );
  });
});
