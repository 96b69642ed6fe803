import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { type WebhookEvent, webhookEvents } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { parseCsv } from "../http/csv";
import { bodyFields, MAX_BODY_FIELDS } from "./body-fields";
import {
  listLinkEvents,
  listWebhookEvents,
  parseWebhookFilters,
  requeueWebhookEvent,
  streamWebhookCsv,
  WEBHOOK_CSV_HEADER,
  type WebhookFilters,
  webhookFiltersToSearchParams,
  webhookSummary,
} from "./query";

const databases = withTestDatabases();

// The databases live for the whole file, so each test tags its rows (link ids, a time window of its own) and filters
// on that; the summary's test uses a clock of its own, years away from the others' rows.
const tagged = () => randomUUID().slice(0, 8);

type Seed = Partial<typeof webhookEvents.$inferInsert>;

async function seed(db: Db, rows: Seed[]): Promise<WebhookEvent[]> {
  return db
    .insert(webhookEvents)
    .values(
      rows.map((row) =>
        row.verification === "refused"
          ? {
              outcome: "refused" as const,
              refusal: "The request has no MoneyKit-Signature header.",
              sourceAddress: "198.51.100.4",
              ...row,
              verification: "refused" as const,
            }
          : {
              verification: "verified" as const,
              outcome: "processed" as const,
              event: "link.state_changed",
              idempotencyKey: randomUUID(),
              deliveryToken: `dt_${tagged()}`,
              deliveryAttempt: 1,
              kid: "key-1",
              body: { webhook_event: row.event ?? "link.state_changed", link_id: row.linkId ?? null, state: "error" },
              ...row,
            },
      ),
    )
    .returning();
}

/** Newest first, as the page and the export order rows (equal times by id). */
const newestFirst = (rows: WebhookEvent[]) =>
  [...rows].sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime() || (a.id < b.id ? -1 : 1));

async function allPages(db: Db, filters: WebhookFilters, limit: number) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const { rows, nextCursor } = await listWebhookEvents(db, { ...filters, cursor }, { limit });
    pages.push(rows.map((r) => r.id));
    if (!nextCursor) return pages;
    // A cursor goes through the URL between pages.
    cursor = parseWebhookFilters(webhookFiltersToSearchParams(filters, nextCursor)).filters.cursor;
    expect(cursor).toBe(nextCursor);
  }
}

async function csvOf(db: Db, filters: WebhookFilters, batchSize?: number): Promise<string> {
  let text = "";
  for await (const chunk of streamWebhookCsv(db, filters, { batchSize })) text += chunk;
  return text;
}

describe("parseWebhookFilters", () => {
  const now = new Date("2026-03-10T12:00:00Z");

  it("reads each filter; a span counts back from now, a day from its start in UTC", () => {
    const { filters, dropped } = parseWebhookFilters(
      {
        kind: "link.state_changed",
        verification: "refused",
        outcome: "failed",
        link: " mk_abc ",
        since: "24h",
        utm_source: "mail",
      },
      now,
    );
    expect(dropped).toEqual([]);
    expect(filters).toEqual({
      kind: "link.state_changed",
      verification: "refused",
      outcome: "failed",
      link: "mk_abc",
      since: { text: "24h", at: new Date("2026-03-09T12:00:00Z") },
    });
    expect(parseWebhookFilters({ since: "2026-03-01" }, now).filters.since?.at).toEqual(
      new Date("2026-03-01T00:00:00Z"),
    );
    expect(parseWebhookFilters({ since: "2026-03-01T08:00:00+02:00" }, now).filters.since?.at).toEqual(
      new Date("2026-03-01T06:00:00Z"),
    );
    // A kind the upstream added since is a filter like any other.
    expect(parseWebhookFilters({ kind: "product.state_changed" }, now).filters.kind).toBe("product.state_changed");
  });

  it("drops each bad value and says which and why, keeping the good ones; blank values are no filter", () => {
    const { filters, dropped } = parseWebhookFilters(
      {
        kind: "has space",
        verification: "maybe",
        outcome: "done",
        link: "x".repeat(201),
        since: "yesterday",
        cursor: "1; drop table webhook_events",
      },
      now,
    );
    expect(filters).toEqual({});
    expect(dropped.map((d) => d.param)).toEqual(["kind", "verification", "outcome", "link", "since", "cursor"]);
    for (const d of dropped) expect(d.reason).toMatch(/\w/);
    expect(parseWebhookFilters(new URLSearchParams("kind=&verification=&outcome=&link=%20&since="), now)).toEqual({
      filters: {},
      dropped: [],
    });
    const twice = parseWebhookFilters(
      new URLSearchParams("outcome=failed&outcome=pending&since=1900-01-01&verification=verified"),
      now,
    );
    expect(twice.filters).toEqual({ verification: "verified" });
    expect(twice.dropped).toEqual([
      { param: "outcome", value: "failed, pending", reason: "given more than once" },
      { param: "since", value: "1900-01-01", reason: "outside 1970–9998" },
    ]);
  });

  it("writes filters back to the same URL parameters", () => {
    const params = new URLSearchParams(
      "kind=link.product_refresh&verification=verified&outcome=pending&link=mk_1&since=7d",
    );
    const { filters } = parseWebhookFilters(params, now);
    const cursor = randomUUID();
    const written = webhookFiltersToSearchParams(filters, cursor);
    expect(written.toString()).toBe(`${params}&cursor=${cursor}`);
    expect(parseWebhookFilters(written, now).filters).toEqual({ ...filters, cursor });
  });
});

