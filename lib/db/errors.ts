/** SQLSTATE codes the app reacts to. */
export const PgErrorCode = {
  uniqueViolation: "23505",
  checkViolation: "23514",
  /** Raised by the audit_log append-only trigger. */
  restrictViolation: "23001",
} as const;

export interface DatabaseErrorInfo {
  /** SQLSTATE, e.g. "23505". */
  code: string;
  message: string;
  constraint?: string;
}

/**
 * The PostgreSQL error behind a failed query, whichever driver raised it: drizzle wraps driver errors in
 * DrizzleQueryError (whose message quotes the query and its parameters: never show or log that one as is).
 */
export function databaseErrorOf(error: unknown): DatabaseErrorInfo | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const { code, constraint } = current as { code?: unknown; constraint?: unknown };
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
      return { code, message: current.message, constraint: typeof constraint === "string" ? constraint : undefined };
    }
  }
  return undefined;
}
