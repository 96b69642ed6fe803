import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseSandboxEnv } from "./env";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("parseSandboxEnv", () => {
  it("reads every SANDBOX_* variable", () => {
    const result = parseSandboxEnv({
      SANDBOX_HOST: "0.0.0.0",
      SANDBOX_PORT: "4999",
      SANDBOX_CLIENT_ID: "sandbox_x",
      SANDBOX_CLIENT_SECRET: "s3cret",
      SANDBOX_TOKEN_TTL_S: "60",
      SANDBOX_LINKS: "100000",
      SANDBOX_TRANSACTIONS_PER_LINK: "10",
      SANDBOX_SEED: "42",
      SANDBOX_RATE_LIMITS: "off",
      SANDBOX_IMPORT_DELAY_MS: "0",
      SANDBOX_FAULT_LATENCY_MS: "25",
      SANDBOX_FAULT_5XX_RATE: "0.1",
      SANDBOX_WEBHOOK_RETRY_BASE_MS: "50",
      SANDBOX_WEBHOOK_TIMEOUT_MS: "2000",
      SANDBOX_WEBHOOK_KEY_RETENTION_S: "600",
      SANDBOX_REFRESH_DELAY_MS: "0",
    });
    expect(result).toEqual({
      ok: true,
      config: {
        host: "0.0.0.0",
        port: 4999,
        options: {
          clientId: "sandbox_x",
          clientSecret: "s3cret",
          tokenTtlSeconds: 60,
          links: 100_000,
          transactionsPerLink: 10,
          seed: 42,
          rateLimits: false,
          importDelayMs: 0,
          faults: { latencyMs: 25, failRate: 0.1 },
          webhookRetryBaseMs: 50,
          webhookTimeoutMs: 2000,
          webhookKeyRetentionMs: 600_000,
          refreshDelayMs: 0,
          anchorDate: new Date().toISOString().slice(0, 10),
        },
      },
    });
  });

  it("falls back to the defaults when nothing is set", () => {
    const result = parseSandboxEnv({});
    expect(result.ok && result.config.host).toBe("127.0.0.1");
    expect(result.ok && result.config.port).toBe(4010);
  });

  it("names each bad variable", () => {
    const result = parseSandboxEnv({
      SANDBOX_PORT: "http",
      SANDBOX_RATE_LIMITS: "maybe",
      SANDBOX_FAULT_5XX_RATE: "2",
      SANDBOX_LINKS: "-1",
    });
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    for (const name of ["SANDBOX_PORT", "SANDBOX_RATE_LIMITS", "SANDBOX_FAULT_5XX_RATE", "SANDBOX_LINKS"]) {
      expect(errors.some((error) => error.startsWith(name))).toBe(true);
    }
  });
});

function runMain(env: Record<string, string>) {
  // Node itself with tsx as a loader, not the tsx command (a parent that relays signals to its own child): the process
  // signalled is the sandbox, and its exit code is the sandbox's (through tsx's relay, a busy machine once saw 143).
  const child = spawn(process.execPath, ["--import", "tsx", "sandbox/main.ts"], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

describe("sandbox/main.ts", () => {
  it("prints one line once listening, serves, and exits 0 on SIGTERM", async () => {
    const run = runMain({ SANDBOX_PORT: "0", SANDBOX_LINKS: "100" });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line: ${JSON.stringify(run.output())}`)), 10_000);
      run.child.stdout.on("data", () => {
        const match = /^sandbox listening on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(run.output().stdout);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    expect((await fetch(`${url}/docs/errors`)).status).toBe(200);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.output().stdout).toBe(`sandbox listening on ${url}\n`);
  });

  it("exits 1 naming the variable on a bad value", async () => {
    const run = runMain({ SANDBOX_PORT: "70000" });
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toContain("SANDBOX_PORT");
    expect(run.output().stdout).toBe("");
  });
});
