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

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", () => {
        clearTimeout(force);
        resolve();
      });
      child.kill("SIGTERM");
    });
}

/** Starts the sandbox upstream and resolves once it prints its listening line. */
export function startSandbox(opts: { port: number; host?: string; env?: Record<string, string>; quiet?: boolean }): Promise<Started> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "sandbox", "main.ts")], {
    cwd: ROOT,
    env: { ...process.env, SANDBOX_PORT: String(opts.port), SANDBOX_HOST: opts.host ?? "127.0.0.1", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
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
        resolve({ child, url: match[1], stop: stopper(child) });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (c: Buffer) => {
      output += c.toString();
      process.stderr.write(prefix("sandbox", c.toString()));
    });
    child.once("exit", (code) => reject(new Error(`The sandbox exited (code ${code}) before it was ready.\n${output.trim()}`)));
  });
}

/** Starts `next start` (or `next dev`) and resolves once it answers HTTP. */
export async function startDashboard(opts: {
  port: number;
  host: string;
  env: Record<string, string>;
  dev?: boolean;
  quiet?: boolean;
}): Promise<Started> {
  const child = spawn(bin("next"), [opts.dev ? "dev" : "start", "-p", String(opts.port), "-H", opts.host], {
    cwd: ROOT,
    // Linkdesk handles SIGINT/SIGTERM itself (lib/db closes the embedded database, then the process exits), so Next's
    // handler cannot exit before the database is closed.
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NEXT_MANUAL_SIG_HANDLE: "true", ...opts.env },
    stdio: ["ignore", opts.quiet ? "ignore" : "inherit", "inherit"],
  });
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
  return { child, url, stop: stopper(child) };
}

const SOURCES = ["app", "components", "lib", "public", "instrumentation.ts", "proxy.ts", "next.config.mjs", "postcss.config.mjs", "package-lock.json", "tsconfig.json"];

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
    const child = spawn(bin("next"), ["build"], { cwd: ROOT, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, stdio: "inherit" });
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`next build failed (code ${code}). After an environment problem, rm -rf .next and retry.`)),
    );
  });
}

function prefix(name: string, text: string): string {
  return text.replace(/^(?=.)/gm, `[${name}] `);
}
