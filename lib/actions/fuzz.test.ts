import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, desc, eq, gt, inArray } from "drizzle-orm";
import fc from "fast-check";
import { type NextFetchEvent, NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { SignedInStaff } from "../auth/credentials";
import { ROLES, type Role } from "../auth/roles";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { auditLog, staff } from "../db/schema";
import { type AnyAction, loadActions, loadRoute, routeFiles, routeParams, routePath } from "../testing/action-surface";

// Every server action, every route handler and the door itself, fed what a hostile or broken client can send: random
// strings, odd Unicode (NUL, halves of surrogate pairs, right-to-left marks, byte-order marks), malformed %-escapes,
// huge and deeply nested values, values of the wrong type. Whatever comes in, nothing answers as a failure of
// Linkdesk's own (a 5xx, a thrown error, "Something went wrong"), and every refusal of a signed-in person leaves its
// audit row. Actions and routes are found from the files (lib/testing/action-surface.ts), as the role matrix finds
// them.
//
// Bounded: RUNS cases per action and per route, each property with its own seed. A failure prints the seed and the
// shrunk input; FUZZ_SEED=<seed> replays a run, FUZZ_RUNS=<n> runs more.

const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const fuzz = {
  numRuns: RUNS,
  ...(SEED === undefined ? {} : { seed: SEED }),
  endOnFailure: true,
} satisfies fc.Parameters<unknown>;

let signedIn: SignedInStaff | null = null;
let passwordChangeRequired = false;
let database: Database;

// As in the role matrix: next-auth cannot load outside Next.js. Its error classes serve the sign-in action, its
// middleware wrapper (attaching the session) serves proxy.ts.
const authErrors = vi.hoisted(() => {
  class AuthError extends Error {
    type = "AuthError";
  }
  class CredentialsSignin extends AuthError {
    type = "CredentialsSignin";
  }
  return { AuthError, CredentialsSignin };
});
vi.mock("next-auth", () => ({
  ...authErrors,
  default: () => ({
    auth:
      (handler: (request: NextRequest, event: NextFetchEvent) => Promise<Response>) =>
      (request: NextRequest, event: NextFetchEvent) =>
        handler(Object.assign(request, { auth: signedIn && { user: { id: signedIn.id } } }), event),
  }),
}));
vi.mock("../auth", () => ({
  currentStaff: async () => (passwordChangeRequired ? null : signedIn),
  sessionAccount: async () => signedIn && { ...signedIn, authSource: "password", passwordChangeRequired },
  clientAddress: () => "203.0.113.9",
  ssoProvider: () => null,
  signIn: async () => {
    throw new authErrors.CredentialsSignin();
  },
  signOut: async () => undefined,
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

const sandbox = createSandbox({ rateLimits: false, importDelayMs: 0 });
const people = {} as Record<Role, SignedInStaff>;
let linkId = "";
let transactionId = "";
let jobId = "";
const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-fuzz-"));

beforeAll(async () => {
  const url = await sandbox.listen(0);
  Object.assign(process.env, {
    UPSTREAM_BASE_URL: url,
    UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
    UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
    UPSTREAM_SANDBOX: "1",
    AUTH_SECRET: "fuzz-secret-0123456789abcdef0123456789abcd",
    LOG_LEVEL: "silent",
    LINKDESK_DATA_DIR: dataDir,
  });
  database = await openTestPglite();
  for (const role of ROLES) {
    const [row] = await database.db
      .insert(staff)
      .values({ email: `${role}@fuzz.test`, role })
      .returning();
    people[role] = { id: row!.id, email: row!.email, name: null, role };
  }
  const fixtures = (await (await fetch(`${url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  linkId = fixtures.plain![0]!;
  const { upstream } = await import("../upstream");
  transactionId = (await upstream().getTransactions(linkId, { size: 1 })).transactions[0]!.transaction_id;
  const { insertJob } = await import("../jobs/store");
  const job = await insertJob(database.db, {
    kind: "correction",
    title: "fuzz job",
    linkId,
    createdBy: { id: people.support.id, email: people.support.email, role: "support" },
    items: [{ input: { transactionId, before: null, after: { category: "banking" } }, targetId: transactionId }],
  });
  jobId = job.id;
}, 60_000);

afterAll(async () => {
  await database?.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------------
// What a client can send.

/** One piece of a string: the characters that broke things before, and any other. */
const piece = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "\0",
      "\u200f",
      "\u200e",
      "\u202e",
      "\u2066",
      "\ufeff",
      "\u2028",
      "\ufffd",
      "%",
      "%ff",
      "%00",
      "%E0%A4%A",
      "/",
      "\\",
      "..",
      "'",
      '"',
      "<",
      "😀",
      "e\u0301",
    ),
  },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  { weight: 4, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
);
const shortOddString = fc.string({ unit: piece, maxLength: 12 });
/** A string that holds, somewhere, one of the characters the database refuses. */
const poisoned = fc
  .tuple(
    shortOddString,
    fc.oneof(
      fc.constant("\0"),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
    ),
    shortOddString,
  )
  .map((parts) => parts.join(""));
const oddString = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: piece, maxLength: 40 }) },
  { weight: 3, arbitrary: poisoned },
  { weight: 1, arbitrary: fc.constantFrom("x".repeat(300_000), "\0".repeat(20_000), `${"\ud83d".repeat(10_000)}`) },
  { weight: 2, arbitrary: fc.uuid() },
);

/** `[[[ … ]]]` or `{a:{a: … }}`, built without recursion. */
function nested(depth: number, leaf: unknown, asObject: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
}

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: oddString },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.bigInt(),
    ),
  },
  {
    weight: 3,
    arbitrary: fc.anything({
      key: shortOddString,
      values: [oddString, fc.integer(), fc.boolean(), fc.constant(null)],
      maxDepth: 3,
      maxKeys: 6,
      withMap: true,
      withSet: true,
      withDate: true,
      withNullPrototype: true,
      withBigInt: true,
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 65, max: 20_000 }), fc.constantFrom("\0", "x", 1), fc.boolean())
      .map(([depth, leaf, asObject]) => nested(depth, leaf, asObject)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Array.from({ length: 50_000 }, (_, i) => ({ transactionId: `t${i}` })),
      Array.from({ length: 5_000 }, () => "\u202e"),
    ),
  },
  { weight: 1, arbitrary: shortOddString.map((name) => new File(["{"], `${name}.json`)) },
);

/** A valid input with some of its fields replaced by odd values, and odd fields added. */
function shaped(sample: Record<string, unknown>): fc.Arbitrary<unknown> {
  const fields = Object.fromEntries(
    Object.entries(sample).map(([key, value]) => [
      key,
      fc.oneof({ weight: 2, arbitrary: fc.constant(value) }, { weight: 3, arbitrary: oddValue }),
    ]),
  );
  return fc
    .tuple(fc.record(fields), fc.dictionary(shortOddString, oddValue, { maxKeys: 3 }))
    .map(([record, extra]) => ({ ...extra, ...record }));
}

// ---------------------------------------------------------------------------------------------------------------------
// Server actions.

const actions = await loadActions();

/** A valid input per action, the starting point of shaped inputs. An action without one is fed odd values only. */
const samples: Record<string, () => Record<string, unknown>> = {
  correctCategory: () => ({ linkId, transactionId, category: "banking", subcategory: "atm_fees", date: "2024-01-31" }),
  correctCategoryBulk: () => ({ linkId, category: "banking", subcategory: "atm_fees", items: [{ transactionId }] }),
  undoCorrection: () => ({ correlationId: randomUUID() }),
  refreshLink: () => ({ linkId }),
  sendTestWebhook: () => ({ linkId, event: "link.state_changed" }),
  refreshProducts: () => ({ linkId, products: ["accounts"] }),
  updateLink: () => ({
    linkId,
    webhook: "https://hooks.fuzz.example/x",
    tags: "fuzz:1",
    seen: { webhook: null, tags: [] },
  }),
  exchangeToken: () => ({ exchangeableToken: randomUUID() }),
  addStaff: () => ({ email: `new-${randomUUID()}@fuzz.test`, name: "New", role: "viewer" }),
  changeRole: () => ({ staffId: people.viewer.id, role: "viewer" }),
  disableStaff: () => ({ staffId: randomUUID() }),
  enableStaff: () => ({ staffId: randomUUID() }),
  resetStaffPassword: () => ({ staffId: randomUUID() }),
  changeOwnPassword: () => ({
    currentPassword: "not-the-password",
    newPassword: "a-new-password-long-enough",
    confirmPassword: "a-new-password-long-enough",
  }),
  importFile: () => ({
    file: new File(
      [JSON.stringify({ customer_user: { id: `fuzz-${randomUUID()}` }, institution_id: "chase" })],
      "fuzz.json",
    ),
    dryRun: true,
    identityTag: "",
  }),
  resumeImport: () => ({ jobId: randomUUID() }),
  previewImportUndo: () => ({ jobId: randomUUID() }),
  undoImport: () => ({ jobId: randomUUID(), include: [] }),
  pauseJob: () => ({ jobId }),
  resumeJob: () => ({ jobId }),
  retryJob: () => ({ jobId }),
  undoJob: () => ({ jobId }),
  cancelJob: () => ({ jobId }),
  reprocessWebhookEvent: () => ({ eventId: randomUUID() }),
  requestReconnect: () => ({ linkId, requestKey: randomUUID() }),
  startReconnectCampaign: () => ({ view: "error_code=auth_expired", askedWithinDays: 7, expectedLinks: 1 }),
  acknowledgeAlert: () => ({ alertId: randomUUID() }),
  saveTableView: () => ({ table: "links", hidden: ["created_at"], density: "compact" }),
};

/** Actions that leave no audit row by design, and why. */
const unaudited: Record<string, string> = {
  saveTableView: "a person's own table view (PERSONAL_ACTIONS)",
  signInAction: "signing in is for people without a session; Auth.js's own events audit it",
  signInWithSso: "starts single sign-on; nothing is configured here",
  signOutAction: "takes no input",
};

/** How each action is called with a fuzzed value: most take one input; the session actions have their own shapes. */
const callers: Record<string, (action: AnyAction, input: unknown) => Promise<unknown>> = {
  signInAction: (action, input) => {
    const form = new FormData();
    if (input && typeof input === "object")
      for (const [key, value] of Object.entries(input))
        form.append(key, typeof value === "string" ? value : textOf(value));
    return action(undefined, Array.isArray(input) ? input : form);
  },
  signOutAction: (action) => action(),
};

/** A value as a form field would carry it; objects without a prototype have no String() of their own. */
function textOf(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

type Result = { serverError?: unknown; validationErrors?: unknown; data?: unknown; error?: unknown } | undefined;

const actionInput = (name: string) => {
  const sample = samples[name];
  if (name === "signInAction") return fc.oneof(shaped({ email: "someone@example.com", password: "wrong" }), oddValue);
  return sample
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constant(null).chain(() => shaped(sample())) },
        { weight: 1, arbitrary: oddValue },
      )
    : oddValue;
};

describe("the outside test's cases", () => {
  const lastRow = async (email: string) => {
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.actorEmail, email))
      .orderBy(desc(auditLog.id))
      .limit(1);
    return row;
  };

  it.each([
    ["a NUL in a link id", "refreshLink", { linkId: "mk_\0" }, "linkId", "a NUL character"],
    [
      "half of a surrogate pair in a bulk item",
      "correctCategoryBulk",
      { linkId: "mk_1", category: "banking", subcategory: "atm_fees", items: [{ transactionId: "t_\ud800" }] },
      "items[0].transactionId",
      "half of a surrogate pair",
    ],
    ["a NUL in a field's name", "undoCorrection", { "correlationId\0": "x" }, "a field name", "a NUL character"],
  ])("refuses %s in words, before the database, and audits the refusal", async (_case, name, input, field, what) => {
    signedIn = people.admin;
    const result = (await actions[name]!(input)) as Result;
    expect(result?.serverError).toBe(
      `Refused: ${field} holds ${what}, which Linkdesk cannot store. Remove it and try again.`,
    );
    expect(await lastRow(people.admin.email)).toMatchObject({
      outcome: "refused",
      input: { reason: `input holds ${what}`, field },
    });
  });

  it("audits a role refusal whose input's field names cannot be stored, with stand-ins", async () => {
    signedIn = people.viewer;
    const result = (await actions.correctCategory!({ "linkId\0": "x", "\udc00": 1 })) as Result;
    expect(result?.serverError).toMatch(/^Your role \(Viewer\) may not /);
    expect(await lastRow(people.viewer.email)).toMatchObject({
      outcome: "refused",
      input: { fields: ["linkId\u2400", "\ufffd"] },
    });
  });
});

describe("server actions, fed anything", () => {
  it("finds them", () => {
    expect(Object.keys(actions).length).toBeGreaterThanOrEqual(20);
  });

  it.each(Object.keys(actions).sort())("%s", async (name) => {
    const action = actions[name]!;
    const call = callers[name] ?? ((fn: AnyAction, input: unknown) => fn(input));
    await fc.assert(
      // One call in ten as someone who has not yet replaced a one-time password.
      fc.asyncProperty(
        fc.constantFrom(...ROLES),
        fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
        actionInput(name),
        async (role, oneTimePassword, input) => {
          signedIn = people[role];
          passwordChangeRequired = oneTimePassword;
          const [last] = await database.db
            .select({ id: auditLog.id })
            .from(auditLog)
            .orderBy(desc(auditLog.id))
            .limit(1);
          const lastId = last?.id ?? 0;
          let result: Result;
          try {
            result = (await call(action, input)) as Result;
          } catch (error) {
            // Next.js's redirect() is an answer, not a failure.
            if (String((error as { digest?: unknown }).digest ?? "").startsWith("NEXT_REDIRECT")) return;
            throw error;
          } finally {
            passwordChangeRequired = false;
          }
          expect(String(result?.serverError ?? "")).not.toMatch(/Something went wrong/);
          const refused = result?.serverError !== undefined || result?.validationErrors !== undefined;
          if (!refused || name in unaudited) return;
          const rows = await database.db
            .select({ outcome: auditLog.outcome })
            .from(auditLog)
            .where(
              and(
                gt(auditLog.id, lastId),
                eq(auditLog.actorEmail, people[role].email),
                inArray(auditLog.outcome, ["refused", "invalid", "error", "upstream_error"]),
              ),
            );
          expect(
            rows.length,
            `the refusal "${String(result?.serverError ?? "invalid input")}" left no audit row`,
          ).toBeGreaterThanOrEqual(1);
        },
      ),
      fuzz,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Route handlers, called as Next.js calls them: the URL as a client may write it, params as Next.js decodes them.

/** %-escapes text as a client may: UTF-8, and a lone half of a surrogate pair as the bytes it would have (WTF-8). */
function escapeLoosely(text: string): string {
  let out = "";
  for (const char of text) {
    const unit = char.charCodeAt(0);
    out +=
      char.length === 1 && unit >= 0xd800 && unit <= 0xdfff
        ? [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join("")
        : encodeURIComponent(char);
  }
  return out;
}

/** A param's or a query value's text: odd, or a malformed escape sent as is, or one of the app's real ids. */
const paramText = fc.oneof(
  { weight: 4, arbitrary: shortOddString.map((text) => ({ decoded: text, escaped: escapeLoosely(text) })) },
  { weight: 3, arbitrary: poisoned.map((text) => ({ decoded: text, escaped: escapeLoosely(text) })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("%ff%fe", "%", "%E0%A4%A", "%ED%A0%80", "%C0%AF")
      .map((raw) => ({ decoded: null, escaped: raw })),
  },
  { weight: 2, arbitrary: fc.constantFrom("job", "link", "uuid").map((kind) => ({ decoded: kind, escaped: kind })) },
);
const QUERY_KEYS = [
  "state",
  "q",
  "calls",
  "offset",
  "id",
  "page",
  "sort",
  "dir",
  "all",
  "kind",
  "actor",
  "from",
  "to",
  "tag",
  "institution",
  "stale",
  "category",
];
const query = fc.array(
  fc.tuple(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...QUERY_KEYS) },
      { weight: 1, arbitrary: shortOddString.map(escapeLoosely) },
    ),
    paramText,
  ),
  { maxLength: 4 },
);

const routes = routeFiles();

/**
 * Routes whose answer does not depend on what the address holds, and may be a 5xx by design. Each is called once
 * plainly first: a fuzzed call may answer its status, whatever that is, and no other 5xx.
 */
const stateful5xx: Record<string, string> = {
  "app/api/ready/route.ts":
    "503 while the instance should get no traffic (here: the server's own database is not open)",
};

/** An error body in words: a sentence, or (GET /api/links/{id}) the upstream's title and detail. */
const inWords = expect.objectContaining({
  error: expect.toSatisfy(
    (error: unknown) =>
      typeof error === "string" ||
      (typeof error === "object" && error !== null && Object.values(error).every((v) => typeof v === "string")),
  ),
});

describe("route handlers, fed any address", () => {
  it("finds them", () => {
    expect(routes.length).toBeGreaterThanOrEqual(10);
  });

  it.each(routes)("%s", async (file) => {
    const handlers = await loadRoute(file);
    const names = routeParams(file);
    const real = (kind: string | null) =>
      kind === "job" ? jobId : kind === "link" ? linkId : kind === "uuid" ? randomUUID() : kind;
    for (const [method, handler] of Object.entries(handlers)) {
      signedIn = people.admin;
      const plainParams = Object.fromEntries(
        names.map(({ name, catchAll }) => [name, catchAll ? [linkId] : name.startsWith("job") ? jobId : linkId]),
      );
      const plainUrl = `http://linkdesk.test${routePath(file, (name) => String((plainParams[name] as string | string[]).toString()))}`;
      const plain = await handler(new NextRequest(plainUrl, { method }), { params: Promise.resolve(plainParams) });
      await plain.body?.cancel();
      expect(
        plain.status < 500 || file in stateful5xx,
        `${method} ${plainUrl} answers ${plain.status} without any odd input`,
      ).toBe(true);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(null, ...ROLES),
          fc.array(paramText, { minLength: names.length, maxLength: names.length }),
          query,
          async (role, values, pairs) => {
            signedIn = role === null ? null : people[role];
            const params = Object.fromEntries(
              names.map(({ name, catchAll }, i) => {
                const decoded = real(values[i]!.decoded) ?? "";
                return [name, catchAll ? [decoded] : decoded];
              }),
            );
            const pathname = routePath(file, (name) => {
              const value = values[names.findIndex((n) => n.name === name)]!;
              return value.decoded === null ? value.escaped : escapeLoosely(String(real(value.decoded)));
            });
            const search = pairs
              .map(
                ([key, value]) =>
                  `${key}=${value.decoded === null ? value.escaped : escapeLoosely(String(real(value.decoded)))}`,
              )
              .join("&");
            const request = new NextRequest(`http://linkdesk.test${pathname}${search ? `?${search}` : ""}`, { method });
            const response = await handler(request, { params: Promise.resolve(params) });
            if (response.status >= 500) {
              expect(response.status, `${method} ${request.url}`).toBe(
                file in stateful5xx ? plain.status : "below 500",
              );
              await response.body?.cancel();
            } else if (response.status >= 400) {
              expect(await response.json(), `${method} ${request.url}`).toEqual(inWords);
            } else {
              // A CSV export streams after its 200: the whole body must come, not a stream that fails halfway.
              await response.arrayBuffer();
            }
          },
        ),
        fuzz,
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// The door: any method, address, headers and body.

describe("the door, fed any request", () => {
  it("answers every request in words or passes it on, never with a 5xx", async () => {
    const rootModule: string = "../../proxy";
    const { proxy } = (await import(rootModule)) as {
      proxy: (request: NextRequest, event: NextFetchEvent) => Promise<Response>;
    };
    const segment = fc.oneof(
      shortOddString.map(escapeLoosely),
      fc.constantFrom("%ff%fe", "%", "%00", "%ED%A0%80", "links", "api", "import", "sign-in", "auth", "jobs"),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      oddString,
      oddValue.map((value) => {
        try {
          return JSON.stringify(value) ?? "";
        } catch {
          return "{";
        }
      }),
      fc.constantFrom("[".repeat(10_000), "x".repeat(2 * 1024 * 1024)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "DELETE"),
        fc.array(segment, { maxLength: 4 }),
        query,
        fc.record({
          action: fc.boolean(),
          type: fc.constantFrom(
            "text/plain",
            "multipart/form-data; boundary=b",
            "application/json",
            "application/xml",
            "",
          ),
          foreign: fc.boolean(),
        }),
        body,
        fc.constantFrom(null, ...ROLES),
        async (method, segments, pairs, head, text, role) => {
          signedIn = role === null ? null : people[role];
          const search = pairs.map(([key, value]) => `${key}=${value.escaped}`).join("&");
          const headers: Record<string, string> = {
            host: "linkdesk.test",
            ...(head.type ? { "content-type": head.type } : {}),
            ...(head.action ? { "next-action": "7f00" } : {}),
          };
          if (head.foreign) headers.origin = "https://elsewhere.example";
          const request = new NextRequest(`http://linkdesk.test/${segments.join("/")}${search ? `?${search}` : ""}`, {
            method,
            headers,
            ...(method === "GET" || text === undefined ? {} : { body: text }),
          });
          const response = await proxy(request, {} as NextFetchEvent);
          expect(response.status).toBeLessThan(500);
          if (response.status >= 400) expect((await response.text()).length).toBeGreaterThan(0);
        },
      ),
      { ...fuzz, numRuns: RUNS * 10 },
    );
  });
});
