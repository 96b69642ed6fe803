import { describeLimit } from "../budget/headroom";
import type { BudgetWait } from "../upstream/client";

// A job item waiting for a rate-limit slot, as its row records it (store.recordWait): the limit and the slot's time in
// the item's reason. Written by the instance whose call waits, read by any instance's view, which counts the time to
// the slot from it. Not the item's not-before: should its holder die, whoever takes the item over asks its own
// budget rather than wait for a time another instance was told.

const PREFIX = "Waiting for ";
const RECORDED =
  /^Waiting for (the per-(?:link|app|client|user) limit of \S.*) until (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\.$/s;

/** "Waiting for the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment until 2026-11-25T12:00:05.000Z." */
export function waitReason(wait: BudgetWait): string {
  return `${PREFIX}${describeLimit(wait, wait.reason === "closed")} until ${wait.nextSlotAt.toISOString()}.`;
}

/** The limit ("the per-link limit of …") and the slot's time a reason written by waitReason holds; null for any other. */
export function readWaitReason(reason: string | null): { limit: string; until: Date } | null {
  const match = reason === null ? null : RECORDED.exec(reason);
  if (!match) return null;
  const until = new Date(match[2]!);
  return Number.isNaN(until.getTime()) ? null : { limit: match[1]!, until };
}

/**
 * An item's reason as people read it now: a recorded wait as "Waiting for the per-link limit of …." while its holder
 * still waits (`held`) and the slot is ahead; nothing once it is over (the call went or goes out). No countdown: the
 * items table is not redrawn while nothing moves, and the job's progress line says when the next slot frees. Any other
 * reason as it is.
 */
export function itemReasonNow(reason: string | null, held: boolean, now = Date.now()): string | null {
  const wait = readWaitReason(reason);
  if (!wait) return reason;
  if (!held || wait.until.getTime() <= now) return null;
  return `${PREFIX}${wait.limit}.`;
}
