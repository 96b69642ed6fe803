import "server-only";
import { existsSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { Pool } from "pg";

/**
 * The checked-in migrations. Resolved from the working directory because `next start`, vitest and tsx all run from
 * the repository root, while a bundled server's own file location says nothing about where lib/ is.
 */
export function defaultMigrationsFolder(): string {
  return path.join(process.cwd(), "lib", "db", "migrations");
}

function checkedFolder(folder: string): string {
  if (!existsSync(path.join(folder, "meta", "_journal.json"))) {
    throw new Error(
      `No migrations found at ${folder} (meta/_journal.json is missing). Start the dashboard from the repository root.`,
    );
  }
  return folder;
}

// Any constant works as long as every instance uses the same one; this is "linkdesk" in ASCII.
const MIGRATION_LOCK_KEY = 0x6c696e6b6465736bn;

export type MigrationTarget = { kind: "pglite"; client: PGlite } | { kind: "postgres"; client: Pool };

/**
 * Brings the database up to the checked-in migrations; already applied ones are skipped, so this runs at every start.
 * On PostgreSQL, dashboard instances starting together take turns: the migrator's own bookkeeping
 * (CREATE SCHEMA / CREATE TABLE IF NOT EXISTS, then "what is applied?") is not safe to run concurrently.
 */
export async function migrateDatabase(
  target: MigrationTarget,
  migrationsFolder = defaultMigrationsFolder(),
): Promise<void> {
  const config = { migrationsFolder: checkedFolder(migrationsFolder) };
  if (target.kind === "pglite") {
    // PGlite has a single connection, so nothing can race here.
    await migratePglite(drizzlePglite({ client: target.client }), config);
    return;
  }
  // An advisory lock belongs to a session, so lock, migrate and unlock on one pooled connection.
  const lockKey = MIGRATION_LOCK_KEY.toString();
  const connection = await target.client.connect();
  try {
    await connection.query("select pg_advisory_lock($1)", [lockKey]);
    await migrateNodePg(drizzleNodePg({ client: connection }), config);
    await connection.query("select pg_advisory_unlock($1)", [lockKey]);
    connection.release();
  } catch (error) {
    // Ending the session releases the lock (and any half-done transaction) for the next instance.
    connection.release(true);
    throw error;
  }
}
