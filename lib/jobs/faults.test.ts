import { randomUUID } from "node:crypto";
import { type Server, type Socket, connect, createServer } from "node:net";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FaultSettings } from "../../sandbox/faults";
import { createSandbox } from "../../sandbox/server";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import { createPostgresStore } from "../budget/postgres-store";
import { type Database, createDatabase } from "../db/client";
import type { Db } from "../db/client";
import { jobItems } from "../db/schema";
import { type TestDatabase, withTestDatabases } from "../testing/databases";
import { importTag } from "../import/plan";
import { UpstreamApi, UpstreamClient } from "../upstream";
import { describeUpstreamError, UpstreamError } from "../upstream/errors";
import { createCorrectionKind, startCorrectionJob } from "./correction";
import { expectWords } from "../testing/expect-words";
import { type JobLog, JobRunner, MAX_ATTEMPTS } from "./engine";
import { createImportKind } from "./import";
import { startImportJob } from "./import-start";
import type { JobKind } from "./kind-contract";
import { type JobItemView, listJobItems, readJobView } from "./view";

// Faults survived, one row of a table each: a real job (a category correction, or an import where the fault is about
// imports) runs on the engine against an in-process sandbox; as the job's first call is answered the fault is switched
// on, mid-job, and it stays on until the person can see it (an item's reason says it in words) or the sandbox shows
// it happened; then it is switched off. For every row:
//   - every planned call was applied exactly once (the sandbox's own count per target), or not at all for an item that
//     failed for good;
//   - the job ends done (items failed with a reason in words where the fault never ends);
//   - the audit holds one row per call that reached the upstream (the client's own log of exchanges, less the 401s
//     a token renewal repeats transparently): an "ok" row for the applied one, a "not applied" or 429 row for each other;
//   - every reason a person could read on the job's page while it ran is words, not a stack or a JSON dump.
//
// Covered elsewhere (not repeated here): an answer lost after the call was applied (answerDelayMs; engine.test.ts,
// import.test.ts); a malformed answer and a 503 to an import batch (import.test.ts); an instance dying with calls
// marked sent (engine.test.ts); the dashboard process SIGKILLed mid-correction and mid-import, two instances on
// PostgreSQL, the database cut under a worker process (process.test.ts); a 429 storm refused by the budget without
// an upstream call (budget/storm.test.ts); each fault's words on the status page and the correction desk (e2e).

/** How long after a 429 a call already past the budget may still leave (the engine has not read the 429 yet). */
const IN_FLIGHT_GRACE_MS = 250;

const databases = withTestDatabases();
const sandbox = createSandbox({ links: 120, transactionsPerLink: 40, rateLimits: false, importDelayMs: 0 });
let sandboxPort = 0;
let plainLinks: string[] = [];
const actor = { id: randomUUID(), email: "support@faults.test", role: "support" };

/** The sandbox's latency for a slow call: beyond the client's timeout, so every slow call times out mid-call. */
const SLOW_MS = 2_000;
const CLIENT_TIMEOUT_MS = 1_000;
/** How long after an unanswered call a check that finds nothing is not believed (the slow call may still land). */
const SETTLE_MS = SLOW_MS + 1_000;

beforeAll(async () => {
  const url = await sandbox.listen(0, "127.0.0.1");
  sandboxPort = Number(new URL(url).port);
  const store = sandbox.state.store;
  plainLinks = store
    .listLinks(null, 1000)
    .links.map((l) => store.getLink(l.link_id)!)
    .filter(
      (l) =>
        l.state === "connected" &&
        l.products.transactions &&
        l.products.enrichment &&
        store.dataOf(l).transactions.length === 40,
    )
    .map((l) => l.link_id);
});
afterAll(() => sandbox.close());

// ---- what the test sees of the wire --------------------------------------------------------------------------------

interface Exchange {
  method: string;
  path: string;
  /** The call's target: a transaction id (correction) or an import tag (import). */
  target: string | null;
  sentAt: number;
  answeredAt?: number;
  status?: number;
  /** Why no answer came: TimeoutError, ECONNREFUSED, ECONNRESET… */
  failure?: string;
  retryAfter?: string | null;
}

