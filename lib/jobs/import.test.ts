import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type TestSandbox } from "../../sandbox/test-support";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import type { Db } from "../db/client";
import { auditLog, jobItems } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { parseCsv } from "../http/csv";
import { recordLinks } from "../links/read-model";
import { IMPORT_UNDO_KIND, importUndoKind, planImportUndo, startImportUndo } from "./import-undo";
import type { JobKind } from "./kind-contract";
import { importTag } from "../import/plan";
import { UpstreamClient } from "../upstream/client";
import { UpstreamApi } from "../upstream/index";
import { linkSchema, transactionsPageSchema } from "../upstream/schemas";
import { JobRunner } from "./engine";
import { createImportKind } from "./import";
import { IMPORT_KIND } from "./import-items";
import { readImportOutcomes, streamImportOutcomesCsv } from "./import-outcomes";
import { resumeCancelledImport, startImportJob } from "./import-start";
import { applyControl } from "./store";
import { listJobItems, readJobView, streamJobItemsCsv } from "./view";
import { untilJobFinished } from "../testing/job-finished";

// The import kind on the real engine against the sandbox: a fleet file becomes links with all their transactions,
// each exactly once; an answer lost after the upstream applied the call is found by the link's tag (or the batch's
// original ids) and never resent.

const databases = withTestDatabases();
let upstream: TestSandbox;
beforeAll(async () => {
  upstream = await startSandbox({ links: 20 });
});
afterAll(() => upstream?.close());

const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop(100)));
  await upstream.raw("DELETE", "/_sandbox/faults");
});

function api(importTimeoutMs = 30_000) {
  const { clientId, clientSecret } = upstream.sandbox.state.options;
  const budget = new Budget({
    store: createMemoryStore(),
    clientId,
    appId: clientId,
    shares: { app: 1, link: 1, user: 1, client: 1 },
    interactiveMaxWaitMs: 0,
  });
  return new UpstreamApi(
    new UpstreamClient({ baseUrl: upstream.base, clientId, clientSecret, gate: budget }),
    importTimeoutMs,
  );
}

function run(db: Db, opts: { importTimeoutMs?: number; settleMs?: number } = {}) {
  const kind = createImportKind({ settleMs: opts.settleMs ?? 60_000 });
  const runner = new JobRunner({
    db,
    api: api(opts.importTimeoutMs),
    kinds: new Map([[IMPORT_KIND, kind]]),
    pollMs: 50,
    leaseMs: 5_000,
    heartbeatMs: 1_000,
    log: process.env.DEBUG_JOBS ? { info: console.log, warn: console.log, error: console.log } : undefined,
  });
  runners.push(runner);
  runner.start();
  return runner;
}

const actor = { id: randomUUID(), email: "ops@example.com", role: "ops" };
const account = (id: string) => ({ account_id: id, name: `Account ${id}`, type: "checking", balances: { current: 1 } });

/** A fleet file (NDJSON): `sizes[i]` transactions for link i; a unique marker keeps each file's hash apart. */
function fleet(sizes: number[], marker = randomUUID()) {
  return sizes
    .map((n, i) =>
      JSON.stringify({
        customer_user: { id: `user-${marker}-${i}` },
        institution_id: "chase",
        accounts: [account("a1")],
        transactions: Array.from({ length: n }, (_, k) => ({
          account_id: "a1",
          transaction_id: `t${k}`,
          amount: "-1.00",
          date: `2024-0${1 + (k % 9)}-0${1 + (k % 9)}`,
        })),
      }),
    )
    .join("\n");
}

async function start(db: Db, text: string) {
  const result = await startImportJob(db, actor, { bytes: new TextEncoder().encode(text), name: "fleet.ndjson" }, 6);
  if (result.outcome !== "started") throw new Error("not started");
  return result.job;
}

async function stats(): Promise<Record<string, { requests: number; statuses: Record<string, number> }>> {
  return (
    (await upstream.raw("GET", "/_sandbox/stats")).json as {
      byEndpoint: Record<string, { requests: number; statuses: Record<string, number> }>;
    }
  ).byEndpoint;
}
const requests = async (endpoint: string) => (await stats())[endpoint]?.requests ?? 0;