describe("bodyFields", () => {
  it("lists a body's leaves by their dotted names, every value as text", () => {
    expect(
      bodyFields({
        link_id: "mk_1",
        state: "error",
        error: { code: "auth_expired", at: null },
        link_tags: ["a", "b"],
        has_history: true,
        n: 3,
        empty: {},
        none: [],
        url: "https://evil.example/x",
      }),
    ).toEqual({
      fields: [
        { name: "link_id", value: "mk_1" },
        { name: "state", value: "error" },
        { name: "error.code", value: "auth_expired" },
        { name: "error.at", value: "(empty)" },
        { name: "link_tags[0]", value: "a" },
        { name: "link_tags[1]", value: "b" },
        { name: "has_history", value: "true" },
        { name: "n", value: "3" },
        { name: "empty", value: "(no fields)" },
        { name: "none", value: "(empty list)" },
        { name: "url", value: "https://evil.example/x" },
      ],
      more: 0,
    });
    expect(bodyFields(null)).toEqual({ fields: [], more: 0 });
    expect(bodyFields({})).toEqual({ fields: [], more: 0 });
  });

  it("bounds the list and each value, however large or deep the body", () => {
    const wide = bodyFields(
      Object.fromEntries(Array.from({ length: MAX_BODY_FIELDS + 7 }, (_, i) => [`f${i}`, "x".repeat(1000)])),
    );
    expect(wide.fields).toHaveLength(MAX_BODY_FIELDS);
    expect(wide.more).toBe(7);
    expect(wide.fields[0]!.value.length).toBeLessThan(1000);
    expect(wide.fields[0]!.value.endsWith("…")).toBe(true);
    let deep: unknown = "bottom";
    for (let i = 0; i < 50_000; i++) deep = { a: deep };
    expect(bodyFields(deep).fields).toHaveLength(1);
  });
});

