import "server-only";
import { ConfigError, getEnv } from "./env";

/** Refuses to serve with missing or invalid configuration, naming the variable. */
export async function startServer(): Promise<void> {
  try {
    getEnv();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Linkdesk cannot start. ${error.message}\nSee README.md, "Configuration".`);
    process.exit(1);
  }
}
