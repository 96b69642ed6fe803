import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { SignedInStaff } from "../auth/credentials";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { auditLog, links, staff, syncState } from "../db/schema";

// "Refresh now" and "Refresh all" as a direct POST would call them: who may, what they write, what a refusal says.

let signedIn: SignedInStaff | null = null;
let database: Database;

vi.mock("../auth", () => ({
  currentStaff: async () => signedIn,
  sessionAccount: async () => signedIn && { ...signedIn, authSource: "password", passwordChangeRequired: false },
  clientAddress: () => "203.0.113.9",
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

const sandbox = createSandbox({ links: 100, rateLimits: false, importDelayMs: 0 });
const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-sync-actions-"));
const people: Record<"viewer" | "support", SignedInStaff> = {} as never;
let linkId = "";

beforeAll(async () => {
  const url = await sandbox.listen(0);
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: url,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    AUTH_SECRET: "sync-actions-secret-0123456789abcdef0123",
    LOG_LEVEL: "silent",
    LINKDESK_DATA_DIR: dataDir,
    BUDGET_INTERACTIVE_MAX_WAIT_MS: "0",
  });
  database = await openTestPglite();
  // As the app wires it at start (lib/startup.ts): the door's answers keep the read model current.
  (await import("../links/read-model")).recordUpstreamAnswers();
  for (const role of ["viewer", "support"] as const) {
    const [row] = await database.db
      .insert(staff)
      .values({ email: `${role}@sync.test`, role })
      .returning();
    people[role] = { id: row!.id, email: row!.email, name: null, role };
  }
  const fixtures = (await (await fetch(`${url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  linkId = fixtures["error:auth_expired"]![0]!;
}, 60_000);

afterAll(async () => {
  await database?.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const { refreshLink, refreshAllLinks } = await import("../actions/sync");

async function lastAudit(action: string, email: string) {
  const rows = await database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.actorEmail, email)))
    .orderBy(auditLog.id);
  return rows.at(-1);
}

describe("refreshLink", () => {
  it("reads the link at once for anyone who may read, and updates the read model", async () => {
    signedIn = people.viewer;
    const result = await refreshLink({ linkId });
    expect(result?.data?.link).toMatchObject({ linkId, state: "error", errorCode: "auth_expired" });
    const [row] = await database.db.select().from(links).where(eq(links.linkId, linkId));
    expect(row).toMatchObject({ state: "error", errorCode: "auth_expired" });
    expect(row!.seenAt).not.toBeNull();
    expect(await lastAudit("link.refresh", people.viewer.email)).toMatchObject({
      outcome: "ok",
      linkId,
      upstreamStatus: 200,
    });
  });

  it("says in words when the upstream does not know the link", async () => {
    signedIn = people.viewer;
    const result = await refreshLink({ linkId: "mk_no_such_link" });
    expect(result?.serverError).toMatch(/^This link does not exist upstream/);
    expect(await lastAudit("link.refresh", people.viewer.email)).toMatchObject({
      outcome: "upstream_error",
      upstreamStatus: 404,
    });
  });

  it("is refused with the time of the next slot once the link's budget is used up", async () => {
    signedIn = people.viewer;
    // Linkdesk's half of 30 a minute per link is 15; one went to the first test.
    const results = [];
    for (let i = 0; i < 15; i++) results.push(await refreshLink({ linkId }));
    expect(results.filter((r) => r?.data).length).toBe(14);
    expect(results.at(-1)?.serverError).toMatch(/rate limit \(per link .+\) is used up\. Next slot in \d+ s\.$/);
    expect(await lastAudit("link.refresh", people.viewer.email)).toMatchObject({ outcome: "refused" });
  });

  it("nobody signed in gets nothing", async () => {
    signedIn = null;
    expect((await refreshLink({ linkId }))?.serverError).toBe("Your session has ended. Sign in again to continue.");
  });
});

describe("refreshAllLinks", () => {
  it("costs a whole run's budget, so a viewer may not", async () => {
    signedIn = people.viewer;
    expect((await refreshAllLinks())?.serverError).toMatch(/^Your role \(Viewer\) may not /);
    expect(await lastAudit("link.refresh_all", people.viewer.email)).toMatchObject({ outcome: "refused" });
  });

  it("asks for a run, or says one is already running", async () => {
    signedIn = people.support;
    expect((await refreshAllLinks())?.data).toMatchObject({ requested: true, alreadyRunning: false });
    const [state] = await database.db.select().from(syncState);
    expect(state!.requestedAt).not.toBeNull();
    expect(await lastAudit("link.refresh_all", people.support.email)).toMatchObject({ outcome: "ok" });

    await database.db
      .update(syncState)
      .set({ owner: "instance-a", heartbeatAt: sql`now()`, phase: "details", total: 100, done: 40 });
    expect((await refreshAllLinks())?.data).toMatchObject({
      requested: false,
      alreadyRunning: true,
      done: 40,
      total: 100,
    });
  });
});
