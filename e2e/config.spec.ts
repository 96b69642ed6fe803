import { spawn } from "node:child_process";
import path from "node:path";
import { expect, test } from "./fixtures";

const root = path.resolve(import.meta.dirname, "..");

/** Runs a command we started ourselves, bounded in time, and returns its exit code and output. */
function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      // A clean environment: nothing from the developer's shell may make the configuration valid by accident.
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        ...env,
      },
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

test("the dashboard refuses to start with an invalid upstream URL and names the variable", async () => {
  const { code, output } = await run(
    path.join(root, "node_modules/.bin/next"),
    ["start", "-p", String(Number(process.env.E2E_PORT ?? 3110) + 9), "-H", "127.0.0.1"],
    {
      UPSTREAM_BASE_URL: "ftp://files.example.com",
      UPSTREAM_CLIENT_ID: "id",
      UPSTREAM_CLIENT_SECRET: "secret",
    },
  );
  expect(code).toBe(1);
  expect(output).toContain("UPSTREAM_BASE_URL must be an http(s) URL");
});

test("npm start refuses a real upstream without credentials and names what is missing", async () => {
  const { code, output } = await run(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "scripts/start.ts"],
    {
      UPSTREAM_BASE_URL: "https://api.example.com",
    },
  );
  expect(code).toBe(1);
  expect(output).toContain("UPSTREAM_CLIENT_ID is required when UPSTREAM_BASE_URL is set");
  expect(output).toContain("UPSTREAM_CLIENT_SECRET is required when UPSTREAM_BASE_URL is set");
});
