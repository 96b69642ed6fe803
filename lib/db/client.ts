import "server-only";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { type Assume, sql } from "drizzle-orm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { Pool } from "pg";
import { getEnv } from "../env";
import { logger } from "../logger";
import { onShutdown } from "../shutdown";
import { migrateDatabase } from "./migrate";
import * as schema from "./schema";

/** What `db.execute(sql)` returns on both drivers: PGlite's Results and node-postgres's QueryResult share `rows`. */
export interface DbQueryResultHKT extends PgQueryResultHKT {
  type: DbRows<Assume<this["row"], Record<string, unknown>>>;
}
interface DbRows<TRow> {
  rows: TRow[];
}

/** A drizzle database with the Linkdesk schema; the same query API whichever driver is underneath. */
export type Db = PgDatabase<DbQueryResultHKT, typeof schema>;

/**
 * An open database. `client` is the driver underneath, for the migrator, backups and tests; queries go through `db`.
 * Being a discriminated union, a Database is itself a MigrationTarget.
 */
export type Database = { db: Db; close(): Promise<void> } & (
  { kind: "pglite"; client: PGlite } | { kind: "postgres"; client: Pool }
);

export interface DatabaseOptions {
  /** A postgres:// URL: use that server. Otherwise PGlite. */
  url?: string;
  /** PGlite's data folder, or "memory" for a throwaway in-memory database. Ignored with `url`. */
  dataDir?: string;
  /** Where the checked-in migrations are; defaults to lib/db/migrations under the working directory. */
  migrationsFolder?: string;
  /** PGlite's page cache (shared_buffers), e.g. "32MB"; PGlite's own default (128MB) when unset. Ignored with `url`. */
  sharedBuffers?: string;
}

// Enough for a few dashboard instances on one server's default max_connections (100).
const POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 10_000;

/** Opens a database and brings it up to the checked-in migrations. The caller owns it and must close() it. */
export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url
    ? openPostgres(options.url, options.migrationsFolder)
    : openPglite(options.dataDir ?? "memory", options.migrationsFolder, options.sharedBuffers);
}

/**
 * Transactions that always give their connection back. drizzle's own (node-postgres, pool) sends BEGIN before its
 * try/finally: when the connection drops right then (a database restart), the client is never released, and after
 * POOL_SIZE such drops every query waits for a slot forever (and pool.end() never returns). Here the client is taken
 * and released around the whole transaction, and a transaction that failed leaves its connection closed, not reused.
 */
function transactionsOn(pool: Pool): Db["transaction"] {
  return async <T>(work: Parameters<Db["transaction"]>[0], config?: Parameters<Db["transaction"]>[1]): Promise<T> => {
    const client = await pool.connect();
    let failed = false;
    try {
      return (await drizzleNodePg({ client, schema }).transaction(work, config)) as T;
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      client.release(failed);
    }
  };
}

