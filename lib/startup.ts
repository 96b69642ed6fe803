import "server-only";
import { ensureDemoAccounts } from "./auth/demo-accounts";
import { getDb } from "./db/client";
import { ConfigError, getEnv } from "./env";

/**
 * Runs once per server start: refuses to serve with missing or invalid configuration (naming the variable), brings
 * the database up to date, in demo mode creates the demo accounts, then starts the links sync's scheduler.
 */
export async function startServer(): Promise<void> {
  let env;
  try {
    env = getEnv();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Linkdesk cannot start. ${error.message}\nSee README.md, "Configuration".`);
    process.exit(1);
  }
  try {
    const { db } = await getDb();
    if (env.UPSTREAM_SANDBOX) await ensureDemoAccounts(db);
  } catch (error) {
    console.error(`Linkdesk cannot start: the database is not available. ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  (await import("./sync/scheduler")).startSyncScheduler();
}
