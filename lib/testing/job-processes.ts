import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { type Server, type Socket, createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { createSandbox } from "../../sandbox/server";
import type { Database } from "../db/client";
import { parseStorageEnv } from "../env";
import { importTag } from "../import/plan";
import { expectWords } from "./expect-words";

// Test support for the process tests (lib/jobs/process*.test.ts): real dashboard processes (the server's own job-engine
// path: lib/testing/worker-process.ts) against one sandbox per test file that enforces the spec's rate limits. The
// tests are spread over three files so that vitest runs them side by side, each file with a sandbox of its own (a
// test resets the sandbox's counts and switches its faults).

const ROOT = path.resolve(import.meta.dirname, "../..");
export const serverUrl = parseStorageEnv().DATABASE_URL;
export const sandbox = createSandbox({ links: 200, transactionsPerLink: 50, rateLimits: true, importDelayMs: 0 });
export let baseUrl = "";
export let plainLinks: string[] = [];
const children = new Set<ChildProcess>();

/** Starts this file's sandbox before its tests, and stops it and any worker left running after them. */
export function withJobProcessSandbox(): void {
  beforeAll(async () => {
    baseUrl = await sandbox.listen(0, "127.0.0.1");
    // Links whose transactions can be corrected: connected, with the transactions and enrichment products.
    const store = sandbox.state.store;
    plainLinks = store
      .listLinks(null, 1000)
      .links.map((l) => store.getLink(l.link_id)!)
      .filter(
        (l) =>
          l.state === "connected" &&
          l.products.transactions &&
          l.products.enrichment &&
          store.dataOf(l).transactions.length === 50,
      )
      .map((l) => l.link_id);
  });

  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await sandbox.close();
  });
}

export interface Worker {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line matching, or rejects when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<string>;
  exited: Promise<number | null>;
  stderr(): string;
  /** A standby worker (loaded, printed "ready"; no database opened yet) starts its work. */
  go(): void;
}

/**
 * A worker process. `standby`: it loads its modules, prints "ready" and waits for `go()` before it opens the database,
 * so that a test taking over from a killed worker starts the next one at once, not after a cold start (seconds to a
 * minute on a loaded machine, which the settle windows under test would count).
 */
export function startWorker(env: Record<string, string>, planFile: string, opts: { standby?: boolean } = {}): Worker {
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", path.join(ROOT, "lib/testing/worker-process.ts"), planFile],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        UPSTREAM_BASE_URL: baseUrl,
        UPSTREAM_CLIENT_ID: sandbox.state.options.clientId,
        UPSTREAM_CLIENT_SECRET: sandbox.state.options.clientSecret,
        UPSTREAM_SANDBOX: "1",
        UPSTREAM_TIMEOUT_MS: "3000",
        AUTH_SECRET: "process-test-secret-0123456789abcdef0123",
        // Every link's own limit, all of the app's: the test is about exactly once, and this keeps it short.
        BUDGET_LINK_SHARE: "1",
        BUDGET_APP_SHARE: "1",
        LOG_LEVEL: "warn",
        ...(opts.standby ? { WORKER_STANDBY: "1" } : {}),
        ...env,
      } as unknown as NodeJS.ProcessEnv,
      stdio: [opts.standby ? "pipe" : "ignore", "pipe", "pipe"],
    },
  ) as ChildProcess;
  children.add(child);
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const onLine = (line: string) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    parts.forEach(onLine);
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => (children.delete(child), resolve(code))),
  );
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    go() {
      child.stdin?.end("go\n");
    },
    waitFor(pattern, timeoutMs) {
      const found = lines.find((l) => pattern.test(l));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no line matching ${pattern} in ${timeoutMs} ms; stdout:\n${lines.slice(-10).join("\n")}\nstderr:\n${stderr.slice(-2000)}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({ pattern, resolve: (line) => (clearTimeout(timer), resolve(line)) });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new Error(
              `the worker exited (${code}) before printing ${pattern}; stdout:\n${lines.slice(-10).join("\n")}\nstderr:\n${stderr.slice(-2000)}`,
            ),
          );
        });
      });
    },
  };
}