function failureOf(error: unknown): string {
  const e = error as { name?: string; code?: unknown; cause?: { code?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return e.name;
  return e.cause?.code ?? (typeof e.code === "string" ? e.code : undefined) ?? e.name ?? "unknown";
}

function targetOf(method: string, path: string, body: unknown): string | null {
  if (method !== "POST") return null;
  const correction = /^\/links\/[^/]+\/transactions\/([^/]+)\/enrichment$/.exec(path);
  if (correction) return decodeURIComponent(correction[1]!);
  if (path === "/links/import" && typeof body === "string") {
    const tags = (JSON.parse(body) as { link_tags?: string[] }).link_tags ?? [];
    return tags.find((t) => t.startsWith("linkdesk-import:")) ?? null;
  }
  return null;
}

/** The client's fetch, recording every exchange; `onAnswer` runs before the client sees the answer. */
function recordingFetch(log: Exchange[], onAnswer: (exchange: Exchange) => void): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? "GET";
    const exchange: Exchange = {
      method,
      path: url.pathname,
      target: targetOf(method, url.pathname, init?.body),
      sentAt: Date.now(),
    };
    log.push(exchange);
    try {
      const response = await fetch(input, init);
      Object.assign(exchange, {
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        answeredAt: Date.now(),
      });
      onAnswer(exchange);
      return response;
    } catch (error) {
      Object.assign(exchange, { failure: failureOf(error), answeredAt: Date.now() });
      throw error;
    }
  };
}

/** A door in front of the sandbox that can be shut (connections refused: nothing listens) and opened again. */
interface Door {
  url: string;
  shut(): void;
  open(): Promise<void>;
  close(): Promise<void>;
}

async function openDoor(): Promise<Door> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(sandboxPort, "127.0.0.1");
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => (client.destroy(), upstream.destroy(), sockets.delete(client), sockets.delete(upstream));
        client.on("error", drop).on("close", drop);
        upstream.on("error", drop).on("close", drop);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  const shut = () => {
    server?.close();
    server = null;
    for (const s of sockets) s.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    shut,
    open: listen,
    async close() {
      shut();
    },
  };
}

/** A TCP proxy to PostgreSQL that drops every connection and refuses new ones, like a restarting server. */
async function cuttableProxy(target: URL): Promise<{ url: string; cut(): void; restore(): void; close(): void }> {
  let open = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!open) return client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => (client.destroy(), upstream.destroy(), sockets.delete(client), sockets.delete(upstream));
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(target);
  proxied.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: proxied.toString(),
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

// ---- the table -----------------------------------------------------------------------------------------------------

interface Run {
  exchanges: Exchange[];
  door: Door;
  runnerLog: string[];
  /** Reasons items showed while the job ran. */
  reasons: Set<string>;
  dbProxy?: { cut(): void; restore(): void };
}

interface FaultCase {
  name: string;
  job: "correction" | "import";
  databases?: "postgres";
  /** Switches the fault on; runs as the job's first call is answered, before the engine sees that answer. */
  on(run: Run): void;
  /** The fault stays on until this holds; null: it never ends. */
  until: ((run: Run) => boolean) | null;
  off(run: Run): void | Promise<void>;
  /** A reason an item showed while the fault was on, for the person. */
  seen?: RegExp;
  /** Items end failed with this reason (a fault that never ends). */
  failsWith?: RegExp;
  /** A call the client gave up on may land this long after it was sent: wait that long before counting. */
  landsWithinMs?: number;
  /**
   * Marking a call "sent" may commit while its acknowledgement is lost with the connection: the engine then does not
   * send it, but its next holder checks it as sent, and audits that check ("not applied"). Such rows may come on top
   * of the calls.
   */
  uncertainSends?: boolean;
  check?(run: Run, jobId: string, items: JobItemView[]): void | Promise<void>;
}

const setFaults = (settings: FaultSettings) => sandbox.state.faults.set(settings);
const clearFaults = () => sandbox.state.faults.clear();
const reasonSeen = (pattern: RegExp) => (run: Run) => [...run.reasons].some((r) => pattern.test(r));

