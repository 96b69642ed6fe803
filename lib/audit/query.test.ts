import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { type AuditEntry, auditLog, type NewAuditEntry } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import {
  AUDIT_CSV_HEADER,
  type AuditCursor,
  type AuditFilters,
  auditFiltersToSearchParams,
  encodeAuditCursor,
  listAudit,
  parseAuditFilters,
  streamAuditCsv,
} from "./query";

const databases = withTestDatabases();

// The databases live for the whole file and audit rows cannot be deleted, so each test tags its rows (emails, link
// ids) or uses a time window of its own, and filters on that.
const tagged = () => randomUUID().slice(0, 8);

async function seed(db: Db, rows: Partial<NewAuditEntry>[]): Promise<AuditEntry[]> {
  return db
    .insert(auditLog)
    .values(
      rows.map((row) => ({
        action: "transaction.correct",
        outcome: "ok" as const,
        correlationId: randomUUID(),
        ...row,
      })),
    )
    .returning();
}

/** Newest first, as the page and the export order rows. */
const newestFirst = (rows: AuditEntry[]) => [...rows].sort((a, b) => b.at.getTime() - a.at.getTime() || b.id - a.id);

async function allPages(db: Db, filters: AuditFilters, limit: number) {
  const pages: AuditEntry[][] = [];
  let cursor: AuditCursor | undefined;
  for (;;) {
    const { rows, nextCursor } = await listAudit(db, { ...filters, cursor }, { limit });
    pages.push(rows);
    if (!nextCursor) return pages;
    // A cursor goes through the URL between pages.
    const reparsed = parseAuditFilters({ cursor: encodeAuditCursor(nextCursor) });
    cursor = reparsed.filters.cursor;
    expect(cursor).toEqual(nextCursor);
  }
}

async function csvOf(db: Db, filters: AuditFilters, batchSize?: number): Promise<string> {
  let text = "";
  for await (const chunk of streamAuditCsv(db, filters, { batchSize })) text += chunk;
  return text;
}

