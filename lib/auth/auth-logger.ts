import type { NextAuthConfig } from "next-auth";

// Auth.js's own log lines go to the app's structured log instead of its default console output ("[auth][error]
// CredentialsSignin" with a stack trace on stderr for every wrong password), each at the level its event deserves.

/** The few methods of the app's logger (pino) that Auth.js's events need. */
export interface AuthLogSink {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Refusals of a person (a wrong password, a locked account, an identity-provider account that is not admitted):
 * expected events, each already in the audit trail. Logged at info, without a stack.
 */
const REFUSALS = new Set(["CredentialsSignin", "AccessDenied"]);
/**
 * A session cookie that cannot be read: tampered with, from before a change of AUTH_SECRET, or made by an instance
 * with a different AUTH_SECRET (every instance must share it). Worth a warning, not an error with a stack.
 */
const UNREADABLE_SESSIONS = new Set(["JWTSessionError", "SessionTokenError"]);

/** Auth.js's error type ("CredentialsSignin"), read without instanceof, which fails across server chunks. */
function authErrorType(error: Error): string {
  const type = (error as Error & { type?: unknown }).type;
  return typeof type === "string" ? type : error.name;
}

/** Auth.js appends "Read more at https://errors.authjs.dev#…" to every message: the type says as much. */
function ownMessage(error: Error): string {
  return error.message.replace(/\.?\s*Read more at https:\/\/errors\.authjs\.dev\S*$/, "");
}

type AuthJsLogger = Required<Pick<NonNullable<NextAuthConfig["logger"]>, "error" | "warn" | "debug">>;

/** An Auth.js `logger` writing to `sink()` (a function: the app's logger is made on first use). */
export function authLogger(sink: () => AuthLogSink): AuthJsLogger {
  return {
    error(error) {
      const type = authErrorType(error);
      const code = (error as Error & { code?: unknown }).code;
      if (REFUSALS.has(type)) {
        sink().info({ component: "auth", type, ...(typeof code === "string" ? { code } : {}) }, `auth: ${type}`);
        return;
      }
      const cause = error.cause as { err?: unknown } | undefined;
      const causeMessage = cause?.err instanceof Error ? cause.err.message : undefined;
      if (UNREADABLE_SESSIONS.has(type)) {
        sink().warn(
          { component: "auth", type, ...(causeMessage ? { cause: causeMessage } : {}) },
          `auth: ${type} (a session cookie could not be read)`,
        );
        return;
      }
      sink().error(
        {
          component: "auth",
          type,
          err: cause?.err instanceof Error ? cause.err : error,
          detail: ownMessage(error) || undefined,
        },
        `auth: ${type}`,
      );
    },
    warn(code) {
      sink().warn({ component: "auth", code }, `auth warning: ${code}`);
    },
    debug(message, metadata) {
      sink().debug({ component: "auth", metadata }, `auth: ${message}`);
    },
  };
}
