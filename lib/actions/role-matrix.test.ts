import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, desc, eq } from "drizzle-orm";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { SignedInStaff } from "../auth/credentials";
import { PERMISSIONS, type Permission, ROLES, type Role } from "../auth/roles";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { auditLog, staff } from "../db/schema";

// Every server action and every route handler, called as every role and as nobody, the way a direct request would
// call them: only the permitted roles get through, every refusal of a known person is audited, nobody gets nothing.
// The lists below are checked against the files: a new action (an export of a "use server" file in lib/actions/) or
// a new route handler (app/**/route.ts) without a row here fails this test.

let signedIn: SignedInStaff | null = null;
/** The signed-in person came with a one-time password and has not chosen their own yet. */
let passwordChangeRequired = false;
let database: Database;

// next-auth cannot load outside Next.js; the session actions need only its error classes.
const authErrors = vi.hoisted(() => {
  // As Auth.js's: each carries its type, by which the sign-in action recognises it.
  class AuthError extends Error {
    type = "AuthError";
  }
  class CredentialsSignin extends AuthError {
    type = "CredentialsSignin";
  }
  return { AuthError, CredentialsSignin };
});
vi.mock("next-auth", () => authErrors);
vi.mock("../auth", () => ({
  currentStaff: async () => (passwordChangeRequired ? null : signedIn),
  sessionAccount: async () => signedIn && { ...signedIn, authSource: "password", passwordChangeRequired },
  clientAddress: () => "203.0.113.7",
  ssoProvider: () => null,
  // Auth.js refuses the made-up credentials the sign-in case sends.
  signIn: async () => {
    throw new authErrors.CredentialsSignin();
  },
  signOut: async () => undefined,
  // Auth.js's own endpoints (app/api/auth/[...nextauth]) are public by design and not called here.
  handlers: {
    GET: async () => new Response(null, { status: 204 }),
    POST: async () => new Response(null, { status: 204 }),
  },
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0 });
const people = {} as Record<Role, SignedInStaff>;
let linkId = "";
/** Another link for the route handler, so the two never share a per-link rate budget. */
let routeLinkId = "";
let transactionId = "";
// The embedded budget journals to LINKDESK_DATA_DIR: a folder of this run's own, not the repository's .data.
const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-role-matrix-"));

beforeAll(async () => {
  const url = await sandbox.listen(0);
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: url,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "matrix-secret-0123456789abcdef0123456789",
    LOG_LEVEL: "silent",
    LINKDESK_DATA_DIR: dataDir,
  });
  database = await openTestPglite();
  for (const role of ROLES) {
    const [row] = await database.db
      .insert(staff)
      .values({ email: `${role}@matrix.test`, role })
      .returning();
    people[role] = { id: row!.id, email: row!.email, name: null, role };
  }
  const fixtures = (await (await fetch(`${url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  linkId = fixtures.plain![0]!;
  routeLinkId = fixtures.plain![1]!;
  const { upstream } = await import("../upstream");
  transactionId = (await upstream().getTransactions(linkId, { size: 1 })).transactions[0]!.transaction_id;
}, 60_000);

/** A correction job nobody works on (no runner here): controls change its state only. */
let jobId = "";
beforeAll(async () => {
  const { insertJob } = await import("../jobs/store");
  const job = await insertJob(database.db, {
    kind: "correction",
    title: "matrix job",
    linkId,
    createdBy: { id: people.support.id, email: people.support.email, role: "support" },
    items: [{ input: { transactionId, before: null, after: { category: "banking" } }, targetId: transactionId }],
  });
  jobId = job.id;
});

afterAll(async () => {
  await database?.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------------
// What exists: every export of a "use server" module in lib/actions/, every app/**/route.ts and its HTTP methods.

type AnyFn = (...args: unknown[]) => Promise<unknown>;

const actionFiles = readdirSync(path.join(ROOT, "lib", "actions"))
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
  .filter((file) => /^\s*["']use server["']/.test(readFileSync(path.join(ROOT, "lib", "actions", file), "utf8")));

const actions: Record<string, AnyFn> = {};
for (const file of actionFiles) {
  const exported = (await import(/* @vite-ignore */ path.join(ROOT, "lib", "actions", file))) as Record<
    string,
    unknown
  >;
  for (const [name, value] of Object.entries(exported)) if (typeof value === "function") actions[name] = value as AnyFn;
}
const action = (name: string) => {
  const fn = actions[name];
  if (!fn) throw new Error(`no server action ${name}`);
  return fn;
};

const routeFiles = (readdirSync(path.join(ROOT, "app"), { recursive: true }) as string[])
  .filter((file) => file.endsWith(`${path.sep}route.ts`) || file === "route.ts")
  .map((file) => `app/${file.split(path.sep).join("/")}`)
  .sort();

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

// ---------------------------------------------------------------------------------------------------------------------
// Server actions built on the action client: their permission decides who gets through.

interface GuardedAction {
  audit: string;
  permission: Permission;
  call: () => Promise<{ serverError?: string; validationErrors?: unknown; data?: unknown } | undefined>;
}

const target = () => people.viewer.id;

const guarded: Record<string, GuardedAction> = {
  correctCategory: {
    audit: "transaction.correct",
    permission: "correct",
    call: () =>
      action("correctCategory")({ linkId, transactionId, category: "banking", subcategory: "atm_fees" }) as never,
  },
  correctCategoryBulk: {
    audit: "transaction.correct_bulk",
    permission: "correct",
    call: () =>
      action("correctCategoryBulk")({
        linkId,
        category: "banking",
        subcategory: "atm_fees",
        items: [{ transactionId }],
      }) as never,
  },
  undoCorrection: {
    audit: "transaction.undo_correction",
    permission: "correct",
    call: () => action("undoCorrection")({ correlationId: randomUUID() }) as never,
  },
  refreshLink: { audit: "link.refresh", permission: "read", call: () => action("refreshLink")({ linkId }) as never },
  refreshAllLinks: {
    audit: "link.refresh_all",
    permission: "refreshAll",
    call: () => action("refreshAllLinks")() as never,
  },
  // Operating a link (support and up). The matrix's link has no webhook: past the gate the upstream's 400 is words.
  sendTestWebhook: {
    audit: "link.test_webhook",
    permission: "operateLink",
    call: () => action("sendTestWebhook")({ linkId, event: "link.state_changed" }) as never,
  },
  // The first permitted role refreshes; the next are refused by the product's interval, after the gate.
  refreshProducts: {
    audit: "link.refresh_products",
    permission: "operateLink",
    call: () => action("refreshProducts")({ linkId, products: ["accounts"] }) as never,
  },
  updateLink: {
    audit: "link.update",
    permission: "operateLink",
    call: () =>
      action("updateLink")({ linkId, webhook: "", tags: "matrix:1", seen: { webhook: null, tags: [] } }) as never,
  },
  exchangeToken: {
    audit: "link.exchange_token",
    permission: "exchange",
    call: () => action("exchangeToken")({ exchangeableToken: randomUUID() }) as never,
  },
  createSandboxExchangeToken: {
    audit: "link.sandbox_session",
    permission: "exchange",
    call: () => action("createSandboxExchangeToken")() as never,
  },
  addStaff: {
    audit: "staff.add",
    permission: "manageStaff",
    call: () => action("addStaff")({ email: `new-${randomUUID()}@matrix.test`, role: "viewer" }) as never,
  },
  changeRole: {
    audit: "staff.change_role",
    permission: "manageStaff",
    call: () => action("changeRole")({ staffId: target(), role: "viewer" }) as never,
  },
  disableStaff: {
    audit: "staff.disable",
    permission: "manageStaff",
    call: () =>
      action("disableStaff")({ staffId: people.support.id === signedIn?.id ? target() : people.support.id }) as never,
  },
  enableStaff: {
    audit: "staff.enable",
    permission: "manageStaff",
    call: () => action("enableStaff")({ staffId: people.support.id }) as never,
  },
  resetStaffPassword: {
    audit: "staff.reset_password",
    permission: "manageStaff",
    call: () => action("resetStaffPassword")({ staffId: target() }) as never,
  },
  // Controlling a job needs the permission of its kind (a correction: support and up), checked after sign-in.
  changeOwnPassword: {
    audit: "auth.change_password",
    permission: "read",
    call: () =>
      action("changeOwnPassword")({
        currentPassword: "not-the-password",
        newPassword: "a-new-password-long-enough",
        confirmPassword: "a-new-password-long-enough",
      }) as never,
  },
  // Importing needs the import permission (ops and up); resuming an import job too.
  importFile: {
    audit: "link.import_file",
    permission: "import",
    call: () =>
      action("importFile")({
        file: new File(
          [JSON.stringify({ customer_user: { id: `matrix-${randomUUID()}` }, institution_id: "chase" })],
          "matrix.json",
        ),
        dryRun: true,
      }) as never,
  },
  resumeImport: {
    audit: "job.resume",
    permission: "import",
    call: () => action("resumeImport")({ jobId: randomUUID() }) as never,
  },
  // Undoing an import deletes links: ops and up, as importing.
  previewImportUndo: {
    audit: "link.import_undo",
    permission: "import",
    call: () => action("previewImportUndo")({ jobId: randomUUID() }) as never,
  },
  undoImport: {
    audit: "link.import_undo",
    permission: "import",
    call: () => action("undoImport")({ jobId: randomUUID(), include: [] }) as never,
  },
  pauseJob: { audit: "job.pause", permission: "correct", call: () => action("pauseJob")({ jobId }) as never },
  resumeJob: { audit: "job.resume", permission: "correct", call: () => action("resumeJob")({ jobId }) as never },
  retryJob: { audit: "job.retry", permission: "correct", call: () => action("retryJob")({ jobId }) as never },
  undoJob: { audit: "job.undo", permission: "correct", call: () => action("undoJob")({ jobId }) as never },
  cancelJob: { audit: "job.cancel", permission: "correct", call: () => action("cancelJob")({ jobId }) as never },
  // A customer's links (GET /users/{id}/links): support and up.
  lookUpCustomer: {
    audit: "link.lookup_customer",
    permission: "lookupCustomer",
    call: () => action("lookUpCustomer")({ customerId: "user_1" }) as never,
  },
  // Asking an end user to reconnect (support and up). Reconnect requests are not configured here: past the gate the
  // request is refused in words.
  requestReconnect: {
    audit: "link.request_reconnect",
    permission: "requestReconnect",
    call: () => action("requestReconnect")({ linkId, requestKey: randomUUID() }) as never,
  },
  // A reconnect campaign over a view (ops and up). Not configured here either: refused in words past the gate.
  startReconnectCampaign: {
    audit: "reconnect.campaign_start",
    permission: "reconnectCampaign",
    call: () =>
      action("startReconnectCampaign")({
        view: "error_code=auth_expired",
        askedWithinDays: 7,
        expectedLinks: 1,
      }) as never,
  },
  // Acknowledging an open alert (support and up); an unknown alert is refused in words past the gate.
  acknowledgeAlert: {
    audit: "alert.acknowledge",
    permission: "acknowledgeAlerts",
    call: () => action("acknowledgeAlert")({ alertId: randomUUID() }) as never,
  },
  // A file of link ids the product's back end knows: admins only.
  registerLinkIdsFile: {
    audit: "link.register",
    permission: "registerLinks",
    call: () =>
      action("registerLinkIdsFile")({ file: new File(["mk_matrix0000000000000000000\n"], "ids.txt") }) as never,
  },
  // Processing a stored webhook event again: ops and admins; an unknown event is refused after the gate.
  reprocessWebhookEvent: {
    audit: "webhook.reprocess",
    permission: "reprocessWebhook",
    call: () => action("reprocessWebhookEvent")({ eventId: randomUUID() }) as never,
  },
};

/** Session actions: they exist for people who are not (or not yet) signed in, so they have no role gate by design. */
const sessionActions: Record<string, { why: string; check: (role: Role | null) => Promise<void> }> = {
  signInAction: {
    why: "signing in is for people without a session",
    async check() {
      const form = new FormData();
      form.set("email", "someone@example.com");
      form.set("password", "wrong");
      expect(await action("signInAction")(undefined, form)).toEqual({ error: "Wrong email or password." });
      // A direct POST with anything but form fields gets words, not a crash.
      expect(await action("signInAction")(undefined, { email: "x" })).toEqual({
        error: "Send the email and password as form fields.",
      });
    },
  },
  signInWithSso: {
    why: "single sign-on starts from the sign-in page; without an identity provider it does nothing",
    async check() {
      await expect(action("signInWithSso")("/links")).resolves.toBeUndefined();
    },
  },
  saveTableView: {
    why: "a person's own table view: the session is checked, nothing is audited",
    async check(role) {
      const result = (await action("saveTableView")({})) as { serverError?: string } | undefined;
      if (role === null) expect(result?.serverError).toBe("Your session has ended. Sign in again to continue.");
      else expect(result?.serverError ?? "").not.toMatch(/may not|session has ended/);
    },
  },
  signOutAction: {
    why: "signing out ends the caller's own sessions only",
    async check(role) {
      const rows = () =>
        database.db.select().from(auditLog).where(eq(auditLog.action, "auth.sign_out")).orderBy(auditLog.id);
      const before = await rows();
      await action("signOutAction")();
      const after = await rows();
      if (role === null) {
        expect(after.length).toBe(before.length);
        return;
      }
      expect(after.length).toBe(before.length + 1);
      expect(after.at(-1)).toMatchObject({ actorEmail: `${role}@matrix.test`, outcome: "ok" });
      const [row] = await database.db.select().from(staff).where(eq(staff.id, people[role].id));
      expect(row?.sessionsValidAfter).toBeInstanceOf(Date);
    },
  },
};

describe("the lists cover every server action", () => {
  it("finds the action modules", () => {
    expect(actionFiles.length).toBeGreaterThanOrEqual(4);
  });

  it("has a row for each exported action, and no row for an action that is gone", () => {
    const listed = [...Object.keys(guarded), ...Object.keys(sessionActions)].sort();
    expect(Object.keys(actions).sort()).toEqual(listed);
  });
});

/** Refusals by the role gate (a business refusal, like "not found", comes after the gate and does not count). */
async function refusedRows(audit: string, email: string) {
  const rows = await database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, audit), eq(auditLog.actorEmail, email), eq(auditLog.outcome, "refused")))
    .orderBy(auditLog.id);
  return rows.filter((r) => String((r.input as { reason?: string } | null)?.reason ?? "").startsWith("role "));
}

describe.each(Object.entries(guarded).map(([name, c]) => ({ name, ...c })))("action $name", (c) => {
  it.each(ROLES)("as %s", async (role) => {
    signedIn = people[role];
    const before = (await refusedRows(c.audit, signedIn.email)).length;
    const result = await c.call();
    const after = await refusedRows(c.audit, signedIn.email);
    if ((PERMISSIONS[c.permission] as readonly Role[]).includes(role)) {
      expect(result?.serverError ?? "").not.toMatch(/may not|session has ended/);
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

describe("a person who signed in with a one-time password", () => {
  it.each(
    Object.entries(guarded)
      .filter(([name]) => name !== "changeOwnPassword")
      .map(([name, c]) => ({ name, ...c })),
  )("is refused $name until they choose their own, and the refusal is audited", async (c) => {
    signedIn = people.admin;
    passwordChangeRequired = true;
    try {
      const result = await c.call();
      expect(result?.serverError).toBe(
        "Choose your own password first: the one you were given serves only to sign in and do that.",
      );
      const [row] = await database.db
        .select()
        .from(auditLog)
        .where(
          and(
            eq(auditLog.action, c.audit),
            eq(auditLog.actorEmail, people.admin.email),
            eq(auditLog.outcome, "refused"),
          ),
        )
        .orderBy(desc(auditLog.id))
        .limit(1);
      expect(row?.input).toMatchObject({ reason: "one-time password not yet replaced" });
    } finally {
      passwordChangeRequired = false;
    }
  });
});

describe.each(Object.entries(sessionActions).map(([name, c]) => ({ name, ...c })))(
  "session action $name ($why)",
  (c) => {
    it.each([null, ...ROLES])("as %s", async (role) => {
      signedIn = role === null ? null : people[role];
      await c.check(role);
    });
  },
);

// ---------------------------------------------------------------------------------------------------------------------
// Route handlers: each method of each route, as nobody and as every role.

type Handler = (
  request: Request,
  context: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response> | Response;

interface RouteCase {
  /** A concrete URL for the route's pattern. */
  url: () => string;
  params: () => Record<string, string | string[]>;
  /** Who gets the route's answer; the rest get 401 (nobody) or a refusal (403, or 404 where existence is private). */
  allowed: readonly Role[] | "everyone";
  /** The status a permitted caller gets. */
  ok: number;
  /** The status a signed-in caller without permission gets (when some role lacks it). */
  refused?: number;
}

const everyRole = ROLES;

const routes: Record<string, Partial<Record<string, RouteCase>> | { publicBecause: string }> = {
  "app/(dashboard)/audit/export/route.ts": {
    GET: { url: () => "http://linkdesk.test/audit/export", params: () => ({}), allowed: PERMISSIONS.read, ok: 200 },
  },
  "app/(dashboard)/links/export/route.ts": {
    GET: { url: () => "http://linkdesk.test/links/export", params: () => ({}), allowed: PERMISSIONS.read, ok: 200 },
  },
  "app/(dashboard)/webhooks/export/route.ts": {
    GET: { url: () => "http://linkdesk.test/webhooks/export", params: () => ({}), allowed: PERMISSIONS.read, ok: 200 },
  },
  "app/api/auth/[...nextauth]/route.ts": {
    publicBecause: "Auth.js's own sign-in, callback and sign-out endpoints, guarded by its CSRF token",
  },
  "app/api/health/route.ts": {
    GET: { url: () => "http://linkdesk.test/api/health", params: () => ({}), allowed: "everyone", ok: 200 },
  },
  "app/(dashboard)/jobs/[jobId]/export/route.ts": {
    GET: {
      url: () => `http://linkdesk.test/jobs/${jobId}/export`,
      params: () => ({ jobId }),
      allowed: PERMISSIONS.read,
      ok: 200,
    },
  },
  "app/api/jobs/route.ts": {
    GET: { url: () => "http://linkdesk.test/api/jobs", params: () => ({}), allowed: PERMISSIONS.read, ok: 200 },
  },
  "app/api/jobs/mine/route.ts": {
    // The signed-in person's own jobs, for the shell's notices of jobs that ended.
    GET: { url: () => "http://linkdesk.test/api/jobs/mine", params: () => ({}), allowed: PERMISSIONS.read, ok: 200 },
  },
  "app/api/jobs/[jobId]/route.ts": {
    GET: {
      url: () => `http://linkdesk.test/api/jobs/${jobId}`,
      params: () => ({ jobId }),
      allowed: PERMISSIONS.read,
      ok: 200,
    },
  },
  "app/api/rate-limits/route.ts": {
    GET: { url: () => "http://linkdesk.test/api/rate-limits", params: () => ({}), allowed: PERMISSIONS.read, ok: 200 },
  },
  "app/api/ready/route.ts": {
    publicBecause: "the readiness probe of a process manager or load balancer: no secrets, no upstream call",
  },
  "app/api/links/register/route.ts": {
    publicBecause:
      "the product's back end, with its service token instead of a session (app/api/links/register/route.test.ts: no token, a wrong one, the endpoint off)",
  },
  "app/api/webhooks/upstream/route.ts": {
    publicBecause:
      "the upstream's webhooks: no staff session, the ES256 signature over the exact body is the credential (lib/webhooks/receive.test.ts refuses every unsigned, forged, replayed or tampered request)",
  },
  "app/(dashboard)/import/[jobId]/export/route.ts": {
    // As its JSON form: the matrix's job is a correction, so "no such import".
    GET: {
      url: () => `http://linkdesk.test/import/${jobId}/export`,
      params: () => ({ jobId }),
      allowed: PERMISSIONS.read,
      ok: 404,
    },
  },
  "app/api/import/institutions/route.ts": {
    GET: {
      url: () => "http://linkdesk.test/api/import/institutions?id=chase",
      params: () => ({}),
      allowed: PERMISSIONS.import,
      ok: 200,
      refused: 403,
    },
  },
  "app/api/import/[jobId]/route.ts": {
    // Any reader may follow an import; a job that is not an import is "no such import".
    GET: {
      url: () => `http://linkdesk.test/api/import/${jobId}`,
      params: () => ({ jobId }),
      allowed: PERMISSIONS.read,
      ok: 404,
    },
  },
  "app/api/jobs/[jobId]/items/route.ts": {
    GET: {
      url: () => `http://linkdesk.test/api/jobs/${jobId}/items`,
      params: () => ({ jobId }),
      allowed: PERMISSIONS.read,
      ok: 200,
    },
  },
  "app/api/links/[linkId]/correction-cost/route.ts": {
    GET: {
      url: () => `http://linkdesk.test/api/links/${routeLinkId}/correction-cost?calls=3`,
      params: () => ({ linkId: routeLinkId }),
      allowed: PERMISSIONS.read,
      ok: 200,
    },
  },
  "app/api/links/[linkId]/route.ts": {
    GET: {
      url: () => `http://linkdesk.test/api/links/${routeLinkId}`,
      params: () => ({ linkId: routeLinkId }),
      allowed: PERMISSIONS.read,
      ok: 200,
    },
  },
  "app/api/links/[linkId]/transactions/route.ts": {
    GET: {
      url: () => `http://linkdesk.test/api/links/${routeLinkId}/transactions`,
      params: () => ({ linkId: routeLinkId }),
      allowed: PERMISSIONS.read,
      ok: 200,
    },
  },
};

describe("the lists cover every route handler", () => {
  it("has a row for each route file and each method it exports", async () => {
    expect(routeFiles.length).toBeGreaterThanOrEqual(4);
    expect(routeFiles).toEqual(Object.keys(routes).sort());
    for (const file of routeFiles) {
      const exported = (await import(/* @vite-ignore */ path.join(ROOT, file))) as Record<string, unknown>;
      const methods = HTTP_METHODS.filter((method) => typeof exported[method] === "function");
      const row = routes[file]!;
      if ("publicBecause" in row) continue;
      expect(methods, file).toEqual(Object.keys(row));
    }
  });
});

describe("every staff route handler is built from withStaff", () => {
  // The sign-in, the role and no-store in one place (lib/auth/with-staff.ts), as the action client does for actions:
  // a handler that checked them itself could forget one.
  it("exports each method of a route that a signed-in role needs as withStaff(permission, words, handler)", () => {
    for (const [file, row] of Object.entries(routes)) {
      if ("publicBecause" in row) continue;
      const source = readFileSync(path.join(ROOT, file), "utf8");
      for (const [method, c] of Object.entries(row)) {
        if (c!.allowed === "everyone") continue;
        expect(source, `${method} ${file}`).toMatch(new RegExp(`export const ${method} = withStaff(<[^>]*>)?\\(`));
        expect(source, file).not.toMatch(/currentStaff|sessionAccount/);
      }
    }
  });
});

const routeRows = Object.entries(routes).flatMap(([file, row]) =>
  "publicBecause" in row
    ? []
    : Object.entries(row).map(([method, c]) => ({ name: `${method} ${file}`, file, method, ...c! })),
);

describe.each(routeRows)("route $name", (c) => {
  const call = async () => {
    const exported = (await import(/* @vite-ignore */ path.join(ROOT, c.file))) as Record<string, Handler>;
    const response = await exported[c.method]!(new NextRequest(c.url(), { method: c.method }), {
      params: Promise.resolve(c.params()),
    });
    await response.body?.cancel();
    return response;
  };

  it("as nobody", async () => {
    signedIn = null;
    expect((await call()).status).toBe(c.allowed === "everyone" ? c.ok : 401);
  });

  it.each(everyRole)("as %s", async (role) => {
    signedIn = people[role];
    const permitted = c.allowed === "everyone" || c.allowed.includes(role);
    expect((await call()).status).toBe(permitted ? c.ok : (c.refused ?? 403));
  });
});

describe("what gets through is validated with the form's schema", () => {
  it("refuses a subcategory of another category before calling the upstream, and audits it as invalid", async () => {
    signedIn = people.support;
    const result = (await action("correctCategory")({
      linkId,
      transactionId,
      category: "banking",
      subcategory: "coffee",
    })) as { validationErrors?: unknown };
    expect(result?.validationErrors).toMatchObject({
      fieldErrors: { subcategory: ["Choose a subcategory of the selected category"] },
    });
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "transaction.correct"), eq(auditLog.outcome, "invalid")));
    expect(row?.input).toEqual({ invalidFields: ["subcategory"] });
  });

  it("records the upstream outcome of a correction that went through", async () => {
    signedIn = people.support;
    const { upstream } = await import("../upstream");
    const { findTransactions } = await import("../transactions/read");
    const { pairOf } = await import("../transactions/categories");
    const before = pairOf((await findTransactions(upstream(), linkId, [{ transactionId }])).get(transactionId));
    // The browser cannot choose what the audit records as "before": it is read from the upstream.
    const result = (await action("correctCategory")({
      linkId,
      transactionId,
      category: "charity",
      subcategory: "other_charity",
    })) as { data?: unknown };
    expect(result?.data).toBeTruthy();
    const rows = await database.db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.action, "transaction.correct"),
          eq(auditLog.outcome, "ok"),
          eq(auditLog.actorEmail, "support@matrix.test"),
        ),
      )
      .orderBy(auditLog.id);
    expect(rows.at(-1)).toMatchObject({ linkId, targetId: transactionId, upstreamStatus: 200, before });
    expect(before).not.toBeNull();
  });
});
