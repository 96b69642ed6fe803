import "server-only";
import { createHash } from "node:crypto";
import { and, gt, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { signInAttempts } from "../db/schema";
import { LOCK_FAILURES, THROTTLE_WINDOW_MS, type ThrottleDecision, decideThrottle, strictest } from "./throttle";

// The throttle's memory (sign_in_attempts), applied atomically. Under a lock per subject, an attempt reads the recent
// attempts and records itself as "being checked" in one transaction; its password is checked after that, and the
// outcome settles the row. Attempts being checked count against the lock: while they could still take a subject to it,
// another attempt waits for them instead of being checked too. So attempts sent at once get no more than LOCK_FAILURES
// passwords checked per account and per address, on PGlite and on PostgreSQL, across instances; and people signing
// in at once from one address (an office, a load test) wait a moment rather than lock each other out.

/** An attempt still being checked after this long was lost (a crash, a restart): it counts as a failure. */
export const CHECK_TIMEOUT_MS = 30_000;
/** How long an attempt waits at most for others' checks to end; then the subject is treated as locked for a minute. */
const MAX_WAIT_MS = CHECK_TIMEOUT_MS + 5_000;
/** Waiting attempts look again after 40 ms, then twice as long each time up to a second: a flood of them stays cheap. */
const FIRST_POLL_MS = 40;
const MAX_POLL_MS = 1_000;
/** The first key of the two-key advisory locks taken here; the budget's one-key locks (0004) are another key space. */
const SIGN_IN_LOCK_SPACE = 0x5191;

export type AttemptAdmission =
  | { kind: "locked"; until: Date }
  | {
      kind: "allow";
      delayMs: number;
      /** The attempt's rows, one per subject, to settle once checked. */ attemptIds: number[];
    };

type Step = AttemptAdmission | { kind: "wait" };

/**
 * Admits an attempt of these subjects (recorded as being checked) or refuses it as locked, waiting while earlier
 * attempts being checked could still lock a subject.
 */
export async function admitSignInAttempt(
  db: Db,
  subjects: string[],
  now: () => number = Date.now,
): Promise<AttemptAdmission> {
  // Waiting is measured on the real clock, whatever clock the throttle is given.
  const deadline = Date.now() + MAX_WAIT_MS;
  for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(MAX_POLL_MS, pollMs * 2)) {
    const step = await tryAdmit(db, subjects, now());
    if (step.kind !== "wait") return step;
    if (Date.now() >= deadline) return { kind: "locked", until: new Date(now() + 60_000) };
    // Jittered, so waiters do not come back in step.
    await new Promise((resolve) => setTimeout(resolve, pollMs * (0.5 + Math.random())));
  }
}

/** Settles an admitted attempt's rows once its password has been checked. A success clears the failures before it. */
export async function settleSignInAttempt(db: Db, attemptIds: number[], succeeded: boolean): Promise<void> {
  if (attemptIds.length === 0) return;
  await db.update(signInAttempts).set({ succeeded }).where(inArray(signInAttempts.id, attemptIds));
}

async function tryAdmit(db: Db, subjects: string[], now: number): Promise<Step> {
  return db.transaction(async (tx) => {
    // Every caller locks in one order, so an attempt on (account, address) and one on (account, other address) queue
    // instead of deadlocking; sorted by the lock key itself, as two subjects may hash alike.
    for (const key of [...new Set(subjects.map(lockKeyOf))].sort((a, b) => a - b)) {
      await tx.execute(sql`select pg_advisory_xact_lock(${SIGN_IN_LOCK_SPACE}::int4, ${key}::int4)`);
    }
    const since = new Date(now - THROTTLE_WINDOW_MS);
    // Read once the locks are held: in READ COMMITTED this statement sees what every previous holder committed.
    const recent = await tx
      .select({ subject: signInAttempts.subject, at: signInAttempts.at, succeeded: signInAttempts.succeeded })
      .from(signInAttempts)
      .where(and(inArray(signInAttempts.subject, subjects), gt(signInAttempts.at, since)));
    const counts = subjects.map((subject) => countAttempts(recent, subject, now));
    const decision: ThrottleDecision = strictest(counts.map(({ failures }) => decideThrottle(failures, now)));
    // A refusal is not recorded: the lock must end when announced, not keep moving.
    if (decision.kind === "locked") return decision;
    if (counts.some(({ failures, checking }) => failures.length + checking >= LOCK_FAILURES)) return { kind: "wait" };
    const rows = await tx
      .insert(signInAttempts)
      .values(subjects.map((subject) => ({ subject, succeeded: null, at: new Date(now) })))
      .returning({ id: signInAttempts.id });
    // Only the throttle window matters: older attempts of these subjects go (the audit trail keeps the history).
    await tx.delete(signInAttempts).where(and(inArray(signInAttempts.subject, subjects), lt(signInAttempts.at, since)));
    return { kind: "allow", delayMs: decision.delayMs, attemptIds: rows.map((r) => r.id) };
  });
}

/** A subject's failures since its last success (timestamps), and how many of its attempts are being checked. */
function countAttempts(rows: { subject: string; at: Date; succeeded: boolean | null }[], subject: string, now: number) {
  const mine = rows.filter((r) => r.subject === subject);
  const lost = (r: { at: Date; succeeded: boolean | null }) =>
    r.succeeded === null && now - r.at.getTime() >= CHECK_TIMEOUT_MS;
  const lastSuccess = Math.max(0, ...mine.filter((r) => r.succeeded === true).map((r) => r.at.getTime()));
  const failures = mine
    .filter((r) => (r.succeeded === false || lost(r)) && r.at.getTime() > lastSuccess)
    .map((r) => r.at.getTime());
  const checking = mine.filter((r) => r.succeeded === null && !lost(r)).length;
  return { failures, checking };
}

/** A signed 32-bit key per subject; a collision only makes two subjects queue behind each other. */
function lockKeyOf(subject: string): number {
  return createHash("sha256").update(subject).digest().readInt32BE(0);
}
