import "server-only";
import pino from "pino";
import { getEnv } from "./env";

let instance: pino.Logger | undefined;

/**
 * The server's structured log (JSON lines on stdout). Secrets are redacted should one ever be passed in, and errors
 * pass through loggableError: a failed query's parameters never reach it.
 */
export function logger(): pino.Logger {
  instance ??= pino(loggerOptions(getEnv().LOG_LEVEL));
  return instance;
}

/** The log's options (level aside, the same for every use; tests write through them to a stream of their own). */
export function loggerOptions(level: string): pino.LoggerOptions {
  return {
    level,
    base: { app: "linkdesk" },
    redact: {
      paths: [
        "*.access_token",
        "*.client_secret",
        "*.authorization",
        "*.password",
        "*.link_session_token",
        "access_token",
        "client_secret",
        "link_session_token",
      ],
      censor: "[redacted]",
    },
    serializers: {
      err: (error: unknown) => pino.stdSerializers.err(loggableError(error) as Error),
      error: (error: unknown) => pino.stdSerializers.err(loggableError(error) as Error),
      db: (info: unknown) =>
        isRecord(info) && typeof info.message === "string"
          ? { ...info, message: withheldValues(info.message, info.code) }
          : info,
    },
  };
}

/** Writes out what the log still buffers (the last step of a shutdown). Nothing to do if nothing was logged. */
export function flushLogger(): Promise<void> {
  const log = instance;
  if (!log) return Promise.resolve();
  return new Promise((resolve) => log.flush(() => resolve()));
}

// What a failed query tells about the data it carried, and where it ends up. drizzle wraps a driver's error in
// DrizzleQueryError, whose message is "Failed query: <sql>\nparams: <every parameter>" and which keeps `params` as a
// property (printed by console.error and by pino's error serializer alike): a staff member's email, a password hash,
// whatever the statement wrote. PostgreSQL's own error keeps the failing row in `detail` ("Key (email)=(…) already
// exists", "Failing row contains (…)"), and its data exceptions (SQLSTATE class 22) quote the offending value in the
// message itself ('invalid input syntax for type uuid: "…"'). Next.js prints any error that escapes a page, action or
// route with console.error, whatever Linkdesk's own handlers do.

const WITHHELD = "[withheld]";
const FAILED_QUERY = /(Failed query: [\s\S]*?)\nparams: [\s\S]*$/;

/**
 * `error` as it may be logged: the same name, message, stack and cause chain, but a failed query's parameters, a
 * database error's detail and the values its data exceptions quote are withheld. Values that are not errors pass as is.
 */
export function loggableError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error) || depth > 8) return error;
  const code = (error as { code?: unknown }).code;
  const isDatabaseError = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
  const message = isDatabaseError
    ? withheldValues(error.message, code)
    : error.message.replace(FAILED_QUERY, `$1\nparams: ${WITHHELD}`);
  const copy = new Error(
    message,
    error.cause === undefined ? undefined : { cause: loggableError(error.cause, depth + 1) },
  );
  copy.name = error.name;
  const frames = (error.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  copy.stack = [`${error.name}: ${message}`, ...frames].join("\n");
  // What helps find the failure and names no data: SQLSTATE and where it struck, Next.js's digest.
  for (const key of ["code", "severity", "constraint", "table", "column", "schema", "routine", "digest"] as const) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (typeof value === "string") Object.assign(copy, { [key]: value });
  }
  return copy;
}

/** A database error's message with the values a data exception (SQLSTATE class 22) quotes withheld. */
export function withheldValues(message: string, code: unknown): string {
  return typeof code === "string" && code.startsWith("22")
    ? message.replace(/"(?:[^"\\]|\\.)*"/g, `"${WITHHELD}"`)
    : message;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/**
 * Makes console.error, through which Next.js reports what escaped a page, action or route (and Auth.js and others
 * report their own), print errors as loggableError does. Once per process; instrumentation.ts calls it at start.
 */
export function withholdQueryDetailsFromConsole(): void {
  const marker = Symbol.for("linkdesk.console-error-withholds");
  const target = console as Console & { [marker]?: true };
  if (target[marker]) return;
  target[marker] = true;
  const print = console.error.bind(console);
  console.error = (...args: unknown[]) =>
    print(
      ...args.map((arg) =>
        typeof arg === "string" ? arg.replace(FAILED_QUERY, `$1\nparams: ${WITHHELD}`) : loggableError(arg),
      ),
    );
}