const CASES: FaultCase[] = [
  {
    name: "upstream slow: every correction takes longer than the client waits, and lands after the timeout",
    job: "correction",
    on: () => setFaults({ latencyMs: SLOW_MS, paths: ["/enrichment"] }),
    until: reasonSeen(/^The upstream did not answer in time\./),
    off: clearFaults,
    seen: /^The upstream did not answer in time\. POST \/links\/\{id\}\/transactions\/\{txn_id\}\/enrichment got no answer before the timeout/,
    landsWithinMs: SLOW_MS + 1_000,
    check(run) {
      expect(run.exchanges.some((e) => e.target && e.failure === "TimeoutError")).toBe(true);
    },
  },
  {
    name: "an import slower than the import timeout, landing after it",
    job: "import",
    on: () => setFaults({ latencyMs: SLOW_MS, paths: ["/links/import"] }),
    until: reasonSeen(/^The upstream did not answer in time\./),
    off: clearFaults,
    seen: /^The upstream did not answer in time\. POST \/links\/import got no answer before the timeout/,
    landsWithinMs: SLOW_MS + 1_000,
  },
  {
    name: "upstream down: connections refused",
    job: "correction",
    on: (run) => run.door.shut(),
    // A call on a connection the shutting closed fails as a dropped socket first; the door stays shut until a new
    // connection is refused, which is what this case is about.
    until: reasonSeen(/^The upstream cannot be reached\. .* could not connect \(ECONNREFUSED\)/),
    off: (run) => run.door.open(),
    seen: /^The upstream cannot be reached\. POST \/links\/\{id\}\/transactions\/\{txn_id\}\/enrichment could not connect \(ECONNREFUSED\)/,
    check(run) {
      expect(run.exchanges.some((e) => e.failure === "ECONNREFUSED")).toBe(true);
    },
  },
  {
    name: "upstream down: 503 to every call, reads included",
    job: "correction",
    on: () => setFaults({ status: 503 }),
    until: reasonSeen(
      /^Checking whether the last call went through failed \(The upstream had an internal error \(HTTP 503\)/,
    ),
    off: clearFaults,
    seen: /^The upstream had an internal error \(HTTP 503\)\. Internal error \(injected fault\)\. This is on the upstream's side; try again shortly\.$/,
  },
  {
    name: "5xx answers: 502 to corrections",
    job: "correction",
    on: () => setFaults({ status: 502, paths: ["/enrichment"] }),
    until: reasonSeen(/HTTP 502/),
    off: clearFaults,
    seen: /^The upstream had an internal error \(HTTP 502\)\./,
  },
  {
    name: "5xx answers now and then: half of all calls 503",
    job: "correction",
    on: () => setFaults({ failRate: 0.5 }),
    until: (run) => run.exchanges.filter((e) => e.status === 503).length >= 4,
    off: clearFaults,
  },
  {
    name: "5xx for good: corrections fail after the last attempt, saying why",
    job: "correction",
    on: () => setFaults({ status: 500, paths: ["/enrichment"] }),
    until: null,
    off: clearFaults,
    seen: /^The upstream had an internal error \(HTTP 500\)\./,
    // The reason the last call failed with (or, when the check after it failed first, why that check failed).
    failsWith: new RegExp(
      `^Gave up after ${MAX_ATTEMPTS} calls: no answer said whether the change was applied\\. (The upstream had an internal error \\(HTTP 500\\)\\. |Checking whether the last call went through failed \\().*shortly\\.$`,
    ),
  },
  {
    name: "malformed JSON: corrections applied, answered with a broken body; reads broken too",
    job: "correction",
    on: () => setFaults({ malformed: true }),
    until: reasonSeen(
      /^Checking whether the last call went through failed \(The upstream answered with data Linkdesk does not understand/,
    ),
    off: clearFaults,
    seen: /^The upstream answered with data Linkdesk does not understand\. POST \/links\/\{id\}\/transactions\/\{txn_id\}\/enrichment returned a response that does not match the API contract \(the body is not valid JSON\)\. Nothing was changed on Linkdesk's side\.$/,
  },
  {
    name: "a 429 storm with Retry-After as an HTTP-date",
    job: "correction",
    on: () => setFaults({ rateLimitStorm: 2, retryAfterDate: true }),
    until: reasonSeen(/^The upstream's rate limit was reached\./),
    off: clearFaults,
    seen: /^The upstream's rate limit was reached\. Rate limit exceeded\. .* Next attempt allowed at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z\.$/,
    check(run) {
      const refusals = run.exchanges.filter((e) => e.status === 429);
      expect(refusals.length).toBeGreaterThan(0);
      for (const refusal of refusals) {
        expect(refusal.retryAfter).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
        const allowedAt = Date.parse(refusal.retryAfter!);
        // No correction went out after the refusal and before the date it named (the budget closed the keys till then).
        // A call of the other worker slot may already be past the budget as the refusal arrives: the budget learns of
        // the refusal when the engine has read it, so calls leaving in the next IN_FLIGHT_GRACE_MS are not counted.
        const early = run.exchanges.filter(
          (e) => e.target && e.sentAt > refusal.answeredAt! + IN_FLIGHT_GRACE_MS && e.sentAt < allowedAt,
        );
        expect(early).toEqual([]);
      }
    },
  },
  {
    name: "the access token expires mid-job: the client renews it and repeats that one call",
    job: "correction",
    on: () => setFaults({ expireTokens: true }),
    until: (run) => run.exchanges.some((e) => e.status === 401),
    off: clearFaults,
    check(run, _jobId, items) {
      const firstExpiry = run.exchanges.findIndex((e) => e.status === 401);
      expect(run.exchanges.slice(firstExpiry).some((e) => e.path === "/auth/token" && e.status === 201)).toBe(true);
      // The renewal is invisible to the person: no item ever showed a reason, and the repeated call is the same attempt.
      expect([...run.reasons]).toEqual([]);
      expect(items.map((i) => i.attempts)).toEqual(items.map(() => 1));
    },
  },
  {
    name: "the database restarts mid-job, right as a call is answered",
    job: "correction",
    databases: "postgres",
    on: (run) => run.dbProxy!.cut(),
    until: (run) =>
      run.runnerLog.some((l) => l.includes("database unavailable")) &&
      run.runnerLog.some((l) => l.includes("could not record")),
    off: (run) => run.dbProxy!.restore(),
    uncertainSends: true,
  },
];

// ---- running a row -------------------------------------------------------------------------------------------------

let nextLink = 0;
const ITEMS = 6;

async function auditRows(db: Db, jobId: string) {
  const { rows } = await db.execute<{
    outcome: string;
    target: string | null;
    verified: string | null;
    status: number | null;
    tag: string | null;
  }>(sql`
    select outcome, target_id as target, input ->> 'verified' as verified, upstream_status as status, input ->> 'tag' as tag
    from audit_log where input ->> 'job' = ${jobId} order by id
  `);
  return rows;
}

function fleet(links: number): string {
  const marker = randomUUID();
  return Array.from({ length: links }, (_, i) =>
    JSON.stringify({
      customer_user: { id: `faults-${marker}-${i}` },
      institution_id: "chase",
      accounts: [{ account_id: "a1", name: "Checking", type: "checking", balances: { current: 1 } }],
      transactions: [{ account_id: "a1", transaction_id: "t1", amount: "-1.00", date: "2024-03-01" }],
    }),
  ).join("\n");
}

function linksTagged(tag: string): number {
  let n = 0;
  for (const entry of (sandbox.state.store["byId"] as Map<string, { record: { link_tags: string[] } | null }>).values())
    if (entry.record?.link_tags.includes(tag)) n++;
  return n;
}

async function runCase(c: FaultCase, target: TestDatabase) {
  let database: Database | undefined;
  let proxy: Awaited<ReturnType<typeof cuttableProxy>> | undefined;
  const door = await openDoor();
  const run: Run = { exchanges: [], door, runnerLog: [], reasons: new Set() };
  let runner: JobRunner | undefined;
  try {
    let db = target.database.db;
    if (c.databases === "postgres") {
      proxy = await cuttableProxy(new URL(target.url!));
      database = await createDatabase({ url: proxy.url });
      db = database.db;
      run.dbProxy = proxy;
    }
    const { clientId, clientSecret } = sandbox.state.options;
    const budget = new Budget({
      // On PostgreSQL the shared budget lives in the database, as in production: it fails closed while it is away.
      store: c.databases === "postgres" ? createPostgresStore(db) : createMemoryStore({ now: Date.now }),
      clientId,
      appId: clientId,
      shares: { app: 1, link: 1, user: 1, client: 1 },
      interactiveMaxWaitMs: 0,
    });
    let armed = false;
    let on = false;
    const client = new UpstreamClient({
      baseUrl: door.url,
      clientId,
      clientSecret,
      timeoutMs: CLIENT_TIMEOUT_MS,
      gate: budget,
      fetch: recordingFetch(run.exchanges, (exchange) => {
        if (armed && !on && exchange.target && exchange.status !== undefined && exchange.status < 300) {
          on = true;
          c.on(run);
        }
      }),
    });
    const api = new UpstreamApi(client, CLIENT_TIMEOUT_MS);

    let jobId: string;
    const link = plainLinks[nextLink++]!;
    let targets: string[];
    if (c.job === "correction") {
      const { transactions } = await api.getTransactions(link, { size: 100 });
      const ids = transactions
        .filter((t) => t.enrichment?.category.value !== "charity")
        .slice(0, ITEMS)
        .map((t) => t.transaction_id);
      expect(ids).toHaveLength(ITEMS);
      jobId = (
        await startCorrectionJob(
          db,
          api,
          actor,
          link,
          ids.map((transactionId) => ({ transactionId, category: "charity", subcategory: "other_charity" })),
        )
      ).id;
      targets = ids;
    } else {
      const started = await startImportJob(
        db,
        actor,
        { bytes: new TextEncoder().encode(fleet(ITEMS)), name: "fleet.ndjson" },
        2,
      );
      if (started.outcome !== "started") throw new Error(`the fleet was not started: ${started.outcome}`);
      jobId = started.job.id;
      targets = Array.from({ length: ITEMS }, (_, position) => importTag(jobId, position));
    }

    const log: JobLog = {
      info: (_, msg) => run.runnerLog.push(msg),
      warn: (_, msg) => run.runnerLog.push(msg),
      error: (_, msg) => run.runnerLog.push(msg),
    };
    armed = true;
    runner = new JobRunner({
      db,
      api,
      kinds: new Map<string, JobKind>([
        ["correction", createCorrectionKind({ settleMs: SETTLE_MS }) as JobKind],
        ["import", createImportKind({ settleMs: SETTLE_MS }) as JobKind],
      ]),
      pollMs: 50,
      heartbeatMs: 300,
      leaseMs: 1_500,
      backoffBaseMs: 100,
      log,
    });
    runner.start();

    // Watch as the person would (the items' reasons), switching the fault off once it has shown.
    let off = false;
    const deadline = Date.now() + 45_000;
    for (;;) {
      const items = await db
        .select({ reason: jobItems.reason })
        .from(jobItems)
        .where(eq(jobItems.jobId, jobId))
        .catch(() => []);
      for (const { reason } of items) if (reason) run.reasons.add(reason);
      if (on && !off && c.until?.(run)) {
        off = true;
        await c.off(run);
      }
      const view = await readJobView(db, jobId).catch(() => null);
      if (view?.finishedAt) break;
      if (Date.now() > deadline)
        throw new Error(
          `the job did not finish; fault on: ${on}, off: ${off}; reasons: ${[...run.reasons].join(" | ")}; log: ${run.runnerLog.join(" | ")}`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
    await runner.stop(1_000);
    runner = undefined;
    if (!off) await c.off(run);
    expect(on).toBe(true);
    // A call the client gave up on may still be applied; count only once none can land any more.
    const lastSent = Math.max(...run.exchanges.filter((e) => e.target).map((e) => e.sentAt));
    if (c.landsWithinMs) await new Promise((r) => setTimeout(r, Math.max(0, lastSent + c.landsWithinMs! - Date.now())));

    // The job ended, done (or failed with words, where the fault never ended).
    const view = (await readJobView(db, jobId))!;
    expect(view.state).toBe("done");
    if (c.failsWith) {
      expect(view.counts.failed).toBeGreaterThan(0);
      expect(view.counts.done + view.counts.failed).toBe(ITEMS);
    } else {
      expect(view.counts).toMatchObject({ done: ITEMS, failed: 0, pending: 0, sent: 0 });
    }
    const items = await listJobItems(db, { id: jobId, kind: c.job });
    const doneTargets = new Set<string>();
    for (const [i, item] of items.entries()) {
      if (item.state === "done") {
        doneTargets.add(targets[i]!);
        expect(item.result).not.toMatch(/\n\s+at |\[object |\bundefined\b|^\s*[{[]/);
      } else {
        expect(item.state).toBe("failed");
        expect(item.reason).toMatch(c.failsWith!);
        expectWords(item.reason!);
      }
    }

    // Every planned call applied exactly once (or never, for an item that failed), by the sandbox's own count.
    const applied = sandbox.state.stats.snapshot().applied;
    const appliedOf = (t: string) =>
      c.job === "correction" ? (applied[`POST /links/${link}/transactions/${t}/enrichment`] ?? 0) : linksTagged(t);
    expect(targets.map(appliedOf)).toEqual(targets.map((t) => (doneTargets.has(t) ? 1 : 0)));

    // One audit row per call that reached the upstream: ok for the applied one, "not applied" or 429 for the others.
    const rows = await auditRows(db, jobId);
    for (const t of targets) {
      const calls = run.exchanges.filter((e) => e.target === t && e.failure !== "ECONNREFUSED" && e.status !== 401);
      const ofTarget = rows.filter((r) => (c.job === "correction" ? r.target === t : r.tag === t));
      const unsent = c.uncertainSends
        ? ofTarget.filter((r) => r.outcome === "error" && r.verified?.startsWith("not applied")).length -
          calls.filter((e) => e.status === undefined || e.status >= 300).length
        : 0;
      expect(
        ofTarget.length - Math.max(0, unsent),
        `audit rows of ${t}: ${JSON.stringify(ofTarget)}; calls: ${JSON.stringify(calls)}`,
      ).toBe(calls.length);
      expect(ofTarget.filter((r) => r.outcome === "ok")).toHaveLength(doneTargets.has(t) ? 1 : 0);
      for (const r of ofTarget.filter((row) => row.outcome !== "ok")) {
        expect(r.status === 429 || (r.verified ?? "").startsWith("not applied"), JSON.stringify(r)).toBe(true);
      }
    }

    // What the person saw while it ran: words, and the fault named.
    for (const reason of run.reasons) expectWords(reason);
    if (c.seen)
      expect(
        [...run.reasons].some((r) => c.seen!.test(r)),
        [...run.reasons].join("\n"),
      ).toBe(true);
    await c.check?.(run, jobId, items);
  } finally {
    clearFaults();
    await runner?.stop(500);
    await door.close();
    proxy?.restore();
    await database?.close();
    proxy?.close();
  }
}

describe.each(databases)("faults survived on $kind", (target) => {
  // The PostgreSQL target is listed only when DATABASE_URL is set; rows for it alone run there.
  const rows = CASES.filter((c) => !c.databases || c.databases === target.kind);
  it.each(rows.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    await runCase(c, target);
  });
});

describe("the words for each upstream fault", () => {
  it.each([
    ["timeout", { kind: "timeout" as const }],
    [
      "connection refused",
      {
        kind: "network" as const,
        cause: Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }),
      },
    ],
    ["503", { kind: "http" as const, status: 503, errorCode: "api_error.internal", errorMessage: "Internal error." }],
    [
      "502 without an envelope",
      { kind: "http" as const, status: 502, errorMessage: "The error response carried no error envelope." },
    ],
    ["malformed", { kind: "invalid_response" as const, status: 200, errorMessage: "the body is not valid JSON" }],
    [
      "429 with a date",
      {
        kind: "http" as const,
        status: 429,
        errorCode: "api_error.rate_limit_exceeded",
        retryAfter: new Date("2026-11-20T10:05:00Z"),
      },
    ],
    [
      "expired token not renewed",
      { kind: "http" as const, status: 401, errorCode: "api_error.auth.expired_access_token" },
    ],
  ])("%s", (_, init) => {
    const { title, detail } = describeUpstreamError(
      new UpstreamError({ endpoint: "POST /links/{id}/transactions/{txn_id}/enrichment", ...init }),
    );
    expectWords(title);
    expectWords(detail);
  });
});