/** An RFC 4180 reader, independent of the writer under test. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  const endField = () => {
    record.push(field);
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") endField();
    else if (c === "\r" && text[i + 1] === "\n") {
      endField();
      records.push(record);
      record = [];
      i++;
    } else field += c;
  }
  if (field !== "" || record.length > 0) throw new Error("the CSV does not end with CRLF");
  return records;
}

const column = (name: string) => AUDIT_CSV_HEADER.indexOf(name);

describe("parseAuditFilters", () => {
  it("reads each filter, normalising the email and turning dates into inclusive UTC bounds", () => {
    const { filters, dropped } = parseAuditFilters({
      person: "  Ana.Ops@Example.COM ",
      action: "transaction.correct",
      link: "link_123",
      outcome: "upstream_error",
      from: "2025-03-01",
      to: "2025-03-31",
      utm_source: "newsletter",
    });
    expect(dropped).toEqual([]);
    expect(filters).toEqual({
      person: "ana.ops@example.com",
      action: "transaction.correct",
      link: "link_123",
      outcome: "upstream_error",
      from: { text: "2025-03-01", at: new Date("2025-03-01T00:00:00.000Z") },
      to: { text: "2025-03-31", before: new Date("2025-04-01T00:00:00.000Z") },
    });
  });

  it("takes date-times as exact instants, the end inclusive to the millisecond", () => {
    const { filters, dropped } = parseAuditFilters(
      new URLSearchParams("from=2025-03-01T08:00:00%2B02:00&to=2025-03-01T12:30:00.250Z"),
    );
    expect(dropped).toEqual([]);
    expect(filters.from?.at).toEqual(new Date("2025-03-01T06:00:00.000Z"));
    expect(filters.to?.before).toEqual(new Date("2025-03-01T12:30:00.251Z"));
  });

  it("treats blank values, as a GET form sends them, as no filter", () => {
    expect(parseAuditFilters(new URLSearchParams("person=&action=&link=%20%20&outcome=&from=&to="))).toEqual({
      filters: {},
      dropped: [],
    });
  });

  it("drops each bad value and says which and why, keeping the good ones", () => {
    const { filters, dropped } = parseAuditFilters({
      person: "not an email",
      action: "transaction.delete",
      link: "has space",
      outcome: "maybe",
      from: "2025-02-30",
      to: "yesterday",
      cursor: "garbage",
    });
    expect(filters).toEqual({});
    expect(dropped.map((d) => [d.param, d.value])).toEqual([
      ["person", "not an email"],
      ["action", "transaction.delete"],
      ["link", "has space"],
      ["outcome", "maybe"],
      ["from", "2025-02-30"],
      ["to", "yesterday"],
      ["cursor", "garbage"],
    ]);
    for (const d of dropped) expect(d.reason).toMatch(/\w/);

    const mixed = parseAuditFilters(
      new URLSearchParams("action=link.import&outcome=ok&outcome=refused&from=1900-01-01"),
    );
    expect(mixed.filters).toEqual({ action: "link.import" });
    expect(mixed.dropped).toEqual([
      { param: "outcome", value: "ok, refused", reason: "given more than once" },
      { param: "from", value: "1900-01-01", reason: "outside 1970–9998" },
    ]);
  });

  it("drops a range that ends before it starts", () => {
    const { filters, dropped } = parseAuditFilters({ from: "2025-03-02", to: "2025-03-01", action: "auth.sign_in" });
    expect(filters).toEqual({ action: "auth.sign_in" });
    expect(dropped.map((d) => d.param)).toEqual(["from", "to"]);
  });

  it("refuses cursors that decode to something else than a position", () => {
    const forged = Buffer.from(
      JSON.stringify({ at: "2025-01-01T00:00:00.000Z", id: "1; drop table audit_log" }),
    ).toString("base64url");
    expect(parseAuditFilters({ cursor: forged }).dropped.map((d) => d.param)).toEqual(["cursor"]);
    const cursor = { at: new Date("2025-01-01T00:00:00.123Z"), id: 42 };
    expect(parseAuditFilters({ cursor: encodeAuditCursor(cursor) }).filters.cursor).toEqual(cursor);
  });

  it("writes filters back to the same URL parameters", () => {
    const params = new URLSearchParams(
      "person=a%40b.c&action=auth.sign_in&link=L1&outcome=ok&from=2025-01-01&to=2025-01-02T10:00:00Z",
    );
    const { filters } = parseAuditFilters(params);
    const cursor = { at: new Date("2025-01-02T09:00:00Z"), id: 7 };
    const written = auditFiltersToSearchParams(filters, cursor);
    expect(written.toString()).toBe(`${params.toString()}&cursor=${encodeAuditCursor(cursor)}`);
    expect(parseAuditFilters(written).filters).toEqual({ ...filters, cursor });
  });
});

describe.each(databases)("$kind", (target) => {
  it("narrows by each filter, and by two together", async () => {
    const { db } = target.database;
    const t = tagged();
    const ana = `ana-${t}@example.com`;
    const bo = `bo-${t}@example.com`;
    const [l1, l2] = [`link-${t}-1`, `link-${t}-2`];
    const base = Date.parse("2024-06-01T12:00:00Z");
    const specs: Partial<NewAuditEntry>[] = [];
    let n = 0;
    for (const actorEmail of [ana, bo])
      for (const action of ["transaction.correct", "link.import"])
        for (const linkId of [l1, l2])
          for (const outcome of ["ok", "upstream_error"] as const)
            specs.push({ actorEmail, action, linkId, outcome, at: new Date(base + n++ * 60_000) });
    const seeded = await seed(db, specs);
    // Scope every query to this test's rows: two links only this test uses.
    const mine = (rows: AuditEntry[]) => rows.filter((r) => r.linkId === l1 || r.linkId === l2);
    const query = async (filters: AuditFilters) =>
      mine((await listAudit(db, filters, { limit: 500 })).rows).map((r) => r.id);
    const expected = (keep: (r: AuditEntry) => boolean) => newestFirst(seeded.filter(keep)).map((r) => r.id);

    expect(await query(parseAuditFilters({ person: ana.toUpperCase() }).filters)).toEqual(
      expected((r) => r.actorEmail === ana),
    );
    expect(await query({ action: "link.import" })).toEqual(expected((r) => r.action === "link.import"));
    expect(await query({ link: l2 })).toEqual(expected((r) => r.linkId === l2));
    expect(await query({ outcome: "upstream_error" })).toEqual(expected((r) => r.outcome === "upstream_error"));
    const both = await query({ person: bo, outcome: "ok" });
    expect(both).toHaveLength(4);
    expect(both).toEqual(expected((r) => r.actorEmail === bo && r.outcome === "ok"));
    expect(await query({ link: l1, action: "transaction.correct", person: ana, outcome: "upstream_error" })).toEqual(
      expected(
        (r) =>
          r.linkId === l1 &&
          r.action === "transaction.correct" &&
          r.actorEmail === ana &&
          r.outcome === "upstream_error",
      ),
    );
    expect(await query({ person: `nobody-${t}@example.com` })).toEqual([]);
  });

  it("includes both ends of a time range, to the end of the last day", async () => {
    const { db } = target.database;
    const link = `link-${tagged()}`;
    const at = (iso: string) => ({ linkId: link, at: new Date(iso) });
    const [justBefore, firstMoment, midday, lastMoment, justAfter] = await seed(db, [
      at("2003-04-30T23:59:59.999Z"),
      at("2003-05-01T00:00:00.000Z"),
      at("2003-05-02T12:00:00.000Z"),
      at("2003-05-03T23:59:59.999Z"),
      at("2003-05-04T00:00:00.000Z"),
    ]);
    const ids = async (params: Record<string, string>) => {
      const { filters, dropped } = parseAuditFilters({ link, ...params });
      expect(dropped).toEqual([]);
      return (await listAudit(db, filters)).rows.map((r) => r.id);
    };
    expect(await ids({ from: "2003-05-01", to: "2003-05-03" })).toEqual([lastMoment!.id, midday!.id, firstMoment!.id]);
    expect(await ids({ from: "2003-05-01", to: "2003-05-01" })).toEqual([firstMoment!.id]);
    expect(await ids({ to: "2003-04-30" })).toEqual([justBefore!.id]);
    expect(await ids({ from: "2003-05-04" })).toEqual([justAfter!.id]);
    expect(await ids({ from: "2003-05-02T12:00:00Z", to: "2003-05-02T12:00:00.000Z" })).toEqual([midday!.id]);
    expect(await ids({ from: "2003-05-02T14:00:00.001+02:00", to: "2003-05-03T23:59:59.998Z" })).toEqual([]);
  });

  it("visits every matching row exactly once across pages, though most share one millisecond", async () => {
    const { db } = target.database;
    const link = `link-${tagged()}`;
    const crowded = new Date("2024-02-02T10:00:00.500Z");
    const seeded = await seed(db, [
      ...Array.from({ length: 100 }, () => ({ linkId: link, at: crowded })),
      ...Array.from({ length: 31 }, (_, i) => ({ linkId: link, at: new Date(crowded.getTime() + (i - 15)) })),
    ]);
    // Other rows in the table, before and after in time, that the filter must keep out of every page.
    await seed(db, [
      { linkId: `${link}-other`, at: crowded },
      { linkId: `${link}-other`, at: new Date(crowded.getTime() - 1) },
    ]);

    const pages = await allPages(db, { link }, 7);
    expect(pages).toHaveLength(Math.ceil(131 / 7));
    for (const page of pages.slice(0, -1)) expect(page).toHaveLength(7);
    const visited = pages.flat().map((r) => r.id);
    expect(new Set(visited).size).toBe(visited.length);
    expect(visited).toEqual(newestFirst(seeded).map((r) => r.id));
  });

  it("says there is no next page when the last page is exactly full", async () => {
    const { db } = target.database;
    const link = `link-${tagged()}`;
    await seed(
      db,
      Array.from({ length: 10 }, (_, i) => ({ linkId: link, at: new Date(Date.UTC(2024, 0, 1, 0, 0, i)) })),
    );
    const pages = await allPages(db, { link }, 5);
    expect(pages.map((p) => p.length)).toEqual([5, 5]);
    expect((await listAudit(db, { link: `${link}-none` })).rows).toEqual([]);
  });

  it("exports exactly the filtered view as CSV, in the page's order, across batches and ignoring the cursor", async () => {
    const { db } = target.database;
    const t = tagged();
    const link = `link-${t}`;
    const seeded = await seed(
      db,
      Array.from({ length: 23 }, (_, i) => ({
        linkId: link,
        actorEmail: `ops-${t}@example.com`,
        actorRole: "ops",
        outcome: i % 3 === 0 ? ("upstream_error" as const) : ("ok" as const),
        upstreamStatus: i % 3 === 0 ? 409 : 200,
        upstreamErrorCode: i % 3 === 0 ? "link_busy" : null,
        targetType: "transaction",
        targetId: `tx-${i}`,
        input: { category: "food", n: i },
        before: i % 2 ? { category: "transport" } : null,
        after: { category: "food" },
        ip: "10.0.0.1",
        at: new Date(Date.UTC(2024, 3, 1) + Math.floor(i / 4)),
      })),
    );
    const filters: AuditFilters = { link, outcome: "ok" };
    const view = (await allPages(db, filters, 4)).flat();
    expect(view).toHaveLength(seeded.filter((r) => r.outcome === "ok").length);

    // As exported from the second page of the view.
    const { nextCursor } = await listAudit(db, filters, { limit: 3 });
    expect(nextCursor).not.toBeNull();
    const [header, ...records] = parseCsv(await csvOf(db, { ...filters, cursor: nextCursor ?? undefined }, 4));
    expect(header).toEqual(AUDIT_CSV_HEADER);
    expect(records).toHaveLength(view.length);
    expect(records.map((r) => r[column("correlation_id")])).toEqual(view.map((r) => r.correlationId));

    const first = view[0]!;
    expect(Object.fromEntries(AUDIT_CSV_HEADER.map((name, i) => [name, records[0]![i]]))).toEqual({
      at: first.at.toISOString(),
      actor_email: `ops-${t}@example.com`,
      actor_role: "ops",
      action: "transaction.correct",
      outcome: "ok",
      target_type: "transaction",
      target_id: first.targetId,
      link_id: link,
      upstream_status: "200",
      upstream_error_code: "",
      correlation_id: first.correlationId,
      ip: "10.0.0.1",
      input: JSON.stringify(first.input),
      before: first.before === null ? "" : JSON.stringify(first.before),
      after: '{"category":"food"}',
    });

    // With the default batch size too, and for a view with nothing in it.
    expect(parseCsv(await csvOf(db, filters)).length).toBe(view.length + 1);
    expect(await csvOf(db, { link: `${link}-none` })).toBe(`${AUDIT_CSV_HEADER.join(",")}\r\n`);
  });

  it("quotes commas, quotes and line breaks, and defuses cells a spreadsheet would run as formulas", async () => {
    const { db } = target.database;
    const link = `link-${tagged()}`;
    const awkward = 'Smith, "Jo"\nsecond line';
    await seed(db, [
      {
        linkId: link,
        targetType: awkward,
        targetId: '=HYPERLINK("http://evil.example","click")',
        actorRole: "+1+1",
        upstreamErrorCode: "-2+3",
        ip: "@SUM(A1:A2)",
        actorEmail: "\tcmd@example.com",
        action: "\r=1",
        input: "=1+1",
        after: { note: "=not a formula at the start" },
      },
    ]);
    const text = await csvOf(db, { link });
    expect(text).toContain('"Smith, ""Jo""\nsecond line"');
    const [, record] = parseCsv(text);
    const cell = (name: string) => record![column(name)];
    expect(cell("target_type")).toBe(awkward);
    expect(cell("target_id")).toBe('\'=HYPERLINK("http://evil.example","click")');
    expect(cell("actor_role")).toBe("'+1+1");
    expect(cell("upstream_error_code")).toBe("'-2+3");
    expect(cell("ip")).toBe("'@SUM(A1:A2)");
    expect(cell("actor_email")).toBe("'\tcmd@example.com");
    expect(cell("action")).toBe("'\r=1");
    // JSON text: a string value is written with its quotes, so it starts with '"' and is left alone.
    expect(cell("input")).toBe('"=1+1"');
    expect(cell("after")).toBe('{"note":"=not a formula at the start"}');
  });
});
