import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { startSandbox } from "../scripts/processes";
import { expect, test } from "./fixtures";
import { type ProcessRef, isRunning, killProcesses, processTree } from "./process-tree";
import { signInAs } from "./session";
import { createThrowawayPostgres } from "./throwaway-postgres";

// Deploys and restarts as a process manager does them: `npm start` stopped with SIGTERM or SIGINT sent to npm's PID,
// then started again; two instances on PostgreSQL, one stopped while the other runs. Every server here is this spec's
// own, on ports above the suite's two dashboards, and is stopped by its PID.

const root = path.resolve(import.meta.dirname, "..");
const base = Number(process.env.E2E_PORT ?? 3110) + 10;
const sandboxCredentials = {
  SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
  SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
};

type LogLine = Record<string, unknown> & { msg?: string };

/** `npm start` as a process manager runs it: its own PID, signals sent to that PID only. */
class NpmStart {
  readonly child: ChildProcess;
  readonly url: string;
  private output = "";
  private readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(port: number, env: Record<string, string>) {
    this.url = `http://127.0.0.1:${port}`;
    this.child = spawn("npm", ["start"], {
      cwd: root,
      // A clean environment: only what a deployment would set (the suite's own DATABASE_URL must not leak in).
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        LOG_LEVEL: "info",
        HOST: "127.0.0.1",
        PORT: String(port),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child.stdout?.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr?.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    this.exit = new Promise((resolve) => this.child.once("exit", (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error("npm did not start");
    return this.child.pid;
  }

  /** npm, the start script and every process below them, as they are now. */
  tree(): ProcessRef[] {
    return processTree(this.pid);
  }

  /** The dashboard's JSON log lines. */
  logs(): LogLine[] {
    return this.output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as LogLine];
        } catch {
          return [];
        }
      });
  }

  async untilReady(): Promise<void> {
    await expect
      .poll(async () => (await readiness(this.url))?.status, {
        message: `npm start never got ready:\n${this.output}`,
        timeout: 120_000,
      })
      .toBe(200);
  }

  async untilLogged(predicate: (line: LogLine) => boolean, what: string, timeout: number): Promise<LogLine> {
    await expect
      .poll(() => this.logs().some(predicate), { message: `never logged ${what}:\n${this.output}`, timeout })
      .toBe(true);
    return this.logs().find(predicate)!;
  }

  async exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`npm start did not exit within 30 s:\n${this.output}`)), 30_000);
    });
    try {
      return await Promise.race([this.exit, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

async function readiness(url: string): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const response = await fetch(`${url}/api/ready`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: await response.json() };
  } catch {
    return undefined;
  }
}

const leftOf = (tree: ProcessRef[]) => tree.filter(isRunning).map((p) => `${p.pid} ${p.command}`);

/** Clean-up after a failure: whatever is left of the trees this test started, and the trees as they are now. */
function killEverything(instances: (NpmStart | undefined)[], recorded: ProcessRef[]): void {
  const current = instances.flatMap((instance) => (instance?.child.pid ? instance.tree() : []));
  killProcesses([...current, ...recorded]);
}

test.describe("deploys and restarts", () => {
  test("SIGTERM to npm start finishes the page being served and stops every process; the sync resumes after a restart; SIGINT stops it too", async ({
    page,
  }) => {
    test.setTimeout(300_000);
    const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-lifecycle-"));
    const sandboxUrl = `http://127.0.0.1:${base + 1}`;
    // Demo mode on the embedded database: npm start runs its own sandbox beside the dashboard.
    const env = { LINKDESK_DATA_DIR: dataDir, SANDBOX_PORT: String(base + 1) };
    const recorded: ProcessRef[] = [];
    let first: NpmStart | undefined;
    let second: NpmStart | undefined;
    try {
      first = new NpmStart(base, env);
      await first.untilReady();
      await first.untilLogged(
        (l) => l.msg === "upstream call" && l.endpoint === "GET /links/{id}" && l.status === 200,
        "a link read by the sync",
        90_000,
      );

      // A person opens a link page whose upstream read is slow; the page has started streaming when SIGTERM arrives.
      await signInAs(page, "viewer", { baseURL: first.url });
      const cookie = (await page.context().cookies(first.url)).map((c) => `${c.name}=${c.value}`).join("; ");
      const fixtures = (await (await fetch(`${sandboxUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
      const linkId = fixtures.plain?.[0];
      if (!linkId) throw new Error("the sandbox offers no plain link fixture");
      await fetch(`${sandboxUrl}/_sandbox/faults`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ latencyMs: 3_000, paths: [`/links/${linkId}`] }),
      });
      const pageResponse = await fetch(`${first.url}/links/${linkId}`, { headers: { cookie }, redirect: "manual" });
      expect(pageResponse.status).toBe(200);

      const firstTree = first.tree();
      recorded.push(...firstTree);
      expect(firstTree.map((p) => p.command)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/scripts\/start\.ts/),
          expect.stringMatching(/sandbox\/main\.ts/),
          expect.stringMatching(/next-server/),
        ]),
      );
      process.kill(first.pid, "SIGTERM");

      // The page in flight is delivered whole, link and all.
      const html = await pageResponse.text();
      expect(html).toContain(linkId);
      expect(html).toContain("</html>");
      expect(await first.exited()).toEqual({ code: 0, signal: null });
      await expect.poll(() => leftOf(firstTree), { timeout: 15_000 }).toEqual([]);
      expect(first.logs()).toContainEqual(expect.objectContaining({ msg: "shut down", clean: true }));
      // The embedded database was closed: its lock is gone with it.
      expect(existsSync(path.join(dataDir, "pglite.lock"))).toBe(false);

      // Started again on the same data: the folder opens, and the sync takes up its run where it stopped.
      second = new NpmStart(base, env);
      await second.untilReady();
      const resumed = await second.untilLogged(
        (l) => l.msg === "sync lease taken" && l.resumed === true,
        "the sync resuming",
        60_000,
      );
      expect(resumed).toMatchObject({ phase: "details", done: expect.any(Number) });
      expect(resumed.done).toBeGreaterThan(0);

      const secondTree = second.tree();
      recorded.push(...secondTree);
      process.kill(second.pid, "SIGINT");
      expect(await second.exited()).toEqual({ code: 0, signal: null });
      await expect.poll(() => leftOf(secondTree), { timeout: 15_000 }).toEqual([]);
      expect(second.logs()).toContainEqual(expect.objectContaining({ msg: "shut down", clean: true }));
    } finally {
      killEverything([first, second], recorded);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("on PostgreSQL, SIGTERM hands the sync to the other instance at once; readiness is 503 while shutting down and while the database is down", async () => {
    test.setTimeout(300_000);
    const pg = createThrowawayPostgres({ port: base + 2 });
    const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-lifecycle-"));
    const recorded: ProcessRef[] = [];
    let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
    let a: NpmStart | undefined;
    let b: NpmStart | undefined;
    try {
      sandbox = await startSandbox({ port: base + 3, quiet: true, env: sandboxCredentials });
      const env = {
        DATABASE_URL: pg.url,
        LINKDESK_DATA_DIR: dataDir,
        UPSTREAM_BASE_URL: sandbox.url,
        UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
        UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
        AUTH_SECRET: "lifecycle-secret-0123456789abcdef0123",
        // No load-balancer drain: the sync's state read once A has gone is then the state A handed over, not B's
        // progress during A's drain period (lib/shutdown.test.ts tests the drain).
        SHUTDOWN_DRAIN_S: "0",
      };
      const syncState = () =>
        queryOne(pg.url, "select owner, phase, done, run_started_at from sync_state where id = 'current'");
      const holderPid = (row: Record<string, unknown> | undefined) =>
        typeof row?.owner === "string" ? Number(row.owner.split(":")[1]) : null;

      // A starts first and takes the sync; B starts beside it.
      a = new NpmStart(base + 4, env);
      await a.untilReady();
      await expect.poll(async () => (await syncState())?.phase, { timeout: 60_000 }).toBe("details");
      const aTree = a.tree();
      recorded.push(...aTree);
      expect(aTree.map((p) => p.pid)).toContain(holderPid(await syncState()));
      b = new NpmStart(base + 5, env);
      await b.untilReady();
      const bTree = b.tree();
      recorded.push(...bTree);
      const bServer = bTree.find((p) => p.command.includes("next-server"));

      // Slow upstream answers: when SIGTERM comes, A has reads in flight and finishes them before it goes.
      await fetch(`${sandbox.url}/_sandbox/faults`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ latencyMs: 1_500 }),
      });
      await a.untilLogged(
        (l) => l.msg === "upstream call" && typeof l.durationMs === "number" && l.durationMs >= 1_500,
        "a slow read",
        30_000,
      );
      process.kill(a.pid, "SIGTERM");
      const answers: unknown[] = [];
      for (let answer = await readiness(a.url); answer; answer = await readiness(a.url)) {
        answers.push(answer);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // While it finished its work it still answered, saying it was not ready; then it stopped listening.
      expect(answers).toContainEqual({
        status: 503,
        body: { ready: false, reason: "shutting_down", shuttingDown: true, database: "not_checked" },
      });
      expect(await a.exited()).toEqual({ code: 0, signal: null });
      await expect.poll(() => leftOf(aTree), { timeout: 15_000 }).toEqual([]);
      const released = await syncState();
      // A gave the lease up as it went (its heartbeat was still fresh: nobody could have taken it from it).
      expect(released?.owner === null || holderPid(released) === bServer?.pid).toBe(true);
      expect(released?.phase).toBe("details");

      // B takes the same run over where A stopped.
      await expect.poll(async () => holderPid(await syncState()), { timeout: 30_000 }).toBe(bServer?.pid);
      const taken = await syncState();
      expect(taken?.run_started_at).toEqual(released?.run_started_at);
      const resumed = await b.untilLogged(
        (l) => l.msg === "sync lease taken" && l.resumed === true,
        "B resuming the sync",
        30_000,
      );
      expect(resumed.done).toBeGreaterThanOrEqual(Number(released?.done));
      await fetch(`${sandbox.url}/_sandbox/faults`, { method: "DELETE" });

      // The database goes away: B is alive but not ready, and says why; it is ready again once the database is back.
      expect(await readiness(b.url)).toEqual({
        status: 200,
        body: { ready: true, shuttingDown: false, database: "ok" },
      });
      pg.stop();
      await expect
        .poll(() => readiness(b!.url), { timeout: 30_000 })
        .toEqual({
          status: 503,
          body: { ready: false, reason: "database_unreachable", shuttingDown: false, database: "unreachable" },
        });
      expect((await fetch(`${b.url}/api/health`)).status).toBe(200);
      pg.start();
      await expect
        .poll(() => readiness(b!.url), { timeout: 30_000 })
        .toEqual({ status: 200, body: { ready: true, shuttingDown: false, database: "ok" } });

      process.kill(b.pid, "SIGTERM");
      expect(await b.exited()).toEqual({ code: 0, signal: null });
      await expect.poll(() => leftOf(bTree), { timeout: 15_000 }).toEqual([]);
    } finally {
      killEverything([a, b], recorded);
      await sandbox?.stop();
      pg.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** One row from the throwaway server, on a connection of its own (the server is stopped and started in between). */
async function queryOne(url: string, text: string): Promise<Record<string, unknown> | undefined> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(text)).rows[0] as Record<string, unknown> | undefined;
  } finally {
    await client.end();
  }
}
