import { and, desc, eq, inArray } from "drizzle-orm";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type Database, createDatabase } from "@/lib/db/client";
import { auditLog, linkCustomers, links } from "@/lib/db/schema";
import { REGISTER_CALLS_PER_MINUTE } from "@/lib/links/service-registration";
import { REGISTER_REQUEST_MAX_IDS } from "@/lib/schemas/discovery";

// POST /api/links/register as the product's back end calls it: the service token, the body's shape, ids checked one
// by one and counted once, every answer in words and never a 5xx for what the caller sent; the back end is the
// audited actor, and the token never reaches the log.

const TOKEN = "service-token-0123456789abcdef0123456789";
const env: { LINKDESK_SERVICE_TOKEN: string | undefined } = { LINKDESK_SERVICE_TOKEN: TOKEN };
const logged: string[] = [];
let database: Database;

vi.mock("@/lib/env", () => ({ getEnv: () => env }));
vi.mock("@/lib/db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));
vi.mock("@/lib/auth", () => ({ clientAddress: (headers: Headers) => headers.get("x-forwarded-for") }));
vi.mock("@/lib/logger", () => {
  const log = (obj: object, msg: string) =>
    void logged.push(JSON.stringify({ obj, msg }, (_, value) => (value instanceof Error ? value.message : value)));
  const child = { info: log, warn: log, error: log, debug: log };
  return { logger: () => ({ ...child, child: () => child }) };
});

const { POST } = await import("./route");

beforeAll(async () => {
  database = await createDatabase({ dataDir: "memory" });
}, 60_000);
afterAll(() => database?.close());
beforeEach(() => {
  env.LINKDESK_SERVICE_TOKEN = TOKEN;
});

let addressCounter = 0;
/** A caller of its own address, so one test's calls never count against another's rate limit. */
function caller() {
  const address = `198.51.100.${++addressCounter}`;
  return (body: string | null, authorization: string | null = `Bearer ${TOKEN}`) =>
    POST(
      new NextRequest("http://linkdesk.test/api/links/register", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "x-forwarded-for": address,
          ...(authorization === null ? {} : { Authorization: authorization }),
        },
        body,
      }),
    );
}

async function answer(response: Response) {
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

const id = (n: number) => `mk_route${String(n).padStart(18, "0")}`;
const serviceRows = () =>
  database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, "link.register"), eq(auditLog.actorEmail, "service:back-end")))
    .orderBy(desc(auditLog.id));

