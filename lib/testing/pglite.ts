import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { inject } from "vitest";
import { type Database, type Db, createDatabase } from "../db/client";
import { migrateDatabase } from "../db/migrate";
import * as schema from "../db/schema";

// Test support only (imports vitest). Kept apart from databases.ts, which reads the storage configuration: files
// that mock lib/env can still open a PGlite here.

declare module "vitest" {
  export interface ProvidedContext {
    /** A dump of an in-memory PGlite with every migration applied, made once per run by global-setup.ts. */
    pgliteTemplate?: string;
    /** A migrated database on the DATABASE_URL server that scratch databases are copied from (global-setup.ts). */
    postgresTemplate?: string;
  }
}

/**
 * A throwaway in-memory PGlite with the checked-in migrations, as `createDatabase({ dataDir: "memory" })` gives. When
 * the run made a migrated template (the integration project's global setup), it starts from that: loading a dump is
 * a fraction of a fresh cluster's initdb plus the migrations. The migrator still runs and finds nothing to apply.
 */
export async function openTestPglite(): Promise<Database> {
  const template = inject("pgliteTemplate");
  if (!template) return createDatabase({ dataDir: "memory" });
  const client = await PGlite.create({ loadDataDir: new Blob([readFileSync(template)]) });
  try {
    await migrateDatabase({ kind: "pglite", client });
  } catch (error) {
    await client.close();
    throw error;
  }
  const db: Db = drizzlePglite({ client, schema });
  let closing: Promise<void> | undefined;
  return { db, kind: "pglite", client, close: () => (closing ??= client.close()) };
}
