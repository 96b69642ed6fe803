import "server-only";
import { databaseAnswers } from "./db/client";
import { logger } from "./logger";
import { isShuttingDown } from "./shutdown";

// Readiness, apart from liveness (/api/health): whether this instance should be sent requests now. It is not while it
// shuts down, nor while its database does not answer. Cheap enough to be asked every few seconds: one `select 1`,
// never an upstream call (the upstream being down is not this instance's fault, and another instance would fare no
// better).

/** A probe waits this long for the database; a load balancer's probe timeout is typically a few seconds. */
export const READINESS_DATABASE_TIMEOUT_MS = 2_000;

export type Readiness =
  | { ready: true; shuttingDown: false; database: "ok" }
  | { ready: false; reason: "shutting_down"; shuttingDown: true; database: "not_checked" }
  | { ready: false; reason: "database_unreachable"; shuttingDown: false; database: "unreachable" };

let databaseWasUp = true;

export async function checkReadiness(): Promise<Readiness> {
  // The database may already be closed by the shutdown: not asked then.
  if (isShuttingDown()) return { ready: false, reason: "shutting_down", shuttingDown: true, database: "not_checked" };
  const up = await databaseAnswers(READINESS_DATABASE_TIMEOUT_MS);
  if (up !== databaseWasUp) {
    // Once per change, not once per probe.
    databaseWasUp = up;
    const log = logger().child({ component: "readiness" });
    if (up) log.info({}, "the database answers again: ready");
    else log.warn({ timeoutMs: READINESS_DATABASE_TIMEOUT_MS }, "the database does not answer: not ready");
  }
  return up
    ? { ready: true, shuttingDown: false, database: "ok" }
    : { ready: false, reason: "database_unreachable", shuttingDown: false, database: "unreachable" };
}
