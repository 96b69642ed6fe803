import { Writable } from "node:stream";
import { format } from "node:util";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendAudit } from "./audit/append";
import { type Database } from "./db/client";
import { openTestPglite } from "./testing/pglite";
import { databaseErrorOf } from "./db/errors";
import { staff } from "./db/schema";
import { loggableError, loggerOptions, withholdQueryDetailsFromConsole } from "./logger";

// Real failed queries on the embedded database, logged the ways Linkdesk and Next.js log them: through the app's log
// and through console.error (Next.js's printing of an error that escaped a page, action or route). Whatever the
// statement carried (a staff member's email, their id, the audit row's input) must be in none of it.

const EMAIL = "ada.lovelace@example.com";
const STAFF_ID = "6a1e3c1d-0000-4000-8000-00000000abcd";
let database: Database;
const failures: { name: string; error: unknown }[] = [];

beforeAll(async () => {
  database = await openTestPglite();
  await database.db.insert(staff).values({ email: EMAIL, role: "viewer" });
  const fail = async (name: string, query: () => Promise<unknown>) => {
    const error = await query().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, name).toBeInstanceOf(Error);
    failures.push({ name, error });
  };
  // The row quoted back in PostgreSQL's detail ("Key (email)=(…) already exists").
  await fail("a unique violation", () => database.db.insert(staff).values({ email: EMAIL, role: "viewer" }));
  // The reproduction: an action's audit row whose input held half of a surrogate pair.
  await fail("an audit row jsonb refuses", () =>
    appendAudit(
      {
        actor: { id: STAFF_ID, email: EMAIL, role: "admin" },
        action: "link.refresh",
        outcome: "error",
        correlationId: STAFF_ID,
        input: { linkId: "mk_\ud800" },
      },
      database.db,
    ),
  );
  await fail("a NUL in text", () => database.db.insert(staff).values({ email: `${EMAIL}\0`, role: "viewer" }));
  // A data exception quotes the value in its message ('invalid input syntax for type uuid: "…"').
  await fail("a value of the wrong type", () =>
    database.db.insert(staff).values({ id: EMAIL, email: "x@example.com", role: "viewer" }),
  );
}, 60_000);

afterAll(() => database?.close());

const leaks = (text: string) => [EMAIL, STAFF_ID, "mk_", "viewer"].filter((secret) => text.includes(secret));

describe("a failed query, logged", () => {
  it("fails the way the reproduction did: drizzle's message quotes every parameter", () => {
    for (const { name, error } of failures) {
      expect(
        format("%O", error).includes(EMAIL) ||
          format("%O", error).includes(STAFF_ID) ||
          format("%O", error).includes("viewer"),
        name,
      ).toBe(true);
    }
  });

  it("keeps its parameters and the row out of the app's log, with what helps find the failure", () => {
    const lines: string[] = [];
    const log = pino(
      loggerOptions("info"),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    for (const { name, error } of failures) {
      log.error({ err: error }, "server action failed");
      log.error({ db: databaseErrorOf(error) }, "server action failed");
      const [asErr, asDb] = lines.splice(0, 2) as [string, string];
      expect(leaks(asErr), name).toEqual([]);
      expect(leaks(asDb), name).toEqual([]);
      expect(JSON.parse(asErr).err.message, name).toMatch(/^Failed query: .+\nparams: \[withheld\]/s);
      expect(JSON.parse(asErr).err.code ?? JSON.parse(asErr).err.cause?.code ?? asErr, name).toBeTruthy();
    }
  });

  it("keeps them out of console.error, where Next.js prints what escaped a page, action or route", () => {
    const printed: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void printed.push(format(...args));
    try {
      withholdQueryDetailsFromConsole();
      for (const { name, error } of failures) {
        console.error(error);
        console.error("⨯", (error as Error).message);
        const text = printed.splice(0).join("\n");
        expect(leaks(text), name).toEqual([]);
        expect(text, name).toContain("params: [withheld]");
      }
      console.error("nothing to withhold", { count: 3 });
      expect(printed).toEqual(["nothing to withhold { count: 3 }"]);
    } finally {
      console.error = original;
    }
  });

  it("keeps PostgreSQL's SQLSTATE, constraint and the statement's text", () => {
    const [duplicate] = failures;
    const copy = loggableError(duplicate!.error) as Error & { cause?: { code?: string; constraint?: string } };
    expect(copy.message).toMatch(/^Failed query: insert into "staff"/);
    expect(copy.cause).toMatchObject({ code: "23505", constraint: "staff_email_unique" });
    expect(format("%O", copy)).not.toContain("detail");
  });
});
