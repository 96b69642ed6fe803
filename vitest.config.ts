import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const include = ["{lib,sandbox,components,app,scripts}/**/*.test.{ts,tsx}"];

/**
 * Test files that need a database, real processes or real-time waits: they open PGlite or PostgreSQL (through
 * lib/testing/databases.ts, lib/testing/pglite.ts or createDatabase) or spawn processes. Found by what a file imports,
 * so a new storage test joins the integration project by itself. Everything else is the fast `unit` project.
 */
const INTEGRATION_MARKERS = /\b(testing\/databases|testing\/pglite|createDatabase|child_process)\b/;

function integrationFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const file = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (
        /\.test\.tsx?$/.test(entry.name) &&
        INTEGRATION_MARKERS.test(readFileSync(path.join(root, file), "utf8"))
      )
        found.push(file);
    }
  };
  for (const dir of ["lib", "sandbox", "components", "app", "scripts"]) walk(dir);
  return found.sort();
}

/**
 * Files that assert a pace measured on the wall clock (a sync keeping its share of the rate limit, with a few seconds'
 * slack): they run after the others, one at a time, so that the busy integration files do not starve them.
 */
const paced = ["lib/sync/sync-rate-limits.test.ts"];
const integration = integrationFiles().filter((file) => !paced.includes(file));

export default defineConfig({
  resolve: {
    alias: {
      "@": root,
      // server-only throws outside React Server Components; unit tests run server code directly.
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    environment: "node",
    testTimeout: 60_000,
    // vitest's default is one worker fewer than the cores: one, on CI's two. Most integration files spend their time
    // waiting (on child processes, sandboxes, lease and settle windows), so three files at a time fill two cores.
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: { name: "unit", include, exclude: [...integration, ...paced] },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: integration,
          // Migrated PGlite and PostgreSQL templates, made once per run (lib/testing/pglite.ts copies them).
          globalSetup: ["lib/testing/global-setup.ts"],
        },
      },
      {
        extends: true,
        test: { name: "paced", include: paced, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
