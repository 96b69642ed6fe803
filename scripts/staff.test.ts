import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../lib/auth/password";
import { type Db, createDatabase } from "../lib/db/client";
import { auditLog, staff } from "../lib/db/schema";
import { isUsageError, parseCommand } from "./staff-command";

// `npm run staff` as an operator runs it: a child process with its own embedded database in a temporary folder.
const repositoryRoot = fileURLToPath(new URL("..", import.meta.url));
const root = mkdtempSync(path.join(tmpdir(), "linkdesk-staff-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runStaff(dataDir: string, args: string[], stdin = "", env: Record<string, string> = {}): Promise<Finished> {
  // An empty DATABASE_URL counts as unset: always the embedded database here, whatever the test run's own setting.
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LINKDESK_DATA_DIR: dataDir, DATABASE_URL: "", ...env };
  // The command must not need the dashboard's upstream credentials or session secret: none are passed on.
  for (const name of Object.keys(childEnv)) if (/^(UPSTREAM_|AUTH_|SESSION_)/.test(name)) delete childEnv[name];
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "scripts/staff.ts", ...args],
      {
        cwd: repositoryRoot,
        env: childEnv,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** Opens the command's database after it has exited (PGlite allows one process at a time) and hands it to `read`. */
async function inspect<T>(dataDir: string, read: (db: Db) => Promise<T>): Promise<T> {
  const database = await createDatabase({ dataDir: path.join(dataDir, "pglite") });
  try {
    return await read(database.db);
  } finally {
    await database.close();
  }
}

describe("npm run staff", () => {
  it(
    "adds an account, prints its one-time password once, lists it, and refuses the same email twice",
    { timeout: 120_000 },
    async () => {
      const dataDir = path.join(root, "accounts");

      const added = await runStaff(dataDir, [
        "add",
        "--email",
        "Ada@Example.com",
        "--role",
        "admin",
        "--name",
        "Ada Lovelace",
      ]);
      expect(added).toMatchObject({ code: 0, stderr: "" });
      expect(added.stdout).toContain("Added ada@example.com as admin.");
      expect(added.stdout).toContain("copy it now: it will not be shown again");
      const password = /^ {2}(\S+)$/m.exec(added.stdout)?.[1];
      expect(password).toMatch(/^[\w-]{20}$/);

      const chosen = "correct horse battery staple";
      const piped = await runStaff(
        dataDir,
        ["add", "--email", "bob@example.com", "--role", "viewer", "--password-stdin"],
        `${chosen}\n`,
      );
      expect(piped).toMatchObject({ code: 0, stderr: "" });
      expect(piped.stdout).not.toContain(chosen);

      const listed = await runStaff(dataDir, ["list"]);
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^EMAIL\s+NAME\s+ROLE\s+SIGN-IN\s+STATUS\s+CREATED \(UTC\)$/);
      expect(lines[1]).toMatch(
        /^ada@example\.com\s+Ada Lovelace\s+admin\s+password\s+active\s+\d{4}-\d\d-\d\d \d\d:\d\d$/,
      );
      expect(lines[2]).toMatch(/^bob@example\.com\s+-\s+viewer\s+password\s+active\s/);
      expect(listed.stdout).not.toContain(password);

      const duplicate = await runStaff(dataDir, ["add", "--email", "ADA@example.com", "--role", "viewer"]);
      expect(duplicate).toMatchObject({ code: 1, stdout: "" });
      expect(duplicate.stderr.trim()).toBe("An account for ada@example.com already exists.");

      // The printed and the piped passwords are the ones that sign in; the trail names the operating-system user.
      await inspect(dataDir, async (db) => {
        const [ada] = await db.select().from(staff).where(eq(staff.email, "ada@example.com"));
        const [bob] = await db.select().from(staff).where(eq(staff.email, "bob@example.com"));
        expect(await verifyPassword(password!, ada!.passwordHash!)).toBe(true);
        expect(await verifyPassword(chosen, bob!.passwordHash!)).toBe(true);
        const trail = await db
          .select({ action: auditLog.action, outcome: auditLog.outcome, actor: auditLog.actorEmail })
          .from(auditLog);
        expect(trail).toEqual([
          { action: "staff.add", outcome: "ok", actor: expect.stringMatching(/^cli:/) },
          { action: "staff.add", outcome: "ok", actor: expect.stringMatching(/^cli:/) },
          { action: "staff.add", outcome: "refused", actor: expect.stringMatching(/^cli:/) },
        ]);
      });
      // Closed on exit: the lock beside the data folder is gone.
      expect(existsSync(path.join(dataDir, "pglite.lock"))).toBe(false);
    },
  );

  it.each<[string, string[]]>([
    ["no command", []],
    ["an unknown command", ["promote", "--email", "a@example.com"]],
    ["a missing option", ["add", "--email", "a@example.com"]],
    ["an unknown option", ["list", "--all"]],
    ["an option the command does not take", ["disable", "--email", "a@example.com", "--role", "admin"]],
    ["a stray argument", ["list", "everyone"]],
  ])("refuses %s as a usage error", (_, args) => {
    let refused: unknown;
    try {
      parseCommand(args);
    } catch (error) {
      refused = error;
    }
    expect(isUsageError(refused), String(refused)).toBe(true);
  });

  it(
    "prints usage and exits 2 on arguments it does not understand, without opening the database",
    { timeout: 60_000 },
    async () => {
      const dataDir = path.join(root, "usage");
      const result = await runStaff(dataDir, ["list", "--all"]);
      expect(result).toMatchObject({ code: 2, stdout: "" });
      expect(result.stderr).toContain("Unknown option '--all'");
      expect(result.stderr).toContain("Usage: npm run staff -- <command>");
      expect(existsSync(dataDir)).toBe(false);
    },
  );

  it(
    "exits 1 naming the variable when the storage configuration is invalid, and needs nothing else",
    { timeout: 30_000 },
    async () => {
      const dataDir = path.join(root, "misconfigured");
      // No upstream variables and no AUTH_SECRET: only storage matters to this command.
      const result = await runStaff(dataDir, ["list"], "", { DATABASE_URL: "mysql://db.example.com/linkdesk" });
      expect(result).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr).toContain("DATABASE_URL must be a postgres:// or postgresql:// URL");
      expect(existsSync(dataDir)).toBe(false);
    },
  );

  it(
    "exits 1 with advice when the dashboard holds the embedded database, and leaves its lock alone",
    { timeout: 30_000 },
    async () => {
      const dataDir = path.join(root, "held");
      const lockFile = path.join(dataDir, "pglite.lock");
      mkdirSync(dataDir, { recursive: true });
      // This test process stands in for a running dashboard.
      writeFileSync(lockFile, String(process.pid));

      const result = await runStaff(dataDir, ["list"]);
      expect(result).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr).toMatch(/most likely the running dashboard/);
      expect(result.stderr).toMatch(/Staff page \(\/admin\/staff\), or stop the dashboard first/);
      expect(readFileSync(lockFile, "utf8")).toBe(String(process.pid));
      expect(existsSync(path.join(dataDir, "pglite"))).toBe(false);
    },
  );
});
