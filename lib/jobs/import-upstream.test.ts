import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type TestSandbox } from "../../sandbox/test-support";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import type { Db } from "../db/client";
import { DEFAULT_IDENTITY, type IdentityRule } from "../import/identity";
import { sha256Hex } from "../import/reader";
import { NO_DECISIONS, type UpstreamDecisions, decisionKey } from "../import/upstream-match";
import { withTestDatabases } from "../testing/databases";
import { UpstreamClient } from "../upstream/client";
import { UpstreamApi } from "../upstream/index";
import { transactionsPageSchema, userLinksResponseSchema } from "../upstream/schemas";
import { JobRunner } from "./engine";
import { createImportKind } from "./import";
import { IMPORT_KIND, type ImportJobParams } from "./import-items";
import { readImportOutcomes } from "./import-outcomes";
import { startImportJob } from "./import-start";
import { checkFileWithUpstream, forgetUpstreamChecks } from "./import-upstream";
import { untilJobFinished } from "../testing/job-finished";

// Importing against what the upstream already holds, on the real engine and the sandbox: switching identity modes,
// links migrated before Linkdesk, an extended and a corrected re-export. Each link is counted at the sandbox
// (GET /users/{id}/links), never in Linkdesk's own records.

const databases = withTestDatabases();
// One database is enough: what is tested is the matching and the calls, not the storage (import.test.ts runs both).
const database = databases[databases.length - 1]!;
let upstream: TestSandbox;
beforeAll(async () => {
  upstream = await startSandbox({ links: 10 });
});
afterAll(() => upstream?.close());

const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop(100)));
});

function api() {
  const { clientId, clientSecret } = upstream.sandbox.state.options;
  const budget = new Budget({
    store: createMemoryStore(),
    clientId,
    appId: clientId,
    shares: { app: 1, link: 1, user: 1, client: 1 },
    interactiveMaxWaitMs: 0,
  });
  return new UpstreamApi(new UpstreamClient({ baseUrl: upstream.base, clientId, clientSecret, gate: budget }), 30_000);
}

const db = (): Db => database.database.db;
const actor = { id: randomUUID(), email: "ops@example.com", role: "ops" };

function run() {
  const runner = new JobRunner({
    db: db(),
    api: api(),
    kinds: new Map([[IMPORT_KIND, createImportKind({ settleMs: 60_000 })]]),
    pollMs: 50,
    leaseMs: 5_000,
    heartbeatMs: 1_000,
  });
  runners.push(runner);
  runner.start();
}

interface FileLink {
  customer: string;
  legacyId: string;
  institution?: string;
  transactions?: number;
  accountName?: string;
}

function body(link: FileLink) {
  return {
    customer_user: { id: link.customer },
    institution_id: link.institution ?? "chase",
    accounts: [
      {
        account_id: `acc-${link.legacyId}`,
        name: link.accountName ?? "Checking",
        type: "checking",
        mask: "1111",
        balances: { current: 1 },
      },
    ],
    transactions: Array.from({ length: link.transactions ?? 2 }, (_, k) => ({
      account_id: `acc-${link.legacyId}`,
      transaction_id: `t${k}`,
      amount: "-1.00",
      date: `2024-01-${String(1 + (k % 28)).padStart(2, "0")}`,
    })),
    link_tags: [`legacy_id:${link.legacyId}`],
  };
}

const file = (links: FileLink[]) => new TextEncoder().encode(links.map((l) => JSON.stringify(body(l))).join("\n"));

/** Plans and starts an import of `links` the way the server action does: checked with the upstream first. */
async function importFile(links: FileLink[], rule: IdentityRule, decisions: UpstreamDecisions = NO_DECISIONS) {
  const bytes = file(links);
  const sha256 = await sha256Hex(bytes);
  const check = await checkFileWithUpstream(db(), api(), { bytes, sha256 }, rule);
  const result = await startImportJob(db(), actor, { bytes, name: "fleet.ndjson", sha256 }, 6, rule, {
    upstream: { check, decisions },
  });
  if (result.outcome === "started") {
    run();
    expect((await untilJobFinished(db(), result.job.id)).state).toBe("done");
  }
  return { check, result };
}

