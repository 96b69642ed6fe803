import "server-only";
import pino from "pino";
import { getEnv } from "./env";

let instance: pino.Logger | undefined;

/** The server's structured log (JSON lines on stdout). Secrets are redacted should one ever be passed in. */
export function logger(): pino.Logger {
  instance ??= pino({
    level: getEnv().LOG_LEVEL,
    base: { app: "linkdesk" },
    redact: {
      paths: ["*.access_token", "*.client_secret", "*.authorization", "*.password", "access_token", "client_secret"],
      censor: "[redacted]",
    },
  });
  return instance;
}

/** Writes out what the log still buffers (the last step of a shutdown). Nothing to do if nothing was logged. */
export function flushLogger(): Promise<void> {
  const log = instance;
  if (!log) return Promise.resolve();
  return new Promise((resolve) => log.flush(() => resolve()));
}
