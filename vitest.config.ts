import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const include = ["{lib,sandbox,components,app,scripts}/**/*.test.{ts,tsx}"];

/**
 * Test files that need a database, real processes or real-time waits: they open PGlite or PostgreSQL (through
 * lib/testing/databases.ts, lib/testing/pglite.ts or createDatabase) or spawn processes. Found by what a file imports,
 * so a new storage test joins the integration project by itself. Everything else is unit (or unit-isolated, below).
 */
const INTEGRATION_MARKERS = /\b(testing\/databases|testing\/pglite|createDatabase|child_process)\b/;

/**
 * Unit files that change what a whole process shares: module mocks (vi.mock), the environment (process.env, which
 * lib/env.ts reads once), global objects, fake timers, or hooks on every HTTP server of the process (the body cap,
 * the shutdown's drain, direct routes, signal handlers). They run isolated, each file in a module graph of its own
 * (`unit-isolated`); the other unit files share one per worker, which halves the unit project's CPU (most of it was
 * importing the same modules anew for every file).
 */
const SHARED_STATE_MARKERS = new RegExp(
  [
    String.raw`\bvi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers)\(`,
    String.raw`\bprocess\.env\b`,
    String.raw`\bglobalThis\b`,
    String.raw`\bSymbol\.for\(`,
    String.raw`\b(capRequestBodies|trackHttpRequests|serveDirectly|serveWebhooksDirectly|installShutdownSignals)\b`,
  ].join("|"),
);

function filesMatching(markers: RegExp): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const file = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.test\.tsx?$/.test(entry.name) && markers.test(readFileSync(path.join(root, file), "utf8")))
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
const integration = filesMatching(INTEGRATION_MARKERS).filter((file) => !paced.includes(file));
const isolatedUnit = filesMatching(SHARED_STATE_MARKERS).filter(
  (file) => !paced.includes(file) && !integration.includes(file),
);

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
        test: { name: "unit", include, exclude: [...integration, ...paced, ...isolatedUnit], isolate: false },
      },
      {
        extends: true,
        test: { name: "unit-isolated", include: isolatedUnit },
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