/** The customer's links at the sandbox that are not deleted. */
async function liveLinksOf(customer: string) {
  const answer = userLinksResponseSchema.parse((await upstream.api("GET", `/users/${customer}/links`)).json);
  return Object.values(answer.links).filter((l) => l.state !== "deleted");
}

async function transactionsOf(linkId: string) {
  const page = transactionsPageSchema.parse(
    (await upstream.api("GET", `/links/${linkId}/transactions?start_date=1900-01-01&size=1000`)).json,
  );
  return page.transactions.map((t) => t.original_id).sort();
}

const legacyId = { kind: "tag", name: "legacy_id" } as const;
const fleetOf = (n: number, marker = randomUUID().slice(0, 8)) =>
  Array.from({ length: n }, (_, i) => ({ customer: `cu-${marker}-${i % 2}`, legacyId: `ID${marker}${i}` }));

describe(`an import against what the upstream holds, on ${database.kind}`, () => {
  it("imported with the default identity, then the same 50 links known by legacy_id: nothing is created twice", async () => {
    // The fleet: 50 links of two customers (the end-to-end spec imports 6, at the pace the limits allow there).
    const links = fleetOf(50);
    const first = await importFile(links, DEFAULT_IDENTITY);
    expect(first.result.outcome).toBe("started");
    const second = await importFile(links, legacyId);
    expect(second.result.outcome).toBe("nothing_new");
    expect([...second.check.matches.values()].map((m) => m.kind)).toEqual(links.map(() => "same"));
    for (const customer of new Set(links.map((l) => l.customer))) expect(await liveLinksOf(customer)).toHaveLength(25);
    // Two customers: a links read, an accounts read and a transactions read each (which says nothing is new).
    expect(second.check.calls).toBe(6);
  });

  it("links migrated straight to the upstream before Linkdesk: a possible match by shape in default mode, the same link by legacy_id", async () => {
    const links = fleetOf(2);
    for (const link of links) {
      const response = await upstream.api("POST", "/links/import", { body: body(link) });
      expect(response.status, JSON.stringify(response.json)).toBe(200);
    }
    const byShape = await importFile(links, DEFAULT_IDENTITY);
    expect([...byShape.check.matches.values()].map((m) => m.kind)).toEqual(["possible", "possible"]);
    expect(byShape.result.outcome).toBe("nothing_new");

    const byTag = await importFile(links, legacyId);
    expect([...byTag.check.matches.values()].map((m) => m.kind)).toEqual(["same", "same"]);

    // Ops say the first possible match is a different link: that one is imported, the other is left alone.
    forgetUpstreamChecks();
    const possible = byShape.check.matches.get(0)!;
    if (possible.kind !== "possible") throw new Error("expected a possible match");
    const decided = await importFile(links, DEFAULT_IDENTITY, {
      ...NO_DECISIONS,
      importAnyway: [decisionKey(0, possible.linkId)],
    });
    expect(decided.result.outcome).toBe("started");
    expect(await liveLinksOf(links[0]!.customer)).toHaveLength(2);
    expect(await liveLinksOf(links[1]!.customer)).toHaveLength(1);
  });

  it("an extended re-export adds only its new transactions, once, however often it is uploaded", async () => {
    const [link] = fleetOf(1);
    await importFile([{ ...link!, transactions: 3 }], DEFAULT_IDENTITY);
    const [created] = await liveLinksOf(link!.customer);
    expect(await transactionsOf(created!.link_id)).toEqual(["t0", "t1", "t2"]);

    const extended = { ...link!, transactions: 28 };
    const again = await importFile([extended], DEFAULT_IDENTITY);
    const match = again.check.matches.get(0)!;
    expect(match.kind === "same" && match.diff.newTransactions?.length).toBe(25);
    if (again.result.outcome !== "started") throw new Error("expected the new transactions to be added");
    expect((again.result.job.params as ImportJobParams).upstream).toMatchObject({
      same: 1,
      updating: 1,
      newTransactions: 25,
    });
    const [row] = await readImportOutcomes(db(), again.result.job.id);
    expect(row).toMatchObject({ outcome: "updated", linkId: created!.link_id, transactions: 25 });

    const third = await importFile([extended], DEFAULT_IDENTITY);
    expect(third.result.outcome).toBe("nothing_new");
    expect(await liveLinksOf(link!.customer)).toHaveLength(1);
    expect(await transactionsOf(created!.link_id)).toHaveLength(28);
  });

  it("a corrected re-export (institution fixed) is shown as a possible match with what the upstream keeps, never a second copy", async () => {
    const [link] = fleetOf(1);
    await importFile([link!], DEFAULT_IDENTITY);
    const corrected = await importFile(
      [{ ...link!, institution: "ins_corrected", accountName: "Everyday" }],
      DEFAULT_IDENTITY,
    );
    const match = corrected.check.matches.get(0)!;
    if (match.kind !== "possible") throw new Error(`expected a possible match, not ${match.kind}`);
    expect(match.diff.fixed.map((f) => f.field)).toEqual(["institution", `account acc-${link!.legacyId}: name`]);
    expect(corrected.result.outcome).toBe("nothing_new");
    expect(await liveLinksOf(link!.customer)).toHaveLength(1);
  });

  it("a corrected link ops replace is deleted upstream first and imported once in its place, however many tabs ask", async () => {
    const [link] = fleetOf(1);
    await importFile([link!], legacyId);
    const [old] = await liveLinksOf(link!.customer);
    const fixed = { ...link!, institution: "ins_corrected" };
    const bytes = file([fixed]);
    const sha256 = await sha256Hex(bytes);
    const check = await checkFileWithUpstream(db(), api(), { bytes, sha256 }, legacyId);
    const match = check.matches.get(0)!;
    expect(match).toMatchObject({ kind: "same", linkId: old!.link_id });
    const decisions = { ...NO_DECISIONS, replace: [decisionKey(0, old!.link_id)] };
    // Two tabs start the same replacement from the same preview: the second finds the identity taken by the first.
    const first = await startImportJob(db(), actor, { bytes, name: "fixed.ndjson", sha256 }, 6, legacyId, {
      upstream: { check, decisions },
    });
    const second = await startImportJob(db(), actor, { bytes, name: "fixed.ndjson", sha256 }, 6, legacyId, {
      upstream: { check, decisions },
    });
    if (first.outcome !== "started") throw new Error(`expected the replacement to start, not ${first.outcome}`);
    expect(second.outcome).toBe("nothing_new");
    run();
    expect((await untilJobFinished(db(), first.job.id)).state).toBe("done");

    const live = await liveLinksOf(link!.customer);
    expect(live).toHaveLength(1);
    expect(live[0]!.link_id).not.toBe(old!.link_id);
    expect(live[0]!.institution_id).toBe("ins_corrected");
    const oldNow = userLinksResponseSchema.parse((await upstream.api("GET", `/users/${link!.customer}/links`)).json)
      .links[old!.link_id];
    expect(oldNow?.state).toBe("deleted");
    const [row] = await readImportOutcomes(db(), first.job.id);
    expect(row).toMatchObject({ outcome: "replaced", linkId: live[0]!.link_id });
    expect(row!.reason).toContain(`Replaces upstream link ${old!.link_id}`);

    // The corrected file again: the same link now, nothing to send.
    forgetUpstreamChecks();
    const again = await importFile([fixed], legacyId);
    expect(again.check.matches.get(0)).toMatchObject({ kind: "same", linkId: live[0]!.link_id });
    expect(again.result.outcome).toBe("nothing_new");
  });

  it("gives a matched link the file's tags when ops tick it, keeping Linkdesk's own", async () => {
    const [link] = fleetOf(1);
    await importFile([link!], DEFAULT_IDENTITY);
    const retagged = { ...link!, legacyId: link!.legacyId };
    const bytesTags = [`legacy_id:${link!.legacyId}`, "team:wealth"];
    const text = JSON.stringify({ ...body(retagged), link_tags: bytesTags });
    const bytes = new TextEncoder().encode(text);
    const sha256 = await sha256Hex(bytes);
    const check = await checkFileWithUpstream(db(), api(), { bytes, sha256 }, DEFAULT_IDENTITY);
    const result = await startImportJob(db(), actor, { bytes, name: "retag.json", sha256 }, 6, DEFAULT_IDENTITY, {
      upstream: { check, decisions: { ...NO_DECISIONS, applyChanges: true } },
    });
    if (result.outcome !== "started") throw new Error("expected an update");
    run();
    expect((await untilJobFinished(db(), result.job.id)).state).toBe("done");
    const [updated] = await liveLinksOf(link!.customer);
    expect(updated!.link_tags).toEqual(expect.arrayContaining([...bytesTags, expect.stringMatching(/^linkdesk-id:/)]));
  });
});

