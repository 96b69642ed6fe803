import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { type Database, createDatabase } from "../../lib/db/client";
import { PGLITE_SHARED_BUFFERS_DEFAULT } from "../../lib/env";
import { type Figure, skipped } from "./report";

/** A fresh database on the DATABASE_URL server, dropped afterwards; the named database is only used to create it. */
export async function createScratchDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `linkdesk_bench_${randomBytes(6).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

/**
 * Runs `measure` on PGlite (in a temporary data folder: large tables are better kept out of the wasm heap) and, when
 * DATABASE_URL is set, on PostgreSQL in a scratch database; each is closed and removed afterwards.
 */
export async function onBenchDatabases(
  label: string,
  measure: (name: "PGlite" | "PostgreSQL", database: Database) => Promise<Figure[]>,
): Promise<Figure[]> {
  const rows: Figure[] = [];
  const folder = mkdtempSync(path.join(tmpdir(), `linkdesk-bench-${label}-`));
  try {
    // As the dashboard opens it: PGLITE_SHARED_BUFFERS, or the default.
    const pglite = await createDatabase({
      dataDir: path.join(folder, "pglite"),
      sharedBuffers: process.env.PGLITE_SHARED_BUFFERS ?? PGLITE_SHARED_BUFFERS_DEFAULT,
    });
    try {
      rows.push(...(await measure("PGlite", pglite)));
    } finally {
      await pglite.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return [...rows, skipped("PostgreSQL", "DATABASE_URL is not set")];
  const scratch = await createScratchDatabase(serverUrl);
  try {
    const postgres = await createDatabase({ url: scratch.url });
    try {
      rows.push(...(await measure("PostgreSQL", postgres)));
    } finally {
      await postgres.close();
    }
  } finally {
    await scratch.drop();
  }
  return rows;
}
