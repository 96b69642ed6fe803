import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { parseStorageEnv } from "../env";
import { createDatabase } from "../db/client";
import { createScratchPostgresDatabase } from "../db/scratch-database";

// vitest's global setup for the integration project: migrates once per run, so that each test file's databases start
// from a copy instead of replaying every migration (a fresh PGlite costs seconds of initdb and migrations).
//   - PGlite: a dump of a migrated in-memory database, in a temporary folder; pglite.ts loads it.
//   - PostgreSQL (when DATABASE_URL is set): a migrated scratch database that databases.ts copies with
//     CREATE DATABASE … TEMPLATE. Dropped at the end of the run.
// The tests about migrating itself (lib/db/migrate.test.ts) still start from empty databases.
export default async function setup(project: TestProject) {
  const folder = mkdtempSync(path.join(tmpdir(), "linkdesk-vitest-"));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(folder, { recursive: true, force: true })];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const pglite = await createDatabase({ dataDir: "memory" });
    try {
      if (pglite.kind !== "pglite") throw new Error("expected an embedded database");
      const dump = await pglite.client.dumpDataDir("none");
      const file = path.join(folder, "pglite-template.tar");
      writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
      project.provide("pgliteTemplate", file);
    } finally {
      await pglite.close();
    }

    const serverUrl = parseStorageEnv().DATABASE_URL;
    if (serverUrl) {
      const template = await createScratchPostgresDatabase(serverUrl);
      cleanups.push(template.drop);
      const migrated = await createDatabase({ url: template.url });
      // CREATE DATABASE … TEMPLATE refuses a source with open sessions: the pool is ended before any test copies it.
      await migrated.close();
      project.provide("postgresTemplate", new URL(template.url).pathname.slice(1));
    }
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