describe(`when the upstream cannot be asked, on ${database.kind}`, () => {
  afterEach(async () => {
    await upstream.raw("DELETE", "/_sandbox/faults");
  });

  it("holds the links of a customer whose lookup fails (a 5xx), says why in words, and creates nothing for them", async () => {
    const links = fleetOf(2);
    forgetUpstreamChecks();
    await upstream.raw("POST", "/_sandbox/faults", {
      body: JSON.stringify({ status: 503, paths: [`/users/${links[0]!.customer}/links`] }),
      headers: { "Content-Type": "application/json" },
    });
    const { check, result } = await importFile(links, DEFAULT_IDENTITY);
    expect(check.failed.map((f) => f.customerUserId)).toEqual([links[0]!.customer]);
    expect(check.failed[0]!.reason).toMatch(/\S/);
    expect(check.matches.get(0)).toMatchObject({ kind: "unchecked" });
    expect(check.matches.get(1)).toEqual({ kind: "new" });
    if (result.outcome !== "started") throw new Error("the other customer's link should be imported");
    const rows = await readImportOutcomes(db(), result.job.id);
    expect(rows.map((r) => r.outcome)).toEqual(["unchecked", "created"]);
    expect(rows[0]!.reason).toContain("could not be asked");
    await upstream.raw("DELETE", "/_sandbox/faults");
    expect(await liveLinksOf(links[0]!.customer)).toHaveLength(0);
    expect(await liveLinksOf(links[1]!.customer)).toHaveLength(1);
  });
});

describe(`right before each import call, on ${database.kind}`, () => {
  it("a link that reached the upstream by other means after the plan is found by its legacy tag and not sent", async () => {
    const [link] = fleetOf(1);
    // An earlier import named legacy_id, so it identifies links in every mode.
    await importFile(fleetOf(1), legacyId);
    const bytes = file([link!]);
    const sha256 = await sha256Hex(bytes);
    const check = await checkFileWithUpstream(db(), api(), { bytes, sha256 }, DEFAULT_IDENTITY);
    expect(check.matches.get(0)).toEqual({ kind: "new" });
    const result = await startImportJob(db(), actor, { bytes, name: "late.ndjson", sha256 }, 6, DEFAULT_IDENTITY, {
      upstream: { check, decisions: NO_DECISIONS },
    });
    if (result.outcome !== "started") throw new Error("expected a job");
    // A script migrates the same link between the plan and the job.
    expect((await upstream.api("POST", "/links/import", { body: body(link!) })).status).toBe(200);
    run();
    expect((await untilJobFinished(db(), result.job.id)).state).toBe("done");
    expect(await liveLinksOf(link!.customer)).toHaveLength(1);
  });
});