async function openPostgres(url: string, migrationsFolder: string | undefined): Promise<Database> {
  // A connection attempt to an unreachable server gives up instead of waiting for the operating system's TCP timeout
  // (minutes), which would hold pool slots and pile up behind readiness probes.
  const pool = new Pool({ connectionString: url, max: POOL_SIZE, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // pg emits this when the server drops an idle pooled connection (restart, failover); unhandled, it would crash the
  // process. The pool replaces the connection by itself.
  pool.on("error", (error) => reportIdleConnectionError(error));
  // A connection lost while checked out (between two statements of a transaction) emits on its client, not the pool:
  // without a listener that crashes the process. The statement in progress or the next one fails on its own.
  pool.on("connect", (client) => client.on("error", (error) => reportIdleConnectionError(error)));
  try {
    await migrateDatabase({ kind: "postgres", client: pool }, migrationsFolder);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const db: Db = drizzleNodePg({ client: pool, schema });
  db.transaction = transactionsOn(pool);
  return { db, kind: "postgres", client: pool, close: once(() => pool.end()) };
}

async function openPglite(
  dataDir: string,
  migrationsFolder: string | undefined,
  sharedBuffers: string | undefined,
): Promise<Database> {
  let unlock = () => {};
  let client: PGlite;
  // Start parameters, not the `postgresqlconf` option: that one rewrites the data folder's postgresql.conf whole.
  const options = sharedBuffers
    ? { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffers}`] }
    : {};
  if (dataDir === "memory") {
    client = await PGlite.create(options);
  } else {
    const folder = path.resolve(dataDir);
    unlock = lockDataDir(folder);
    try {
      client = await PGlite.create(folder, options);
    } catch (error) {
      unlock();
      throw error;
    }
  }
  const close = once(async () => {
    try {
      await client.close();
    } finally {
      unlock();
    }
  });
  try {
    await migrateDatabase({ kind: "pglite", client }, migrationsFolder);
  } catch (error) {
    await close();
    throw error;
  }
  const db: Db = drizzlePglite({ client, schema });
  return { db, kind: "pglite", client, close };
}

/** The PGlite data folder is open in another live process (or already in this one). */
export class DataDirInUseError extends Error {
  constructor(
    readonly folder: string,
    readonly holderPid: number,
  ) {
    const who = holderPid === process.pid ? "this process already" : `process ${holderPid}`;
    super(
      `The embedded database in ${folder} is in use by ${who}. Stop it, or set DATABASE_URL to share a PostgreSQL server.`,
    );
    this.name = "DataDirInUseError";
  }
}

/**
 * PGlite is Postgres in single-user mode: two processes opening one data folder corrupt it, and PGlite itself takes no
 * lock. A pid file beside the folder refuses a second live process; one left by a crashed process is taken over.
 */
function lockDataDir(folder: string): () => void {
  mkdirSync(path.dirname(folder), { recursive: true });
  const lockFile = `${folder}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: "wx" });
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(lockFile, "utf8"));
      if (isAlive(holder)) throw new DataDirInUseError(folder, holder);
      rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database in ${folder} (${lockFile}).`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}

function reportIdleConnectionError(error: Error): void {
  try {
    logger().warn({ err: error }, "database connection lost while idle; the pool will reconnect");
  } catch {
    // Without a valid configuration (tests, scripts) there is no logger; losing this warning is harmless.
  }
}

// On globalThis rather than in module scope: Next.js may evaluate this module more than once in one process (dev
// reloads, separate server bundles), and two PGlite instances on one data folder would corrupt it.
interface Shared {
  pending?: Promise<Database>;
  hooksInstalled?: boolean;
  /** Closed by the server's shutdown: never opened again in this process. */
  closedForShutdown?: boolean;
}
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.db")] ??= {});

/** The database was closed because the server is shutting down. */
export class DatabaseClosedError extends Error {
  constructor() {
    super("The database is closed: the server is shutting down.");
    this.name = "DatabaseClosedError";
  }
}

/** The process-wide database, from DATABASE_URL or else PGlite in LINKDESK_DATA_DIR/pglite; migrated on first use. */
export function getDb(): Promise<Database> {
  // Reopening after the shutdown closed it would leave PGlite open when the process exits.
  if (shared.closedForShutdown) return Promise.reject(new DatabaseClosedError());
  if (!shared.pending) {
    const env = getEnv();
    const pending = createDatabase({
      url: env.DATABASE_URL,
      dataDir: path.join(env.LINKDESK_DATA_DIR, "pglite"),
      sharedBuffers: env.PGLITE_SHARED_BUFFERS,
    });
    shared.pending = pending;
    // A failed start (server down, folder locked) is not cached: the next call tries again.
    pending.catch(() => {
      if (shared.pending === pending) shared.pending = undefined;
    });
    installShutdownHooks();
  }
  return shared.pending;
}

/** Closes the process-wide database if open. PGlite must be closed cleanly, or its sequences jump after a restart. */
export async function closeDb(): Promise<void> {
  const pending = shared.pending;
  shared.pending = undefined;
  const database = await pending?.catch(() => undefined);
  await database?.close();
}

/**
 * Whether the process-wide database answers a trivial query within `timeoutMs` (the readiness probe). Never throws,
 * never opens a database the process has not opened yet: before start-up has opened it there is nothing to ask.
 */
export async function databaseAnswers(timeoutMs: number): Promise<boolean> {
  const pending = shared.pending;
  if (!pending) return false;
  const query = pending
    .then(({ db }) => db.execute(sql`select 1`))
    .then(
      () => true,
      () => false,
    );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([query, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function installShutdownHooks(): void {
  if (shared.hooksInstalled) return;
  shared.hooksInstalled = true;
  // Scripts and tests whose work simply ends: with nothing else scheduled, closing lets the loop drain.
  process.on("beforeExit", () => void closeDb());
  // A server closes it as the last part of its shutdown, after the work and requests that use it are done.
  onShutdown(
    "database",
    async () => {
      shared.closedForShutdown = true;
      await closeDb();
    },
    "close",
  );
}
