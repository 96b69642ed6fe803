import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { parseStorageEnv } from "../env";
import { createDatabase, type Database } from "../db/client";
import { createScratchPostgresDatabase as createScratchDatabaseOn } from "../db/scratch-database";
import { openTestPglite } from "./pglite";

// Only the storage settings: unit tests have no upstream or session secret to configure.
const serverUrl = parseStorageEnv().DATABASE_URL;

export interface TestDatabase {
  kind: Database["kind"];
  /** The open database; available inside tests and hooks, not while describe blocks are being collected. */
  readonly database: Database;
  /** The scratch database's URL (PostgreSQL only), for tests that need connections of their own. */
  readonly url: string | undefined;
}

/**
 * The databases a storage test runs against: PostgreSQL, in a scratch database, when DATABASE_URL names a server, and
 * PGlite in memory otherwise. `both` adds PGlite beside PostgreSQL, for the files that test what PGlite does
 * differently: the migrations, how each driver carries values and errors, and promises the code makes about PGlite
 * itself (docs/decisions/test-databases.md says which files, and why the rest need only one). Call it once at the top
 * of a test file, then `describe.each(databases)("$kind", ...)`.
 * The databases live for the whole file (a new PGlite costs seconds), so tests must not expect empty tables.
 * They start migrated, copied from the run's templates (global-setup.ts); `fromEmpty` opens them empty and lets
 * createDatabase apply every migration, for the tests of migrating itself.
 */
export function withTestDatabases(options: { fromEmpty?: boolean; both?: boolean } = {}): TestDatabase[] {
  const pglite = () => (options.fromEmpty ? createDatabase({ dataDir: "memory" }) : openTestPglite());
  const targets: ReturnType<typeof openTarget>[] = [];
  if (!serverUrl || options.both) targets.push(openTarget("pglite", async () => ({ database: await pglite() })));
  if (serverUrl) {
    targets.push(
      openTarget("postgres", async () => {
        const scratch = options.fromEmpty
          ? await createScratchPostgresDatabase()
          : await createMigratedScratchPostgresDatabase();
        try {
          return { database: await createDatabase({ url: scratch.url }), url: scratch.url, drop: scratch.drop };
        } catch (error) {
          await scratch.drop();
          throw error;
        }
      }),
    );
  }
  // One after the other, PostgreSQL first: PGlite's start blocks the event loop for seconds at a time (WASM), and a
  // PostgreSQL connection opened beside it could see its 10 s connect timeout fire on a busy machine.
  beforeAll(async () => {
    for (const target of [...targets].reverse()) await target.open();
  }, 60_000);
  afterAll(() => Promise.all(targets.map((t) => t.close())), 60_000);
  return targets.map((t) => t.target);
}

interface Opened {
  database: Database;
  url?: string;
  drop?: () => Promise<void>;
}

function openTarget(kind: Database["kind"], open: () => Promise<Opened>) {
  let opened: Opened | undefined;
  const target: TestDatabase = {
    kind,
    get database() {
      if (!opened) throw new Error(`The ${kind} test database is not open: use it inside a test or hook.`);
      return opened.database;
    },
    get url() {
      return opened?.url;
    },
  };
  return {
    target,
    open: async () => {
      opened = await open();
    },
    close: async () => {
      if (!opened) return;
      const { database, drop } = opened;
      opened = undefined;
      await database.close();
      await drop?.();
    },
  };
}

/** Whether DATABASE_URL names a PostgreSQL server to test against as well. */
export const hasPostgresServer = serverUrl !== undefined;

/** A new, empty database on the DATABASE_URL server (see scratch-database.ts). */
export async function createScratchPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!serverUrl) throw new Error("DATABASE_URL is not set: there is no PostgreSQL server to test against.");
  return createScratchDatabaseOn(serverUrl);
}

/**
 * A new database on the DATABASE_URL server with every migration applied: a copy of the run's migrated template
 * (global-setup.ts) when there is one, else an empty scratch database (createDatabase migrates it on opening).
 */
export async function createMigratedScratchPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = inject("postgresTemplate");
  if (!serverUrl) throw new Error("DATABASE_URL is not set: there is no PostgreSQL server to test against.");
  if (!template) return createScratchDatabaseOn(serverUrl);
  const name = `linkdesk_test_${randomBytes(6).toString("hex")}`;
  await onServer(serverUrl, `create database "${name}" template "${template}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  // FORCE ends sessions a failed test may have left open (PostgreSQL 13 and later).
  return { url: url.toString(), drop: () => onServer(serverUrl, `drop database if exists "${name}" with (force)`) };
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