/** A plan of `perLink` transactions on each of `links` links, written to a file for the workers. */
export async function writePlan(
  dir: string,
  title: string,
  links: string[],
  perLink: number,
): Promise<{ file: string; ids: Map<string, string> }> {
  const ids = new Map<string, string>();
  const planLinks: { linkId: string; transactionIds: string[] }[] = [];
  for (const linkId of links) {
    const store = sandbox.state.store;
    const txns = store
      .dataOf(store.getLink(linkId)!)
      .transactions.filter((t) => t.enrichment?.category.value !== "utilities")
      .slice(0, perLink);
    expect(txns.length).toBe(perLink);
    for (const t of txns) ids.set(t.transaction_id, linkId);
    planLinks.push({ linkId, transactionIds: txns.map((t) => t.transaction_id) });
  }
  const file = path.join(dir, `${title}.json`);
  writeFileSync(file, JSON.stringify({ title, category: "utilities", concurrency: 12, links: planLinks }));
  return { file, ids };
}

/** Applied corrections per transaction of the plan, from the sandbox's own count. */
export function appliedPerTransaction(ids: Map<string, string>): number[] {
  const applied = sandbox.state.stats.snapshot().applied;
  return [...ids].map(([txn, link]) => applied[`POST /links/${link}/transactions/${txn}/enrichment`] ?? 0);
}

export const appliedTotal = (ids: Map<string, string>) => appliedPerTransaction(ids).reduce((a, b) => a + b, 0);

export async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Audit rows of the job: ok rows are calls that were applied; the others are calls checked and found not applied. */
export async function auditOf(database: Database, jobId: string) {
  const { rows } = await database.db.execute<{
    outcome: string;
    target_id: string;
    verified: string | null;
    at: Date | string;
    link_id: string;
  }>(
    sql`select outcome, target_id, input ->> 'verified' as verified, at, link_id from audit_log where input ->> 'job' = ${jobId} order by id`,
  );
  return rows;
}

/** Whether PostgreSQL was shut down cleanly: after crash recovery a sequence jumps ahead of its table (by up to 32). */
export async function sequenceBehind(database: Database, table: string) {
  const { rows } = await database.db.execute<{ max: number | null; last: number }>(
    sql`select (select max(id) from ${sql.identifier(table)})::int as max, (select last_value from ${sql.raw(`${table}_id_seq`)})::int as last`,
  );
  return rows[0]!;
}

// ---- an import killed mid-call -------------------------------------------------------------------------------------

/** Every import call is slow upstream, as real imports are (up to ~10 s). */
const SLOW_IMPORT_MS = 1_000;
/**
 * The test worker's settle window for imports (production: IMPORT_SETTLE_MS, 90 s): a call still unseen this long
 * after it was sent is taken as lost and sent again. It must outlast the held batch (from the kill until the restarted
 * worker has checked it, then the upstream's latency), and it is what the lost call costs the test.
 */
const IMPORT_SETTLE_TEST_MS = 25_000;

/** A fleet file (NDJSON): `sizes[i]` transactions for link i, thirty a day, so each batch covers a few days. */
function fleetFile(sizes: number[]): string {
  const marker = randomUUID();
  const day = (k: number) =>
    new Date(Date.UTC(2024, 0, 1) + Math.floor(k / 30) * 86_400_000).toISOString().slice(0, 10);
  return sizes
    .map((n, i) =>
      JSON.stringify({
        customer_user: { id: `kill-${marker}-${i}` },
        institution_id: "chase",
        accounts: [{ account_id: "a1", name: "Checking", type: "checking", balances: { current: 1 } }],
        transactions: Array.from({ length: n }, (_, k) => ({
          account_id: "a1",
          transaction_id: `t${k}`,
          amount: "-1.00",
          date: day(k),
        })),
      }),
    )
    .join("\n");
}

/** Links in the sandbox carrying a tag (each import call tags its link `linkdesk-import:<job>:<position>`). */
function linksTagged(tag: string) {
  const store = sandbox.state.store;
  return store
    .listLinks(null, 100_000)
    .links.map((l) => store.getLink(l.link_id)!)
    .filter((l) => l.link_tags.includes(tag));
}

interface ProxiedCall {
  method: string;
  path: string;
  /** The import tag a POST /links/import carried. */
  tag: string | null;
  /** When the whole request had been read: the client has sent it. */
  arrivedAt: number;
  /** When the sandbox answered it: it has been applied (or refused). */
  answeredAt?: number;
  held: boolean;
}

/**
 * The dashboard's way to the sandbox, seeing every call. It can hold calls that match: read in full (the worker has
 * sent them and waits for the answer) but not yet passed on. A held call is later released (it reaches the upstream
 * late) or dropped (it never does, as when the network loses it).
 */
