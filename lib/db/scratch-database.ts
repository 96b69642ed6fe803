import { randomBytes } from "node:crypto";
import { Client } from "pg";

// Scratch databases on a PostgreSQL server, for tests: the unit tests' storage targets (lib/testing/databases.ts) and
// the end-to-end scale-out spec, which runs outside vitest and outside the app (no lib/env here: the caller names the
// server).

/**
 * A new, empty database `linkdesk_test_<random>` beside the one `serverUrl` names; that one is only used to issue
 * CREATE and DROP DATABASE, never written to.
 */
export async function createScratchPostgresDatabase(
  serverUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `linkdesk_test_${randomBytes(6).toString("hex")}`;
  await withServer(serverUrl, (client) => client.query(`create database "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE ends sessions a failed test may have left open (PostgreSQL 13 and later).
    drop: () =>
      withServer(serverUrl, (client) => client.query(`drop database if exists "${name}" with (force)`)).then(
        () => undefined,
      ),
  };
}

async function withServer<T>(serverUrl: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
