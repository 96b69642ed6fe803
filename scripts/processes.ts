import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

// Starting and stopping the two programs (sandbox, dashboard) by their own binaries, so the PID held is the process
// that serves. Shared by `npm start`, the e2e set-up and the benchmarks.

export const ROOT = path.resolve(import.meta.dirname, "..");
const bin = (name: string) => path.join(ROOT, "node_modules", ".bin", name);

export interface Started {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** How long a child has after SIGTERM before it is killed; the dashboard's is its SHUTDOWN_TIMEOUT_S plus a margin. */
const DEFAULT_STOP_GRACE_MS = 10_000;

type Kind = "build" | "dashboard" | "sandbox";

// Every child started here that has not exited yet, whatever stage it was at (a build, a dashboard still starting),
// so that a launcher stopped at any moment stops them all.
const live = new Map<ChildProcess, { kind: Kind; stop: () => Promise<void> }>();

function track(child: ChildProcess, kind: Kind, graceMs: number): () => Promise<void> {
  const stop = stopper(child, graceMs);
  live.set(child, { kind, stop });
  child.once("exit", () => live.delete(child));
  return stop;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function stopper(child: ChildProcess, graceMs: number): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= new Promise((resolve) => {
      if (exited(child)) return resolve();
      const force = setTimeout(() => child.kill("SIGKILL"), graceMs);
      child.once("exit", () => {
        clearTimeout(force);
        resolve();
      });
      child.kill("SIGTERM");
    }));
}

/**
 * Stops every child started here and still running: builds and dashboards first (a dashboard finishes its work in
 * flight, which may need the sandbox), then sandboxes. Each gets SIGTERM, then SIGKILL after its grace.
 */
export async function stopAllStarted(): Promise<void> {
  const of = (kinds: Kind[]) => [...live.values()].filter((c) => kinds.includes(c.kind)).map((c) => c.stop());
  await Promise.all(of(["build", "dashboard"]));
  await Promise.all(of(["sandbox"]));
}

/** Last resort when this process is ending abruptly: SIGKILL every child still running (synchronous). */
export function killAllStarted(): void {
  for (const child of live.keys()) if (!exited(child)) child.kill("SIGKILL");
}

/** Starts the sandbox upstream and resolves once it prints its listening line. */
export function startSandbox(opts: {
  port: number;
  host?: string;
  env?: Record<string, string>;
  quiet?: boolean;
  /**
   * A script to run instead of sandbox/main.ts, which prints the same line: a benchmark's sandbox with options no
   * SANDBOX_* variable sets (a shorter rate-limit window). Its arguments follow it.
   */
  entry?: string[];
}): Promise<Started> {
  const entry = opts.entry ?? [path.join(ROOT, "sandbox", "main.ts")];
  const child = spawn(process.execPath, ["--import", "tsx", ...entry], {
    cwd: ROOT,
    env: { ...process.env, SANDBOX_PORT: String(opts.port), SANDBOX_HOST: opts.host ?? "127.0.0.1", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = track(child, "sandbox", DEFAULT_STOP_GRACE_MS);
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (!opts.quiet) process.stdout.write(prefix("sandbox", text));
      const match = /sandbox listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        child.stdout?.off("data", onData);
        if (!opts.quiet) child.stdout?.on("data", (c: Buffer) => process.stdout.write(prefix("sandbox", c.toString())));
        resolve({ child, url: match[1], stop });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (c: Buffer) => {
      output += c.toString();
      process.stderr.write(prefix("sandbox", c.toString()));
    });
    child.once("exit", (code) =>
      reject(new Error(`The sandbox exited (code ${code}) before it was ready.\n${output.trim()}`)),
    );
  });
}