async function linksTagged(tag: string): Promise<string[]> {
  const found: string[] = [];
  for (const [id, entry] of upstream.sandbox.state.store["byId"] as Map<
    string,
    { record: { link_tags: string[] } | null }
  >)
    if (entry.record?.link_tags.includes(tag)) found.push(id);
  return found;
}

async function transactionsOf(linkId: string): Promise<number> {
  const page = transactionsPageSchema.parse(
    (await upstream.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=1`)).json,
  );
  return page.total;
}

describe.each(databases)("import jobs on $kind", (database) => {
  const db = () => database.database.db;

  it("imports every valid link of a fleet file with all its transactions, once each, with one audit row per call", async () => {
    const before = {
      imports: await requests("POST /links/import"),
      batches: await requests("POST /links/{id}/import/transactions"),
    };
    const job = await start(db(), fleet([3, 9_000, 0]));
    expect(job.total).toBe(1 + 3 + 1);
    run(db());
    expect((await untilJobFinished(db(), job.id)).state).toBe("done");
    const outcomes = await readImportOutcomes(db(), job.id);
    expect(outcomes.map((o) => [o.position, o.state, o.linkState, o.errorCode, o.transactions])).toEqual([
      [0, "done", "error", "auth_expired", 3],
      [1, "done", "error", "auth_expired", 9_000],
      [2, "done", "error", "auth_expired", 0],
    ]);
    for (const [position, o] of outcomes.entries()) {
      expect(await linksTagged(importTag(job.id, position))).toEqual([o.linkId]);
      expect(await transactionsOf(o.linkId!)).toBe([3, 9_000, 0][position]);
    }
    expect(await requests("POST /links/import")).toBe(before.imports + 3);
    expect(await requests("POST /links/{id}/import/transactions")).toBe(before.batches + 2);
    const audit = await db().select().from(auditLog).where(eq(auditLog.actorId, actor.id));
    const ofJob = audit.filter((row) => (row.input as { job?: string } | null)?.job === job.id);
    expect(ofJob.map((row) => row.action).sort()).toEqual([
      "link.import",
      "link.import",
      "link.import",
      "link.import_batch",
      "link.import_batch",
    ]);
    expect(ofJob.every((row) => row.outcome === "ok" && row.linkId !== null)).toBe(true);
    // The items know their links (the items table and the CSV show them).
    const items = await db().select().from(jobItems).where(eq(jobItems.jobId, job.id));
    expect(items.every((item) => item.linkId !== null)).toBe(true);
  });

  it("an import whose answer is lost after the upstream applied it is found by its tag, not resent", async () => {
    // The first import call is applied, then its answer arrives broken (as a dropped proxy connection would).
    await upstream.raw("POST", "/_sandbox/faults", {
      body: JSON.stringify({ malformed: true, paths: ["/links/import"], count: 1 }),
      headers: { "Content-Type": "application/json" },
    });
    const before = await requests("POST /links/import");
    const job = await start(db(), fleet([5]));
    run(db());
    expect((await untilJobFinished(db(), job.id)).state).toBe("done");
    expect(await requests("POST /links/import")).toBe(before + 1);
    const [linkId] = await linksTagged(importTag(job.id, 0));
    expect(await linksTagged(importTag(job.id, 0))).toHaveLength(1);
    const [item] = await db().select().from(jobItems).where(eq(jobItems.jobId, job.id));
    expect(item).toMatchObject({ state: "done", attempts: 1, linkId });
    const [row] = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "link.import"), eq(auditLog.linkId, linkId!)));
    expect(row?.input).toMatchObject({ verified: expect.stringContaining("applied") });
  });

  it("an import applied after the client timed out is waited for, then found: never sent twice", async () => {
    // The sandbox applies the import, then holds its answer beyond the client's timeout.
    await upstream.raw("POST", "/_sandbox/faults", {
      body: JSON.stringify({ answerDelayMs: 2_500, paths: ["/links/import"], count: 1 }),
      headers: { "Content-Type": "application/json" },
    });
    const before = await requests("POST /links/import");
    const job = await start(db(), fleet([2]));
    run(db(), { importTimeoutMs: 300, settleMs: 20_000 });
    expect((await untilJobFinished(db(), job.id, 15_000)).state).toBe("done");
    expect(await requests("POST /links/import")).toBe(before + 1);
    expect(await linksTagged(importTag(job.id, 0))).toHaveLength(1);
  });

  it("a batch whose answer is lost is found by its transactions' original ids, not resent", async () => {
    await upstream.raw("POST", "/_sandbox/faults", {
      body: JSON.stringify({ malformed: true, paths: ["/import/transactions"], count: 1 }),
      headers: { "Content-Type": "application/json" },
    });
    const before = await requests("POST /links/{id}/import/transactions");
    const job = await start(db(), fleet([4_500]));
    run(db());
    expect((await untilJobFinished(db(), job.id)).state).toBe("done");
    expect(await requests("POST /links/{id}/import/transactions")).toBe(before + 1);
    const [outcome] = await readImportOutcomes(db(), job.id);
    expect(await transactionsOf(outcome!.linkId!)).toBe(4_500);
  });

  it("a batch the upstream failed (5xx) is checked, found missing, and sent again once", async () => {
    await upstream.raw("POST", "/_sandbox/faults", {
      body: JSON.stringify({ status: 503, paths: ["/import/transactions"], count: 1 }),
      headers: { "Content-Type": "application/json" },
    });
    const before = await requests("POST /links/{id}/import/transactions");
    const job = await start(db(), fleet([4_100]));
    run(db(), { settleMs: 0 });
    expect((await untilJobFinished(db(), job.id)).state).toBe("done");
    expect(await requests("POST /links/{id}/import/transactions")).toBe(before + 2);
    const [outcome] = await readImportOutcomes(db(), job.id);
    expect(await transactionsOf(outcome!.linkId!)).toBe(4_100);
    const batch = (await db().select().from(jobItems).where(eq(jobItems.jobId, job.id))).find((item) => item.seq === 1);
    expect(batch).toMatchObject({ state: "done", attempts: 2 });
  });

  describe("by identity, whatever the file's bytes", () => {
    const links = (marker: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        customer_user: { id: `user-${marker}-${i}` },
        institution_id: "chase",
        accounts: [account("a1"), account("a2")],
        transactions: [{ account_id: "a1", transaction_id: "t1", amount: "-1.00", date: "2024-01-02" }],
      }));
    const pretty = (values: unknown[]) => JSON.stringify(values, null, 2);
    const minified = (values: unknown[]) => JSON.stringify(values);
    const startText = (text: string, name = "file.json", identity?: Parameters<typeof startImportJob>[4]) =>
      startImportJob(db(), actor, { bytes: new TextEncoder().encode(text), name }, 6, identity);

    it("the same links minified, extended, corrected, and listed twice: each link is created once, and every line has its row", async () => {
      const marker = randomUUID();
      const five = links(marker, 5);
      // The first file: five links, the fourth with a bad amount.
      const first = [
        ...five.slice(0, 3),
        { ...five[3]!, transactions: [{ account_id: "a1", amount: "twelve", date: "2024-01-02" }] },
        five[4]!,
      ];
      const firstText = pretty(first);
      const job1 = await startText(firstText);
      if (job1.outcome !== "started") throw new Error(job1.outcome);
      run(db());
      await untilJobFinished(db(), job1.job.id);
      // Each link is named by the line its object opens on.
      const opening = firstText.split("\n").flatMap((line, i) => (line === "  {" ? [i + 1] : []));
      expect((await readImportOutcomes(db(), job1.job.id)).map((o) => [o.line, o.outcome])).toEqual([
        [opening[0], "created"],
        [opening[1], "created"],
        [opening[2], "created"],
        [opening[3], "invalid"],
        [opening[4], "created"],
      ]);

      // The same four good links, minified: nothing new.
      const again = await startText(minified([five[0], five[1], five[2], five[4]]), "again.json");
      expect(again.outcome).toBe("nothing_new");
      if (again.outcome !== "nothing_new") return;
      expect([...again.known.values()].map((k) => k.jobId)).toEqual([
        job1.job.id,
        job1.job.id,
        job1.job.id,
        job1.job.id,
      ]);

      // The corrected file, extended by one new link and with one link listed twice (accounts in another order).
      const sixth = links(marker, 6)[5]!;
      const twice = { ...five[0]!, accounts: [account("a2"), account("a1")] };
      const corrected = [...five, sixth, twice].map((l) => JSON.stringify(l)).join("\n");
      const imports = await requests("POST /links/import");
      const job2 = await startText(corrected, "corrected.ndjson");
      if (job2.outcome !== "started") throw new Error(job2.outcome);
      await untilJobFinished(db(), job2.job.id);
      expect(await requests("POST /links/import")).toBe(imports + 2);
      const rows = await readImportOutcomes(db(), job2.job.id);
      expect(rows.map((o) => [o.line, o.outcome])).toEqual([
        [1, "already_imported"],
        [2, "already_imported"],
        [3, "already_imported"],
        [4, "created"],
        [5, "already_imported"],
        [6, "created"],
        [7, "duplicate"],
      ]);
      expect(rows[0]).toMatchObject({
        customerUserId: `user-${marker}-0`,
        linkId: expect.stringMatching(/^mk_/),
        reason: expect.stringContaining("Already imported as link"),
      });
      expect(rows[6]?.reason).toContain("line 1");
      // At the upstream: each of the six links once, carrying its identity tag.
      const theirs = new Map<string, number>();
      for (const link of links(marker, 6)) {
        const found = await upstream.api("GET", `/users/${link.customer_user.id}/links`);
        theirs.set(link.customer_user.id, Object.keys((found.json as { links: object }).links).length);
      }
      expect([...theirs.values()]).toEqual([1, 1, 1, 1, 1, 1]);

      const csv: string[] = [];
      for await (const chunk of streamImportOutcomesCsv(db(), job2.job.id)) csv.push(chunk);
      const records = parseCsv(csv.join(""));
      expect(records[0]).toEqual([
        "line",
        "identity_key",
        "customer_user_id",
        "tags",
        "outcome",
        "link_id",
        "reason",
        "position",
        "json_path",
        "column",
      ]);
      // Each row names its link by position and JSON path too (an NDJSON line is a document of its own: "$").
      expect(records.slice(1).map((r) => [r[7], r[8]])).toEqual(
        Array.from({ length: 7 }, (_, i) => [String(i + 1), "$"]),
      );
      expect(records.slice(1).map((r) => r[4])).toEqual([
        "already_imported",
        "already_imported",
        "already_imported",
        "created",
        "already_imported",
        "created",
        "duplicate",
      ]);
    });

    it("two overlapping imports started at the same moment create each link once", async () => {
      const marker = randomUUID();
      const all = links(marker, 6);
      const imports = await requests("POST /links/import");
      const [a, b] = await Promise.all([
        startText(minified(all.slice(0, 4)), "a.json"),
        startText(pretty(all.slice(2)), "b.json"),
      ]);
      const started = [a, b].filter((r) => r.outcome === "started");
      const planned = started.reduce(
        (sum, r) => sum + (r.outcome === "started" ? (r.job.params as { links: number }).links : 0),
        0,
      );
      expect(planned).toBe(6);
      run(db());
      for (const r of started) if (r.outcome === "started") await untilJobFinished(db(), r.job.id);
      expect(await requests("POST /links/import")).toBe(imports + 6);
    });

    it("a lost answer with the faithful listing is found under the customer, not through GET /links, and not resent", async () => {
      await upstream.raw("POST", "/_sandbox/settings", {
        body: JSON.stringify({ linksListing: "active" }),
        headers: { "Content-Type": "application/json" },
      });
      try {
        await upstream.raw("POST", "/_sandbox/faults", {
          body: JSON.stringify({ malformed: true, paths: ["/links/import"], count: 1 }),
          headers: { "Content-Type": "application/json" },
        });
        const before = { imports: await requests("POST /links/import"), listings: await requests("GET /links") };
        const result = await startText(minified(links(randomUUID(), 1)));
        if (result.outcome !== "started") throw new Error(result.outcome);
        run(db());
        await untilJobFinished(db(), result.job.id);
        expect(await requests("POST /links/import")).toBe(before.imports + 1);
        expect(await requests("GET /links")).toBe(before.listings);
        const [row] = await readImportOutcomes(db(), result.job.id);
        // The link was created disconnected (no credentials): the active listing never holds it.
        expect(row).toMatchObject({ outcome: "created", linkState: "error", errorCode: "auth_expired" });
      } finally {
        await upstream.raw("POST", "/_sandbox/settings", {
          body: JSON.stringify({ linksListing: "all" }),
          headers: { "Content-Type": "application/json" },
        });
      }
    });

    it("a cancelled import's links are free for a later file; resuming the cancelled one then skips them", async () => {
      const all = links(randomUUID(), 2);
      const cancelled = await startText(minified(all));
      if (cancelled.outcome !== "started") throw new Error(cancelled.outcome);
      expect(await applyControl(db(), cancelled.job.id, "cancel", "ops@example.com")).toBe("cancelled");
      const later = await startText(pretty(all), "later.json");
      expect(later.outcome).toBe("started");
      expect(await resumeCancelledImport(db(), cancelled.job.id)).toBe(true);
      run(db());
      if (later.outcome === "started") await untilJobFinished(db(), later.job.id);
      await untilJobFinished(db(), cancelled.job.id);
      expect((await readImportOutcomes(db(), cancelled.job.id)).map((o) => o.outcome)).toEqual([
        "already_imported",
        "already_imported",
      ]);
      if (later.outcome === "started")
        expect((await readImportOutcomes(db(), later.job.id)).map((o) => o.outcome)).toEqual(["created", "created"]);
    });

    it("undo deletes the links an import created, audited, keeping one reconnected since and naming it; their identities are free again", async () => {
      const all = links(randomUUID(), 3);
      const imported = await startText(minified(all));
      if (imported.outcome !== "started") throw new Error(imported.outcome);
      const kinds = new Map<string, JobKind>([
        [IMPORT_KIND, createImportKind({ settleMs: 60_000 }) as JobKind],
        [IMPORT_UNDO_KIND, importUndoKind as JobKind],
      ]);
      const runner = new JobRunner({ db: db(), api: api(), kinds, pollMs: 50, leaseMs: 5_000, heartbeatMs: 1_000 });
      runners.push(runner);
      runner.start();
      await untilJobFinished(db(), imported.job.id);
      const created = (await readImportOutcomes(db(), imported.job.id)).map((o) => o.linkId!);
      // The second link's customer links it again: connected now, no longer as the import left it.
      const record = upstream.sandbox.state.store.getLink(created[1]!)!;
      record.state = "connected";
      record.error_code = null;
      // The read model has heard of it (the sync would): the confirmation names it.
      await recordLinks(db(), [linkSchema.parse((await upstream.api("GET", `/links/${created[1]}`)).json)]);
      const plan = await planImportUndo(db(), imported.job.id);
      expect(plan?.links.map((l) => [l.linkId, l.changed])).toEqual([
        [created[0], false],
        [created[1], true],
        [created[2], false],
      ]);
      expect(plan?.links[1]).toMatchObject({ imported: "error (auth_expired)", now: "connected" });

      const deletes = await requests("DELETE /links/{id}");
      const undo = await startImportUndo(db(), actor, imported.job.id, []);
      if (undo.outcome !== "started") throw new Error(undo.reason);
      expect(undo).toMatchObject({ deleting: 2, keeping: 1 });
      runner.wake();
      await untilJobFinished(db(), undo.job.id);
      expect(await requests("DELETE /links/{id}")).toBe(deletes + 2);
      const states = created.map((id) => upstream.sandbox.state.store.getLink(id)!.state);
      expect(states).toEqual(["deleted", "connected", "deleted"]);
      const items = await db().select().from(jobItems).where(eq(jobItems.jobId, undo.job.id));
      expect(items.find((i) => i.linkId === created[1])).toMatchObject({
        state: "skipped",
        reason: expect.stringContaining("reconnected since"),
      });
      const audit = await db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "link.delete"), eq(auditLog.outcome, "ok")));
      expect(
        audit
          .filter((row) => created.includes(row.linkId!))
          .map((row) => row.linkId)
          .sort(),
      ).toEqual([created[0], created[2]].sort());
      // A second undo has nothing but the kept link; the deleted links' identities are free: the same file imports them again.
      expect((await planImportUndo(db(), imported.job.id))?.links.map((l) => l.linkId)).toEqual([created[1]]);
      const again = await startText(pretty(all), "again.json");
      if (again.outcome !== "started") throw new Error(again.outcome);
      expect((await readImportOutcomes(db(), again.job.id)).map((o) => o.outcome)).toEqual([
        "pending",
        "already_imported",
        "pending",
      ]);
    });

    it("legacy categories carried over as corrections (when chosen): the upstream's categories match the file's after the job", async () => {
      const legacy = [
        { category: "shopping.clothing_and_accessories" },
        { category: "pension_income" },
        { enrichment: { category: { value: "travel" }, subcategory: { value: "flights_and_airport_expenses" } } },
      ];
      const link = {
        customer_user: { id: `user-${randomUUID()}` },
        institution_id: "chase",
        accounts: [account("a1")],
        transactions: legacy.map((extra, k) => ({
          account_id: "a1",
          transaction_id: `legacy-${k}`,
          amount: "-5.00",
          date: `2024-03-0${k + 1}`,
          ...extra,
        })),
      };
      const result = await startImportJob(
        db(),
        actor,
        { bytes: new TextEncoder().encode(JSON.stringify(link)), name: "legacy.json" },
        6,
        undefined,
        { carryCategories: true },
      );
      if (result.outcome !== "started") throw new Error(result.outcome);
      expect(result.job.params).toMatchObject({ corrections: 3 });
      run(db());
      expect((await untilJobFinished(db(), result.job.id)).state).toBe("done");
      const [row] = await readImportOutcomes(db(), result.job.id);
      expect(row?.outcome).toBe("created");
      const page = transactionsPageSchema.parse(
        (await upstream.api("GET", `/links/${row!.linkId}/transactions?start_date=1900-01-01&size=100`)).json,
      );
      const byOriginal = new Map(page.transactions.map((t) => [t.original_id, t.enrichment]));
      expect(
        [0, 1, 2].map((k) => [
          byOriginal.get(`legacy-${k}`)?.category?.value,
          byOriginal.get(`legacy-${k}`)?.subcategory?.value,
        ]),
      ).toEqual([
        ["shopping", "clothing_and_accessories"],
        ["income", "pension_income"],
        ["travel", "flights_and_airport_expenses"],
      ]);
      const audit = await db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "transaction.correct"), eq(auditLog.linkId, row!.linkId!)));
      const items = await db().select().from(jobItems).where(eq(jobItems.jobId, result.job.id));
      const corrections = items.filter((i) => (i.input as { step: string }).step === "category");
      expect(corrections).toHaveLength(3);
      // Each correction sent is audited; one the upstream already had is skipped with the reason.
      expect(audit).toHaveLength(corrections.filter((i) => i.state === "done").length);
      for (const item of corrections) expect(["done", "skipped"]).toContain(item.state);
    });

    it("a field of ops' own (link_tags legacy_id:<value>) can be the identity; a link without it is invalid, with the reason", async () => {
      const marker = randomUUID();
      const tagged = links(marker, 2).map((l, i) => ({ ...l, link_tags: [`legacy_id:${marker}-${i}`] }));
      const rule = { kind: "tag", name: "legacy_id" } as const;
      const first = await startText(minified([...tagged, links(marker, 3)[2]]), "tagged.json", rule);
      if (first.outcome !== "started") throw new Error(first.outcome);
      const rows = await readImportOutcomes(db(), first.job.id);
      expect(rows.map((o) => o.outcome)).toEqual(["pending", "pending", "invalid"]);
      expect(rows[2]?.reason).toContain('no link_tags entry "legacy_id:');
      // The same legacy ids under other customers are the same links by this rule.
      const moved = tagged.map((l) => ({ ...l, customer_user: { id: `${l.customer_user.id}-moved` } }));
      expect((await startText(pretty(moved), "moved.json", rule)).outcome).toBe("nothing_new");
    });
  });

  it("a batch whose link was deleted upstream before its check ends failed, with the reason in words, after one check", async () => {
    // The batch is applied but its answer arrives broken; before it is checked, the link is deleted upstream.
    await upstream.raw("POST", "/_sandbox/faults", {
      body: JSON.stringify({ malformed: true, paths: ["/import/transactions"], count: 1 }),
      headers: { "Content-Type": "application/json" },
    });
    const before = await requests("POST /links/{id}/import/transactions");
    const job = await start(db(), fleet([4_500]));
    run(db());
    let linkId: string | null = null;
    for (
      const deadline = Date.now() + 20_000;
      Date.now() < deadline && !linkId;
      await new Promise((resolve) => setTimeout(resolve, 20))
    ) {
      const batch = (await db().select().from(jobItems).where(eq(jobItems.jobId, job.id))).find(
        (item) => item.seq === 1,
      );
      if (batch?.state === "sent" && batch.reason) linkId = batch.linkId;
    }
    expect(linkId).not.toBeNull();
    expect((await upstream.api("DELETE", `/links/${linkId}`)).status).toBeLessThan(300);
    expect((await untilJobFinished(db(), job.id, 20_000)).state).toBe("done");
    const batch = (await db().select().from(jobItems).where(eq(jobItems.jobId, job.id))).find((item) => item.seq === 1);
    expect(batch).toMatchObject({ state: "failed", attempts: 1, upstreamStatus: 410 });
    expect(batch?.reason).toContain(`Link ${linkId} was deleted upstream after it was imported`);
    expect(await requests("POST /links/{id}/import/transactions")).toBe(before + 1);
    const [outcome] = await readImportOutcomes(db(), job.id);
    expect(outcome).toMatchObject({ state: "failed", reason: expect.stringContaining("was deleted upstream") });
  });

  it("credentials in provider_data are sent, then not kept, and never reach a job's views, CSVs or JSON", async () => {
    const secret = `hunter2-${randomUUID()}`;
    const text = JSON.stringify({
      customer_user: { id: `user-${randomUUID()}` },
      institution_id: "chase",
      provider_data: { user_id: "u-123", password: secret },
      accounts: [account("a1")],
      transactions: Array.from({ length: 4_100 }, (_, k) => ({
        account_id: "a1",
        transaction_id: `t${k}`,
        amount: "-1.00",
        date: "2024-02-02",
      })),
    });
    const job = await start(db(), text);
    run(db());
    expect((await untilJobFinished(db(), job.id)).state).toBe("done");
    const [outcome] = await readImportOutcomes(db(), job.id);
    // The credentials did their work: the link is connected.
    expect(outcome).toMatchObject({ state: "done", linkState: "connected" });
    const rows = await db().select().from(jobItems).where(eq(jobItems.jobId, job.id));
    expect(rows).toHaveLength(2);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(await db().select().from(auditLog).where(eq(auditLog.actorId, actor.id)))).not.toContain(
      secret,
    );
    const seen = [
      JSON.stringify(await readJobView(db(), job.id)),
      JSON.stringify(await listJobItems(db(), job)),
      JSON.stringify(await readImportOutcomes(db(), job.id)),
    ];
    for await (const chunk of streamJobItemsCsv(db(), job)) seen.push(chunk);
    for await (const chunk of streamImportOutcomesCsv(db(), job.id)) seen.push(chunk);
    for (const text of seen) expect(text).not.toContain(secret);
  });

  it("a cancelled import can be resumed: its cancelled calls (never sent) run, nothing is doubled", async () => {
    const job = await start(db(), fleet([1, 1, 1]));
    expect(await applyControl(db(), job.id, "cancel", "ops@example.com")).toBe("cancelled");
    expect(await resumeCancelledImport(db(), job.id)).toBe(true);
    run(db());
    expect((await untilJobFinished(db(), job.id)).state).toBe("done");
    for (const position of [0, 1, 2]) expect(await linksTagged(importTag(job.id, position))).toHaveLength(1);
    expect(await resumeCancelledImport(db(), job.id)).toBe(false);
  });
});
