import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { shutDownNow } from "../shutdown";
import { closeDb, createDatabase, DatabaseClosedError, DataDirInUseError, databaseAnswers, getDb } from "./client";
import { auditLog } from "./schema";

// Only the storage settings matter here; the rest of the configuration is lib/env.ts's business and tests.
const storageEnv = vi.hoisted(() => ({
  DATABASE_URL: undefined as string | undefined,
  LINKDESK_DATA_DIR: "",
  PGLITE_SHARED_BUFFERS: "16MB",
}));
vi.mock("../env", () => ({ getEnv: () => storageEnv }));

const root = mkdtempSync(path.join(tmpdir(), "linkdesk-db-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const auditEntry = () => ({ action: "auth.sign_in", outcome: "ok" as const, correlationId: randomUUID() });

/** The pid of a process that has already ended, as a crashed dashboard would leave in its lock file. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ["-e", ""]).pid;
  if (!pid) throw new Error("could not start a short-lived process");
  return pid;
}

describe("the embedded database (PGlite)", () => {
  it("is opened once per process in LINKDESK_DATA_DIR/pglite with PGLITE_SHARED_BUFFERS, and keeps its data and sequences across a clean close", async () => {
    const dataDir = path.join(root, "data");
    storageEnv.LINKDESK_DATA_DIR = dataDir;
    const lockFile = path.join(dataDir, "pglite.lock");
    mkdirSync(dataDir);
    writeFileSync(lockFile, String(deadPid()));

    const first = getDb();
    expect(getDb()).toBe(first);
    const database = await first;
    expect(database.kind).toBe("pglite");
    expect(existsSync(path.join(dataDir, "pglite", "PG_VERSION"))).toBe(true);
    // The stale lock was taken over.
    expect(readFileSync(lockFile, "utf8")).toBe(String(process.pid));
    const sharedBuffers = async (opened: typeof database) =>
      (await opened.db.execute<{ shared_buffers: string }>(sql`show shared_buffers`)).rows[0]?.shared_buffers;
    expect(await sharedBuffers(database)).toBe("16MB");
    const [before] = await database.db.insert(auditLog).values(auditEntry()).returning();
    if (!before) throw new Error("insert returned nothing");

    await closeDb();
    expect(database.kind === "pglite" && database.client.closed).toBe(true);
    expect(existsSync(lockFile)).toBe(false);

    const reopened = await createDatabase({ dataDir: path.join(dataDir, "pglite") });
    try {
      expect(await reopened.db.select().from(auditLog)).toEqual([before]);
      const [after] = await reopened.db.insert(auditLog).values(auditEntry()).returning();
      // An unclean stop would resume the identity up to 32 further on (PostgreSQL logs sequences ahead).
      expect(after?.id).toBe(before.id + 1);
      // A start parameter, not written into the folder: opened without it, PGlite's own default is back.
      expect(await sharedBuffers(reopened)).toBe("128MB");
    } finally {
      await reopened.close();
    }
    // Two embedded databases opened on disk: seconds each on a busy machine.
  }, 90_000);

  it("refuses a data folder that another live process holds, without touching it", async () => {
    const dataDir = path.join(root, "held", "pglite");
    const lockFile = `${dataDir}.lock`;
    mkdirSync(path.dirname(dataDir), { recursive: true });
    writeFileSync(lockFile, String(process.ppid));

    const refusal = createDatabase({ dataDir });
    await expect(refusal).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(refusal).rejects.toMatchObject({
      holderPid: process.ppid,
      message: expect.stringContaining(`in use by process ${process.ppid}`),
    });
    expect(readFileSync(lockFile, "utf8")).toBe(String(process.ppid));
    expect(existsSync(dataDir)).toBe(false);
  });
});

// Last in this file: the server's shutdown closes the process-wide database for good.
describe("the process-wide database and the server's lifecycle", () => {
  it("answers the readiness check while open, and the shutdown closes it for good (it is not reopened)", async () => {
    // The folder the first test made: opening an existing database is much quicker than creating one. Closed first,
    // in case that test stopped half-way.
    await closeDb();
    const dataDir = path.join(root, "data");
    storageEnv.LINKDESK_DATA_DIR = dataDir;
    // Nothing opened yet: nothing to ask, and the check does not open it.
    expect(await databaseAnswers(1_000)).toBe(false);
    await getDb();
    expect(await databaseAnswers(1_000)).toBe(true);

    const outcome = await shutDownNow("SIGTERM");

    expect(outcome.clean).toBe(true);
    expect(existsSync(path.join(dataDir, "pglite.lock"))).toBe(false);
    expect(await databaseAnswers(1_000)).toBe(false);
    await expect(getDb()).rejects.toBeInstanceOf(DatabaseClosedError);
  }, 60_000);
});