describe("POST /api/links/register", () => {
  it("refuses every call while LINKDESK_SERVICE_TOKEN is unset, saying so", async () => {
    env.LINKDESK_SERVICE_TOKEN = undefined;
    const send = caller();
    for (const authorization of [`Bearer ${TOKEN}`, null, "Bearer "]) {
      const { status, body } = await answer(await send(JSON.stringify({ link_ids: [id(1)] }), authorization));
      expect(status).toBe(403);
      expect(body.error).toBe(
        "Registration by the back end is off on this instance: LINKDESK_SERVICE_TOKEN is not set.",
      );
    }
    expect(
      await database.db
        .select()
        .from(links)
        .where(eq(links.linkId, id(1))),
    ).toEqual([]);
  });

  it("refuses a call without the token or with a wrong one (401, in words), records nothing, and never logs what was sent", async () => {
    const send = caller();
    const before = (await serviceRows()).length;
    const missing = await answer(await send(JSON.stringify({ link_ids: [id(2)] }), null));
    expect(missing).toMatchObject({
      status: 401,
      body: { error: "Send the service token: Authorization: Bearer <LINKDESK_SERVICE_TOKEN>." },
    });
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer /);
    for (const authorization of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Basic ${btoa(`back-end:${TOKEN}`)}`,
      "Bearer",
      TOKEN,
    ]) {
      const wrong = await answer(await send(JSON.stringify({ link_ids: [id(2)] }), authorization));
      expect(wrong.status, authorization).toBe(401);
      expect(String(wrong.body.error)).toMatch(/^(The service token is wrong|Send the service token)/);
    }
    expect(
      await database.db
        .select()
        .from(links)
        .where(eq(links.linkId, id(2))),
    ).toEqual([]);
    expect((await serviceRows()).length).toBe(before);
    expect(logged.join("\n")).toContain("wrong service token");
    expect(logged.join("\n")).not.toContain(TOKEN.slice(0, 20));
  });

  it("answers malformed JSON and a wrong shape with 400 in words, audited as invalid with the back end as actor", async () => {
    const send = caller();
    const notJson = await answer(await send('{"link_ids": ["mk_'));
    expect(notJson.status).toBe(400);
    expect(String(notJson.body.error)).toMatch(
      /^Refused: the request body is not valid JSON \(.+\); it may have been cut off\. Send \{"link_ids": \["mk_…", …\]\} with Content-Type: application\/json\.$/,
    );
    const [row] = await serviceRows();
    expect(row).toMatchObject({
      outcome: "invalid",
      actorRole: "service",
      actorId: null,
      ip: expect.stringMatching(/^198\.51\.100\./),
    });

    for (const [body, words] of [
      ["[]", 'the body must be a JSON object: {"link_ids": ["mk_…", …]}'],
      ['{"ids": []}', 'link_ids is missing; unknown field "ids": the body holds link_ids and, optionally, customers'],
      ['{"link_ids": "mk_eqkWN34UEoa2NxyALG8pcV"}', "link_ids must be a list of link ids"],
      [
        '{"link_ids": [], "more": 1, "else": 2}',
        'unknown fields "more", "else": the body holds link_ids and, optionally, customers',
      ],
      ["", "Refused: the request body is empty; JSON was expected."],
      [
        `{"link_ids": ${"[".repeat(5000)}${"]".repeat(5000)}}`,
        "Refused: the request body nests more than 64 levels deep.",
      ],
    ] as const) {
      const refused = await answer(await send(body));
      expect(refused.status, body).toBe(400);
      expect(String(refused.body.error), body).toContain(words);
    }
  });

  it(`refuses more than ${REGISTER_REQUEST_MAX_IDS.toLocaleString("en")} ids a call, and a body over 1 MB, with 413 in words`, async () => {
    const send = caller();
    const many = await answer(
      await send(
        JSON.stringify({ link_ids: Array.from({ length: REGISTER_REQUEST_MAX_IDS + 1 }, (_, i) => id(100_000 + i)) }),
      ),
    );
    expect(many).toMatchObject({
      status: 413,
      body: { error: "link_ids holds at most 10,000 ids a call; send the rest in further calls." },
    });
    const huge = await answer(await send(JSON.stringify({ link_ids: [id(3)], padding: "x".repeat(1024 * 1024) })));
    expect(huge.status).toBe(413);
    expect(String(huge.body.error)).toContain("over 1 MB");
    expect(
      await database.db
        .select()
        .from(links)
        .where(eq(links.linkId, id(100_000))),
    ).toEqual([]);
  });

  it("registers each valid id once, lists the invalid ones by index with the reason, and says which were known already", async () => {
    const send = caller();
    const first = await answer(
      await send(JSON.stringify({ link_ids: [id(10), id(11), id(10), "not-a-link", 42, ` ${id(12)}`, id(11)] })),
    );
    expect(first).toMatchObject({
      status: 200,
      body: {
        registered: 2,
        alreadyKnown: 0,
        duplicates: 2,
        invalid: [
          { index: 3, reason: expect.stringContaining("does not start with mk_") },
          { index: 4, reason: "not text but number" },
          { index: 5, reason: "has spaces around it" },
        ],
      },
    });
    const rows = await database.db
      .select()
      .from(links)
      .where(inArray(links.linkId, [id(10), id(11)]));
    expect(rows.map((r) => ({ linkId: r.linkId, learnedFrom: r.learnedFrom, state: r.state }))).toEqual(
      expect.arrayContaining([
        { linkId: id(10), learnedFrom: "registration", state: null },
        { linkId: id(11), learnedFrom: "registration", state: null },
      ]),
    );
    const [row] = await serviceRows();
    expect(row).toMatchObject({
      outcome: "ok",
      input: { ids: 7, valid: 2, invalid: 3, duplicates: 2 },
      after: { registered: 2, alreadyKnown: 0 },
    });

    const again = await answer(await send(JSON.stringify({ link_ids: [id(10), id(13)] })));
    expect(again).toMatchObject({ status: 200, body: { registered: 1, alreadyKnown: 1, duplicates: 0, invalid: [] } });
    expect(again.headers.get("cache-control")).toBe("no-store");
  });

  it("keeps whose each registered link is, for valid ids of the call only, and refuses a customer that is not text", async () => {
    const send = caller();
    const given = await answer(
      await send(
        JSON.stringify({
          link_ids: [id(30), id(31), "not-a-link"],
          customers: {
            [id(30)]: "user_back_end_1",
            [id(31)]: "user_back_end_1",
            "not-a-link": "user_x",
            [id(39)]: "user_y",
          },
        }),
      ),
    );
    expect(given).toMatchObject({ status: 200, body: { registered: 2, customers: 2 } });
    const known = await database.db
      .select()
      .from(linkCustomers)
      .where(inArray(linkCustomers.linkId, [id(30), id(31), id(39)]));
    expect(known.map((k) => [k.linkId, k.customerUserId, k.learnedFrom]).sort()).toEqual([
      [id(30), "user_back_end_1", "registration"],
      [id(31), "user_back_end_1", "registration"],
    ]);
    const bad = await answer(await send(JSON.stringify({ link_ids: [id(32)], customers: { [id(32)]: 7 } })));
    expect(bad.status).toBe(400);
    expect(String(bad.body.error)).toContain("a customer user id is text");
  });

  it(`slows one address down after ${REGISTER_CALLS_PER_MINUTE} calls a minute (429 with Retry-After), not the others`, async () => {
    const busy = caller();
    for (let i = 0; i < REGISTER_CALLS_PER_MINUTE; i++)
      expect((await busy(JSON.stringify({ link_ids: [] }))).status).toBe(200);
    const refused = await answer(await busy(JSON.stringify({ link_ids: [id(20)] })));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(String(refused.body.error)).toContain(
      `More than ${REGISTER_CALLS_PER_MINUTE} registration calls in a minute from this address`,
    );
    expect((await caller()(JSON.stringify({ link_ids: [id(20)] }))).status).toBe(200);
  });
});