describe.each(databases)("$kind", (target) => {
  it("narrows by each filter, and by several together, newest first", async () => {
    const { db } = target.database;
    const t = tagged();
    const [l1, l2] = [`mk_${t}_1`, `mk_${t}_2`];
    const base = Date.parse("2021-06-01T12:00:00Z");
    const specs: Seed[] = [];
    let n = 0;
    for (const linkId of [l1, l2])
      for (const event of ["link.state_changed", "transactions.updates_available", "product.state_changed"])
        for (const outcome of ["processed", "failed"] as const)
          specs.push({ linkId, event, outcome, receivedAt: new Date(base + n++ * 60_000) });
    const seeded = await seed(db, specs);
    const mine = (ids: string[]) => ids.filter((id) => seeded.some((r) => r.id === id));
    const query = async (filters: WebhookFilters) =>
      mine((await listWebhookEvents(db, filters, { limit: 500 })).rows.map((r) => r.id));
    const expected = (keep: (r: WebhookEvent) => boolean) => newestFirst(seeded.filter(keep)).map((r) => r.id);

    expect(await query({ link: l2 })).toEqual(expected((r) => r.linkId === l2));
    expect(await query({ link: l1, kind: "product.state_changed" })).toEqual(
      expected((r) => r.linkId === l1 && r.event === "product.state_changed"),
    );
    expect(await query({ link: l1, outcome: "failed", kind: "transactions.updates_available" })).toHaveLength(1);
    expect(await query({ link: l1, verification: "refused" })).toEqual([]);
    const since = parseWebhookFilters({ link: l2, since: new Date(base + 9 * 60_000).toISOString() }).filters;
    expect(await query(since)).toEqual(expected((r) => r.linkId === l2 && r.receivedAt.getTime() >= base + 9 * 60_000));
    expect(await query({ link: `${l1}-none` })).toEqual([]);
  });

  it("lists verified events and refused requests with their reasons; only refused ones without a body", async () => {
    const { db } = target.database;
    const t = tagged();
    const at = new Date("2019-01-02T03:04:05Z");
    const [refused, verified] = await seed(db, [
      { verification: "refused", refusal: `The signature cannot be checked: no key ${t}.`, receivedAt: at },
      {
        linkId: `mk_${t}`,
        receivedAt: at,
        body: { link_id: `mk_${t}`, state: "connected", webhook_event: "link.state_changed" },
      },
    ]);
    const since = { text: at.toISOString(), at };
    const { rows } = await listWebhookEvents(db, { since, verification: "refused" }, { limit: 500 });
    const row = rows.find((r) => r.id === refused!.id);
    expect(row).toMatchObject({
      verification: "refused",
      outcome: "refused",
      refusal: `The signature cannot be checked: no key ${t}.`,
      body: { fields: [], more: 0 },
    });
    const shown = (await listWebhookEvents(db, { link: `mk_${t}` })).rows;
    expect(shown.map((r) => r.id)).toEqual([verified!.id]);
    expect(shown[0]!.body.fields).toContainEqual({ name: "state", value: "connected" });
  });

  it("visits every matching row exactly once across pages, though most share one millisecond", async () => {
    const { db } = target.database;
    const link = `mk_${tagged()}`;
    const crowded = new Date("2020-02-02T10:00:00.500Z");
    const seeded = await seed(db, [
      ...Array.from({ length: 40 }, () => ({ linkId: link, receivedAt: crowded })),
      ...Array.from({ length: 13 }, (_, i) => ({ linkId: link, receivedAt: new Date(crowded.getTime() + (i - 6)) })),
    ]);
    // Rows of another link at the same moments, which the filter keeps out of every page.
    await seed(db, [
      { linkId: `${link}-other`, receivedAt: crowded },
      { linkId: `${link}-other`, receivedAt: new Date(crowded.getTime() - 1) },
    ]);

    const pages = await allPages(db, { link }, 7);
    expect(pages).toHaveLength(Math.ceil(53 / 7));
    for (const page of pages.slice(0, -1)) expect(page).toHaveLength(7);
    expect(pages.flat()).toEqual(newestFirst(seeded).map((r) => r.id));

    // Exactly full pages: no empty page after the last.
    const exact = `mk_${tagged()}`;
    await seed(
      db,
      Array.from({ length: 10 }, (_, i) => ({ linkId: exact, receivedAt: new Date(Date.UTC(2020, 0, 1, 0, 0, i)) })),
    );
    expect((await allPages(db, { link: exact }, 5)).map((p) => p.length)).toEqual([5, 5]);
  });

  it("counts the last 24 hours, refusals by reason, what waits and what failed, and the newest event's time", async () => {
    const { db } = target.database;
    // A clock of its own, decades after every other test's rows, so the counts are this test's alone.
    const now = new Date("2090-05-05T12:00:00Z");
    const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);
    const empty = await webhookSummary(db, { now: new Date("2089-01-01T00:00:00Z") });
    const pendingBefore = empty.pending;
    const failedBefore = empty.failed;

    const noSignature = "The request has no MoneyKit-Signature header.";
    const badHash = "The body does not match the signature's request_body_sha256.";
    await seed(db, [
      ...Array.from({ length: 3 }, () => ({
        verification: "refused" as const,
        refusal: noSignature,
        receivedAt: hoursAgo(1),
      })),
      { verification: "refused", refusal: badHash, receivedAt: hoursAgo(2) },
      ...Array.from({ length: 6 }, (_, i) => ({
        verification: "refused" as const,
        refusal: `Reason ${i}`,
        receivedAt: hoursAgo(3),
      })),
      { verification: "refused", refusal: noSignature, receivedAt: hoursAgo(30) },
      { outcome: "processed", receivedAt: hoursAgo(0.5) },
      { outcome: "pending", receivedAt: hoursAgo(5) },
      { outcome: "failed", receivedAt: hoursAgo(40) },
      { outcome: "failed", receivedAt: hoursAgo(23) },
    ]);
    const summary = await webhookSummary(db, { now });
    expect(summary).toMatchObject({
      since: hoursAgo(24),
      received: 13,
      verified: 3,
      refused: 10,
      pending: pendingBefore + 1,
      failed: failedBefore + 2,
      newestReceivedAt: hoursAgo(0.5),
      newestVerifiedAt: hoursAgo(0.5),
    });
    // The most frequent first, then by their text; five listed, the rest summed.
    expect(summary.refusalsByReason).toEqual([
      { reason: noSignature, count: 3 },
      { reason: "Reason 0", count: 1 },
      { reason: "Reason 1", count: 1 },
      { reason: "Reason 2", count: 1 },
      { reason: "Reason 3", count: 1 },
    ]);
    expect(summary.otherRefusals).toBe(3);
  });

  it("lists a link's newest events", async () => {
    const { db } = target.database;
    const link = `mk_${tagged()}`;
    const seeded = await seed(
      db,
      ["link.state_changed", "transactions.updates_available", "link.product_refresh", "link.state_changed"].map(
        (event, i) => ({ linkId: link, event, receivedAt: new Date(Date.UTC(2022, 1, 1, i)) }),
      ),
    );
    await seed(db, [{ linkId: `${link}-other`, receivedAt: new Date(Date.UTC(2022, 1, 1, 9)) }]);
    const events = await listLinkEvents(db, link, 3);
    expect(events.map((e) => e.id)).toEqual(
      newestFirst(seeded)
        .slice(0, 3)
        .map((r) => r.id),
    );
    expect(events[0]).toEqual({
      id: seeded[3]!.id,
      event: "link.state_changed",
      receivedAt: seeded[3]!.receivedAt,
      eventAt: null,
      outcome: "processed",
      detail: null,
      processedAt: null,
    });
  });

  it("sets a verified event to be processed again at once, whatever its outcome; a refused request cannot be", async () => {
    const { db } = target.database;
    const link = `mk_${tagged()}`;
    const now = new Date("2023-07-07T07:07:07.007Z");
    const [failed, processed, refused] = await seed(db, [
      {
        linkId: link,
        outcome: "failed",
        processAttempts: 6,
        detail: "Processing failed (see the server log).",
        processedAt: null,
      },
      {
        linkId: link,
        outcome: "processed",
        processAttempts: 1,
        detail: "Link now errored.",
        processedAt: new Date("2023-07-07T07:00:00Z"),
      },
      { verification: "refused", refusal: "The signature has expired." },
    ]);
    const rowOf = async (id: string) => (await db.select().from(webhookEvents).where(eq(webhookEvents.id, id)))[0]!;

    expect(await requeueWebhookEvent(db, failed!.id, { now })).toEqual({
      requeued: true,
      id: failed!.id,
      linkId: link,
      event: "link.state_changed",
      before: "failed",
    });
    expect(await rowOf(failed!.id)).toMatchObject({
      outcome: "pending",
      nextAttemptAt: now,
      processAttempts: 6,
      detail: "Set to be processed again.",
    });
    expect(await requeueWebhookEvent(db, processed!.id, { now })).toMatchObject({
      requeued: true,
      before: "processed",
    });
    expect(await rowOf(processed!.id)).toMatchObject({
      outcome: "pending",
      nextAttemptAt: now,
      processedAt: new Date("2023-07-07T07:00:00Z"),
    });

    const refusal = await requeueWebhookEvent(db, refused!.id, { now });
    expect(refusal).toMatchObject({ requeued: false, verification: "refused" });
    expect(refusal.requeued === false && refusal.reason).toMatch(
      /^This request was refused \(The signature has expired\.\): it was never verified and its body was not kept/,
    );
    expect(await rowOf(refused!.id)).toMatchObject({ outcome: "refused", nextAttemptAt: null });

    expect(await requeueWebhookEvent(db, randomUUID(), { now })).toEqual({
      requeued: false,
      reason: "There is no such webhook event.",
    });
  });

  it("exports exactly the filtered view as CSV, in the page's order, across batches and ignoring the cursor", async () => {
    const { db } = target.database;
    const link = `mk_${tagged()}`;
    const seeded = await seed(
      db,
      Array.from({ length: 17 }, (_, i) => ({
        linkId: link,
        outcome: i % 3 === 0 ? ("failed" as const) : ("processed" as const),
        receivedAt: new Date(Date.UTC(2024, 3, 1) + Math.floor(i / 4)),
        redeliveries: i % 2,
        processAttempts: 1,
        detail: i % 3 === 0 ? "Processing failed (see the server log)." : "Link now errored.",
      })),
    );
    const filters: WebhookFilters = { link, outcome: "processed" };
    const view = (await allPages(db, filters, 4)).flat();
    expect(view).toHaveLength(seeded.filter((r) => r.outcome === "processed").length);
    const { nextCursor } = await listWebhookEvents(db, filters, { limit: 3 });
    expect(nextCursor).not.toBeNull();

    const [header, ...records] = parseCsv(await csvOf(db, { ...filters, cursor: nextCursor ?? undefined }, 4));
    expect(header).toEqual(WEBHOOK_CSV_HEADER);
    expect(records.map((r) => r[WEBHOOK_CSV_HEADER.indexOf("id")])).toEqual(view);
    const first = seeded.find((r) => r.id === view[0])!;
    expect(Object.fromEntries(WEBHOOK_CSV_HEADER.map((name, i) => [name, records[0]![i]]))).toEqual({
      received_at: first.receivedAt.toISOString(),
      verification: "verified",
      refusal: "",
      event: "link.state_changed",
      link_id: link,
      event_at: "",
      outcome: "processed",
      detail: "Link now errored.",
      delivery_attempt: "1",
      redeliveries: String(first.redeliveries),
      last_received_at: first.lastReceivedAt.toISOString(),
      process_attempts: "1",
      processed_at: "",
      idempotency_key: first.idempotencyKey,
      delivery_token: first.deliveryToken,
      kid: "key-1",
      source_address: "",
      id: first.id,
      body: JSON.stringify(first.body),
      signed_at: "",
    });
    expect(await csvOf(db, { link: `${link}-none` })).toBe(`${WEBHOOK_CSV_HEADER.join(",")}\r\n`);
  });

  it("defuses cells a spreadsheet would run as formulas, from the sender's text", async () => {
    const { db } = target.database;
    const t = tagged();
    const at = new Date("2018-08-08T08:08:08Z");
    await seed(db, [
      {
        verification: "refused",
        refusal: `=HYPERLINK("http://evil.example","${t}")`,
        sourceAddress: "@SUM(A1)",
        receivedAt: at,
      },
    ]);
    const text = await csvOf(db, { verification: "refused", since: { text: at.toISOString(), at } });
    const record = parseCsv(text).find((r) => r[WEBHOOK_CSV_HEADER.indexOf("refusal")]!.includes(t))!;
    expect(record[WEBHOOK_CSV_HEADER.indexOf("refusal")]).toBe(`'=HYPERLINK("http://evil.example","${t}")`);
    expect(record[WEBHOOK_CSV_HEADER.indexOf("source_address")]).toBe("'@SUM(A1)");
  });
});