async function startHoldingDoor(target: string) {
  const to = new URL(target);
  const calls: ProxiedCall[] = [];
  const held = new Map<ProxiedCall, () => void>();
  let holds: ((call: ProxiedCall, calls: ProxiedCall[]) => boolean) | null = null;
  const server = createHttpServer((req, res) => {
    res.on("error", () => undefined);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const path = (req.url ?? "/").split("?")[0]!;
      const tags =
        req.method === "POST" && path === "/links/import"
          ? ((JSON.parse(body.toString()) as { link_tags?: string[] }).link_tags ?? [])
          : [];
      const call: ProxiedCall = {
        method: req.method ?? "GET",
        path,
        tag: tags.find((t) => t.startsWith("linkdesk-import:")) ?? null,
        arrivedAt: Date.now(),
        held: false,
      };
      calls.push(call);
      // The door's own connection to the sandbox closes after each call.
      const headers = { ...req.headers };
      delete headers.connection;
      const pass = () => {
        const onward = httpRequest(
          { host: to.hostname, port: to.port, method: req.method, path: req.url, headers, agent: false },
          (answer) => {
            call.answeredAt = Date.now();
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        onward.on("error", () => res.destroy());
        onward.end(body);
      };
      if (holds?.(call, calls)) {
        call.held = true;
        held.set(call, pass);
      } else pass();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    held: () => [...held.keys()],
    /** Holds every later call for which `rule` holds (null: none). */
    hold(rule: typeof holds) {
      holds = rule;
    },
    release(call: ProxiedCall) {
      held.get(call)?.();
      held.delete(call);
    },
    drop(call: ProxiedCall) {
      held.delete(call);
    },
    close() {
      held.clear();
      server.closeAllConnections();
      server.close();
    },
  };
}

const isImportCall = (c: ProxiedCall) => c.method === "POST" && c.path === "/links/import";
const isBatchCall = (c: ProxiedCall) => c.method === "POST" && c.path.endsWith("/import/transactions");

/**
 * The import killed with two calls in flight, as planned with one link of 8,100 transactions (an import call and two
 * batches) and five small links, two calls at a time. The worker's second batch and a link's import call are held at
 * the door when the process is SIGKILLed. The restarted worker must check both before deciding anything: the batch,
 * released once it has been checked and found missing, lands late and is found (not resent); the import call, dropped,
 * never lands, and is sent again once, after the settle window.
 */
export async function importKilledMidCall(
  databaseEnv: (dir: string) => Record<string, string>,
  openDatabase: (dir: string) => Promise<Database>,
) {
  const dir = mkdtempSync(path.join(tmpdir(), "linkdesk-kill-import-"));
  const door = await startHoldingDoor(baseUrl);
  const sizes = [8_100, 1, 2, 3, 4, 5];
  try {
    sandbox.state.stats.reset();
    sandbox.state.faults.set({ latencyMs: SLOW_IMPORT_MS, paths: ["/import"] });
    const file = path.join(dir, "fleet.ndjson");
    writeFileSync(file, fleetFile(sizes));
    const planFile = path.join(dir, "import.json");
    writeFileSync(
      planFile,
      JSON.stringify({
        kind: "import",
        file,
        concurrency: 2,
        runner: { importSettleMs: IMPORT_SETTLE_TEST_MS, leaseMs: 4_000, heartbeatMs: 1_000 },
      }),
    );
    const env = { ...databaseEnv(dir), UPSTREAM_BASE_URL: door.url };

    // The second batch, and every import call after it, are held at the door.
    door.hold((call, calls) => (isBatchCall(call) || isImportCall(call)) && calls.filter(isBatchCall).length >= 2);
    // The worker that takes over is loaded first, so that it checks the held calls within their settle window.
    const second = startWorker(env, planFile, { standby: true });
    await second.waitFor(/^ready$/, 150_000);
    const first = startWorker(env, planFile);
    const jobId = (await first.waitFor(/^job /, 150_000)).slice(4);
    await until(
      "the second batch and an import call held",
      () => door.held().some(isBatchCall) && door.held().some(isImportCall),
      60_000,
    );
    first.child.kill("SIGKILL");
    await first.exited;
    door.hold(null);
    const [batch, lost] = [door.held().find(isBatchCall)!, door.held().find(isImportCall)!];
    // Two calls at a time: nothing else was in flight when the process died.
    expect(door.held()).toHaveLength(2);
    expect(door.calls.filter((c) => (isImportCall(c) || isBatchCall(c)) && !c.held && !c.answeredAt)).toEqual([]);

    second.go();
    // The restarted worker checks both calls, finds neither applied yet, and says it waits rather than resending.
    await second.waitFor(/^reason .*The batch's transactions are not there yet/, 60_000);
    await second.waitFor(/^reason .*The imported link is not there yet/, 60_000);
    const releasedAt = Date.now();
    door.release(batch);
    door.drop(lost);
    await second.waitFor(/^finished$/, 60_000);
    expect(await second.exited).toBe(0);

    // The checks ran before the batch reached the upstream; it was not sent again, and the lost call was, once.
    expect(
      door.calls.some((c) => c.method === "GET" && c.path.endsWith("/transactions") && c.arrivedAt < releasedAt),
    ).toBe(true);
    expect(door.calls.filter(isBatchCall)).toHaveLength(2);
    expect(
      door.calls
        .filter(isImportCall)
        .map((c) => c.tag)
        .sort(),
    ).toEqual([...sizes.map((_, position) => importTag(jobId, position)), lost.tag].sort());
    const applied = sandbox.state.stats.snapshot().applied;
    expect(applied["POST /links/import"]).toBe(sizes.length);

    // Each link once upstream, with the file's transactions, none doubled.
    for (const [position, size] of sizes.entries()) {
      const found = linksTagged(importTag(jobId, position));
      expect(found, `links tagged for position ${position}`).toHaveLength(1);
      const transactions = sandbox.state.store.dataOf(found[0]!).transactions;
      expect(transactions).toHaveLength(size);
      expect(new Set(transactions.map((t) => t.original_id)).size).toBe(size);
    }
    const big = linksTagged(importTag(jobId, 0))[0]!.link_id;
    expect(batch.path).toBe(`/links/${big}/import/transactions`);
    expect(applied[`POST /links/${big}/import/transactions`]).toBe(2);
    expect(sandbox.state.stats.snapshot().rateLimited).toBe(0);

    // Every reason either worker showed is words.
    const reasons = [...first.lines, ...second.lines]
      .filter((l) => l.startsWith("reason "))
      .map((l) => l.slice("reason ".length));
    for (const reason of reasons) expectWords(reason);

    const database = await openDatabase(dir);
    try {
      const { rows: items } = await database.db.execute<{
        seq: number;
        state: string;
        reason: string | null;
        batch: number | null;
      }>(
        sql`select seq, state, reason, (input ->> 'batch')::int as batch from job_items where job_id = ${jobId} order by seq`,
      );
      const { rows: job } = await database.db.execute<{ state: string }>(
        sql`select state from jobs where id = ${jobId}`,
      );
      expect(job[0]?.state).toBe("done");
      expect(items.map((i) => i.state)).toEqual(Array<string>(items.length).fill("done"));
      expect(items).toHaveLength(sizes.length + 2);
      for (const item of items) if (item.reason) expectWords(item.reason);

      // One audit row per call outcome: one "ok" per item; the lost call's row says it was checked and not applied.
      const rows = await auditOf(database, jobId);
      const { rows: auditItems } = await database.db.execute<{
        item: number;
        outcome: string;
        verified: string | null;
        tag: string | null;
      }>(
        sql`select (input ->> 'item')::int as item, outcome, input ->> 'verified' as verified, input ->> 'tag' as tag from audit_log where input ->> 'job' = ${jobId} order by id`,
      );
      expect(rows).toHaveLength(items.length + 1);
      for (const item of items)
        expect(auditItems.filter((r) => r.item === Number(item.seq) && r.outcome === "ok")).toHaveLength(1);
      const notOk = auditItems.filter((r) => r.outcome !== "ok");
      expect(notOk).toEqual([
        expect.objectContaining({ tag: lost.tag, verified: expect.stringMatching(/^not applied/) }),
      ]);
      expect(auditItems.find((r) => r.tag === lost.tag && r.outcome === "ok")?.verified).toBeNull();
      const heldBatch = items.find((i) => i.batch !== null && Number(i.batch) === 2)!;
      expect(auditItems.find((r) => r.item === Number(heldBatch.seq) && r.outcome === "ok")?.verified).toMatch(
        /^applied: confirmed/,
      );
    } finally {
      await database.close();
    }
  } finally {
    sandbox.state.faults.clear();
    door.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A TCP proxy to the database that can drop every connection and refuse new ones, like a restarting server. */
export async function startCuttableProxy(
  target: URL,
): Promise<{ port: number; cut(): void; restore(): void; close(): void }> {
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
  const port = (server.address() as { port: number }).port;
  return {
    port,
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