/** Starts `next start` (or `next dev`) and resolves once it answers HTTP. */
export async function startDashboard(opts: {
  port: number;
  host: string;
  env: Record<string, string>;
  dev?: boolean;
  quiet?: boolean;
  /** Receives the dashboard's output (its JSON log lines on stdout, anything on stderr) instead of the terminal. */
  onOutput?: (text: string, stream: "stdout" | "stderr") => void;
  /** How long stop() waits after SIGTERM before SIGKILL: more than the dashboard's SHUTDOWN_TIMEOUT_S. */
  stopGraceMs?: number;
  /** Another checkout of Linkdesk to serve (built), for benchmarks that compare two builds. Default: this one. */
  root?: string;
}): Promise<Started> {
  const root = opts.root ?? ROOT;
  const next = path.join(root, "node_modules", ".bin", "next");
  const child = spawn(next, [opts.dev ? "dev" : "start", "-p", String(opts.port), "-H", opts.host], {
    cwd: root,
    // Linkdesk's shutdown (lib/shutdown.ts) handles SIGINT/SIGTERM: it drains work and requests, closes the database,
    // then exits. Next's own handler would exit as soon as its HTTP server closed.
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NEXT_MANUAL_SIG_HANDLE: "true", ...opts.env },
    stdio: opts.onOutput ? ["ignore", "pipe", "pipe"] : ["ignore", opts.quiet ? "ignore" : "inherit", "inherit"],
  });
  if (opts.onOutput) {
    const onOutput = opts.onOutput;
    child.stdout?.on("data", (chunk: Buffer) => onOutput(chunk.toString(), "stdout"));
    child.stderr?.on("data", (chunk: Buffer) => onOutput(chunk.toString(), "stderr"));
  }
  const stop = track(child, "dashboard", opts.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
  const url = `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${opts.port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`The dashboard exited (code ${code}) before it was ready.`))),
  );
  const ready = (async () => {
    for (let attempt = 0; attempt < 600; attempt++) {
      try {
        // Answers once the start-up work (configuration check, database migration, demo accounts) is done.
        const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) });
        await response.body?.cancel();
        if (response.status < 500) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error("The dashboard did not answer within 150 s.");
  })();
  await Promise.race([ready, exited]);
  return { child, url, stop };
}

/** Ids per registration call: about 140 KB of JSON, well inside the endpoint's 10,000 ids and the door's 1 MB. */
const REGISTER_CHUNK = 5000;

/**
 * Registers with a dashboard every link id the sandbox's back end knows (GET /_sandbox/back-end/link-ids), as the
 * product's back end does (POST /api/links/register, in chunks, with the service token): the upstream's listing holds
 * active links only, and the others (in error, connecting, imported without credentials) are the ones staff need.
 */
export async function registerBackEndLinks(opts: {
  sandboxUrl: string;
  dashboardUrl: string;
  token: string;
}): Promise<{ ids: number; registered: number; alreadyKnown: number }> {
  const known = await fetch(`${opts.sandboxUrl}/_sandbox/back-end/link-ids`);
  if (!known.ok) throw new Error(`The sandbox did not list its link ids (HTTP ${known.status}).`);
  const { link_ids: ids, customers = {} } = (await known.json()) as {
    link_ids: string[];
    customers?: Record<string, string>;
  };
  const totals = { ids: ids.length, registered: 0, alreadyKnown: 0 };
  for (let start = 0; start < ids.length;) {
    const response = await fetch(`${opts.dashboardUrl}/api/links/register`, {
      method: "POST",
      headers: { Authorization: `Bearer ${opts.token}`, "Content-Type": "application/json" },
      // With whose each link is: a reconnect request needs the link's customer, which the upstream's link does not say.
      body: JSON.stringify({
        link_ids: ids.slice(start, start + REGISTER_CHUNK),
        customers: Object.fromEntries(
          ids
            .slice(start, start + REGISTER_CHUNK)
            .filter((id) => customers[id] !== undefined)
            .map((id) => [id, customers[id]!]),
        ),
      }),
    });
    const answer = (await response.json().catch(() => ({}))) as {
      registered?: number;
      alreadyKnown?: number;
      error?: string;
    };
    if (response.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get("retry-after") ?? 1) * 1000));
      continue;
    }
    if (!response.ok)
      throw new Error(`Registering link ids failed (HTTP ${response.status}): ${answer.error ?? "no reason given"}`);
    totals.registered += answer.registered ?? 0;
    totals.alreadyKnown += answer.alreadyKnown ?? 0;
    start += REGISTER_CHUNK;
  }
  return totals;
}

const SOURCES = [
  "app",
  "components",
  "lib",
  "public",
  "instrumentation.ts",
  "instrumentation-client.ts",
  "proxy.ts",
  "next.config.mjs",
  "postcss.config.mjs",
  "package-lock.json",
  "tsconfig.json",
];

/** True when `.next` holds no production build, or one older than any source file. */
export function buildIsStale(): boolean {
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  if (!existsSync(buildId)) return true;
  const builtAt = statSync(buildId).mtimeMs;
  const newer = (p: string): boolean => {
    if (!existsSync(p)) return false;
    const stat = statSync(p);
    if (stat.isDirectory()) return readdirSync(p).some((entry) => newer(path.join(p, entry)));
    return !/\.test\.tsx?$/.test(p) && stat.mtimeMs > builtAt;
  };
  return SOURCES.some((source) => newer(path.join(ROOT, source)));
}

/** Runs `next build`, showing its output. */
export function build(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin("next"), ["build"], {
      cwd: ROOT,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "inherit",
    });
    track(child, "build", DEFAULT_STOP_GRACE_MS);
    child.once("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`next build failed (code ${code}). After an environment problem, rm -rf .next and retry.`)),
    );
  });
}

function prefix(name: string, text: string): string {
  return text.replace(/^(?=.)/gm, `[${name}] `);
}
