import { and, desc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { SignedInStaff } from "../auth/credentials";
import type { Role } from "../auth/roles";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { auditLog, links, staff } from "../db/schema";
import { REGISTER_FILE_MAX_IDS } from "../schemas/discovery";

// The discovery actions as a direct POST would call them: a customer's links looked up through the upstream and
// recorded, a file of link ids registered; input checked with the form's schema and refused in words, every attempt
// of a signed-in person in the audit trail.

let signedIn: SignedInStaff | null = null;
let database: Database;

vi.mock("../auth", () => ({
  currentStaff: async () => signedIn,
  sessionAccount: async () => signedIn && { ...signedIn, authSource: "password", passwordChangeRequired: false },
  clientAddress: () => "203.0.113.9",
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

const sandbox = createSandbox({ links: 120, rateLimits: false, importDelayMs: 0 });
let sandboxUrl = "";
const people = {} as Record<Role, SignedInStaff>;

beforeAll(async () => {
  sandboxUrl = await sandbox.listen(0);
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: sandboxUrl,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "discovery-secret-0123456789abcdef0123456789",
    LOG_LEVEL: "silent",
  });
  database = await openTestPglite();
  // As the app wires it at start (lib/startup.ts): the door's answers keep the read model current.
  (await import("../links/read-model")).recordUpstreamAnswers();
  for (const role of ["viewer", "support", "admin"] as const) {
    const [row] = await database.db
      .insert(staff)
      .values({ email: `${role}@discovery.test`, role })
      .returning();
    people[role] = { id: row!.id, email: row!.email, name: null, role };
  }
}, 60_000);

afterAll(async () => {
  await database?.close();
  await sandbox.close();
});

const { lookUpCustomer, registerLinkIdsFile } = await import("./discovery");

const lastAudit = async (action: string) =>
  (await database.db.select().from(auditLog).where(eq(auditLog.action, action)).orderBy(desc(auditLog.id)).limit(1))[0];

/** A customer made through the sandbox's own API, as the product would: one disconnected import, one connected. */
async function customerWithTwoLinks(customerId: string) {
  const bearer = await token();
  const imported = (body: object) =>
    fetch(`${sandboxUrl}/links/import`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Bearer ${bearer}`,
        "X-Client-Id": sandbox.state.options.clientId,
        "X-Client-Secret": sandbox.state.options.clientSecret,
      },
      body: JSON.stringify({ customer_user: { id: customerId }, institution_id: "chase", ...body }),
    }).then(async (r) => {
      expect(r.status).toBe(200);
      return (await r.json()) as { link_id: string; state: string };
    });
  return { disconnected: await imported({}), connected: await imported({ provider_data: { user_id: "u-1" } }) };
}

async function token(): Promise<string> {
  const response = await fetch(`${sandboxUrl}/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: sandbox.state.options.clientId,
      client_secret: sandbox.state.options.clientSecret,
    }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

describe("lookUpCustomer", () => {
  it("shows every link of the customer, errors first, records them as learned by the lookup, and audits it", async () => {
    signedIn = people.support;
    const { disconnected, connected } = await customerWithTwoLinks("customer-42");
    const result = await lookUpCustomer({ customerId: "  customer-42 " });
    expect(result?.data).toEqual({
      customerId: "customer-42",
      links: [
        {
          linkId: disconnected.link_id,
          institutionId: "chase",
          institutionName: expect.any(String),
          institutionAvatar: expect.any(String),
          state: "error",
          errorCode: "auth_expired",
          newToLinkdesk: true,
        },
        {
          linkId: connected.link_id,
          institutionId: "chase",
          institutionName: expect.any(String),
          institutionAvatar: expect.any(String),
          state: "connected",
          errorCode: null,
          newToLinkdesk: true,
        },
      ],
    });
    const rows = await database.db
      .select()
      .from(links)
      .where(inArray(links.linkId, [disconnected.link_id, connected.link_id]));
    expect(rows.map((row) => [row.linkId, row.learnedFrom, row.state, row.errorCode]).sort()).toEqual(
      [
        [disconnected.link_id, "customer_lookup", "error", "auth_expired"],
        [connected.link_id, "customer_lookup", "connected", null],
      ].sort(),
    );
    expect(await lastAudit("link.lookup_customer")).toMatchObject({
      outcome: "ok",
      actorEmail: "support@discovery.test",
      targetType: "customer",
      targetId: "customer-42",
      upstreamStatus: 200,
      after: { links: 2, newToLinkdesk: 2, inError: 1 },
    });

    const again = await lookUpCustomer({ customerId: "customer-42" });
    expect(again?.data?.links.map((link) => link.newToLinkdesk)).toEqual([false, false]);
  });

  it("refuses a customer id that is empty, too long or holds other characters, in words, sending nothing", async () => {
    signedIn = people.support;
    const before = sandbox.state.stats.snapshot().byEndpoint["GET /users/{id}/links"]?.requests ?? 0;
    for (const [customerId, words] of [
      ["", "Enter a customer id: the id your product gave the customer (customer_user.id), e.g. user_42."],
      ["   ", "Enter a customer id: the id your product gave the customer (customer_user.id), e.g. user_42."],
      ["u".repeat(129), "A customer id has at most 128 characters; this one has 129."],
      ["../admin", "A customer id starts with a letter or a digit."],
      ["user 42", 'A customer id holds only letters, digits and _ - . : @ + (not " ").'],
      ["user/42", 'A customer id holds only letters, digits and _ - . : @ + (not "/").'],
    ] as const) {
      const result = await lookUpCustomer({ customerId });
      expect(result?.validationErrors, customerId).toEqual({ formErrors: [], fieldErrors: { customerId: [words] } });
    }
    expect(await lastAudit("link.lookup_customer")).toMatchObject({
      outcome: "invalid",
      input: { invalidFields: ["customerId"] },
    });
    expect(sandbox.state.stats.snapshot().byEndpoint["GET /users/{id}/links"]?.requests ?? 0).toBe(before);
  });

  it("is refused to a viewer, audited", async () => {
    signedIn = people.viewer;
    const result = await lookUpCustomer({ customerId: "customer-42" });
    expect(result?.serverError).toBe("Your role (Viewer) may not look up a customer's links.");
    expect(await lastAudit("link.lookup_customer")).toMatchObject({
      outcome: "refused",
      actorEmail: "viewer@discovery.test",
    });
  });
});

describe("registerLinkIdsFile", () => {
  const file = (text: string, name = "ids.txt") => new File([text], name, { type: "text/plain" });

  it("registers the file's ids once each, leaves known ones alone, lists lines without an id by number, and audits the counts", async () => {
    signedIn = people.admin;
    await database.db
      .insert(links)
      .values({ linkId: "mk_knownAlready000000000000", learnedFrom: "listing" })
      .onConflictDoNothing();
    const text = [
      "mk_fileRegistered0000000001",
      "mk_knownAlready000000000000",
      "",
      "nope",
      "mk_fileRegistered0000000001",
      "mk_fileRegistered0000000002",
    ].join("\r\n");
    const result = await registerLinkIdsFile({ file: file(text) });
    expect(result?.data).toMatchObject({
      registered: 2,
      alreadyKnown: 1,
      invalid: 1,
      duplicates: 1,
      invalidLines: [{ line: 4, reason: expect.stringContaining("does not start with mk_"), text: "nope" }],
    });
    expect(result?.data?.bySource).toMatchObject({ registration: expect.any(Number), listing: expect.any(Number) });
    const rows = await database.db
      .select()
      .from(links)
      .where(inArray(links.linkId, ["mk_fileRegistered0000000001", "mk_knownAlready000000000000"]));
    expect(Object.fromEntries(rows.map((row) => [row.linkId, row.learnedFrom]))).toEqual({
      mk_fileRegistered0000000001: "registration",
      mk_knownAlready000000000000: "listing",
    });
    const audit = await lastAudit("link.register");
    expect(audit).toMatchObject({
      outcome: "ok",
      actorEmail: "admin@discovery.test",
      input: { fileName: "ids.txt", format: "lines", ids: 3, invalid: 1, duplicates: 1 },
      after: { registered: 2, alreadyKnown: 1, invalidLines: [{ line: 4, reason: expect.any(String) }] },
    });
    // The trail keeps counts and line numbers, not the file.
    expect(JSON.stringify(audit)).not.toContain("nope");
  });

  it("reads CSV with a link_id column, and refuses CSV without one in words", async () => {
    signedIn = people.admin;
    const csv = await registerLinkIdsFile({
      file: file('customer,link_id,note\nu1,mk_csvRegistered00000000001,"a, note"\nu2,,x\n', "ids.csv"),
    });
    expect(csv?.data).toMatchObject({
      registered: 1,
      invalid: 1,
      invalidLines: [{ line: 3, reason: "no link_id in this row" }],
    });
    const headless = await registerLinkIdsFile({ file: file("mk_csvRegistered00000000002,u2\n") });
    expect(headless?.serverError).toBe(
      'Line 1 has commas but names no link_id column: a CSV file starts with a header row such as "link_id,customer_id".',
    );
  });

  it(`refuses an empty file, one over 2 MB and one of more than ${REGISTER_FILE_MAX_IDS.toLocaleString("en")} ids, in words`, async () => {
    signedIn = people.admin;
    expect((await registerLinkIdsFile({ file: file("") }))?.validationErrors).toMatchObject({
      fieldErrors: { file: ["The file is empty."] },
    });
    const big = await registerLinkIdsFile({ file: file("mk_x".padEnd(2 * 1024 * 1024 + 1, "x")) });
    expect(big?.validationErrors).toMatchObject({
      fieldErrors: { file: ["The file is 2.0 MB: over the 2 MB Linkdesk takes. Split it into smaller files."] },
    });
    const many = Array.from(
      { length: REGISTER_FILE_MAX_IDS + 1 },
      (_, i) => `mk_many${String(i).padStart(20, "0")}`,
    ).join("\n");
    const tooMany = await registerLinkIdsFile({ file: file(many) });
    expect(tooMany?.serverError).toBe(
      "The file holds 50,001 link ids: at most 50,000 a file. Split it into smaller files.",
    );
    expect(await database.db.select().from(links).where(eq(links.linkId, "mk_many00000000000000000000"))).toEqual([]);
    expect(await lastAudit("link.register")).toMatchObject({ outcome: "refused", input: { ids: 0 } });
  });

  it("is for admins only", async () => {
    signedIn = people.support;
    const result = await registerLinkIdsFile({ file: file("mk_supportTried000000000001") });
    expect(result?.serverError).toBe("Your role (Support) may not register link ids.");
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "link.register"), eq(auditLog.actorEmail, "support@discovery.test")));
    expect(row).toMatchObject({ outcome: "refused" });
  });
});
