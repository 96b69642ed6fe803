// Brute-force policy for sign-in, as a pure function over recent failures of one subject (an account's email or a
// client address). The same policy applies whether or not the email exists, so it reveals nothing. It is applied
// atomically, attempt by attempt, in sign-in-attempts.ts.

export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** Failures allowed before sign-ins of the subject are slowed down. */
export const FREE_FAILURES = 5;
/** Failures after which the subject is refused until the window has passed since the last failure. */
export const LOCK_FAILURES = 10;
const MAX_DELAY_MS = 8_000;

export type ThrottleDecision = { kind: "allow"; delayMs: number } | { kind: "locked"; until: Date };

/**
 * @param failures timestamps (ms) of failed attempts within the window and after the last success, any order
 */
export function decideThrottle(failures: number[], now: number): ThrottleDecision {
  const recent = failures.filter((at) => now - at < THROTTLE_WINDOW_MS);
  if (recent.length >= LOCK_FAILURES) {
    return { kind: "locked", until: new Date(Math.max(...recent) + THROTTLE_WINDOW_MS) };
  }
  if (recent.length < FREE_FAILURES) return { kind: "allow", delayMs: 0 };
  return { kind: "allow", delayMs: Math.min(MAX_DELAY_MS, 1000 * 2 ** (recent.length - FREE_FAILURES)) };
}

/** The stricter of several decisions (email and address are throttled independently). */
export function strictest(decisions: ThrottleDecision[]): ThrottleDecision {
  const locked = decisions.filter((d): d is Extract<ThrottleDecision, { kind: "locked" }> => d.kind === "locked");
  if (locked.length > 0) return { kind: "locked", until: new Date(Math.max(...locked.map((d) => d.until.getTime()))) };
  return { kind: "allow", delayMs: Math.max(0, ...decisions.map((d) => (d.kind === "allow" ? d.delayMs : 0))) };
}
