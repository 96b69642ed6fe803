import "server-only";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import {
  type OutboundAttempt,
  type OutboundChannel,
  type OutboundDelivery,
  outboundAttempts,
  outboundDeliveries,
} from "../db/schema";
import type { AttemptResult } from "./attempt";
import { MESSAGE_ID_PATTERN, type OutboundMessage, webhookBody, withholdValues } from "./message";

// The delivery log's rows (outbound_deliveries, outbound_attempts): queueing a message, leasing what is due, and
// recording each try with the delivery's new state in one transaction, fenced by the lease.

/** What deliver() queued: one row per channel, the same rows whenever the same message id is handed in again. */
export interface Queued {
  messageId: string;
  channels: OutboundChannel[];
  /** False when the message id was queued before (the same request handed in twice): nothing new was queued. */
  fresh: boolean;
}

/**
 * Queues `message` on the channels given (in the caller's transaction when `db` is one, so a request and its message
 * commit together). Once per message id and channel, ever: a second call with the same id queues nothing.
 */
export async function queueMessage(
  db: Db,
  message: OutboundMessage,
  channels: { webhook?: { recipient: string } | null; email?: { recipient: string } | null },
): Promise<Queued> {
  if (!MESSAGE_ID_PATTERN.test(message.id)) throw new RangeError(`Not a message id: "${message.id}".`);
  const withheld = [...new Set(message.withheld ?? [])];
  const rows: (typeof outboundDeliveries.$inferInsert)[] = [];
  if (channels.webhook)
    rows.push({
      messageId: message.id,
      channel: "webhook",
      type: message.type,
      recipient: channels.webhook.recipient,
      body: webhookBody(message),
      withheld,
    });
  if (channels.email && message.email)
    rows.push({
      messageId: message.id,
      channel: "email",
      type: message.type,
      recipient: channels.email.recipient,
      body: message.email,
      withheld,
    });
  if (rows.length === 0) return { messageId: message.id, channels: [], fresh: false };
  const inserted = await db
    .insert(outboundDeliveries)
    .values(rows)
    .onConflictDoNothing({ target: [outboundDeliveries.messageId, outboundDeliveries.channel] })
    .returning({ channel: outboundDeliveries.channel });
  return { messageId: message.id, channels: rows.map((r) => r.channel), fresh: inserted.length > 0 };
}

/**
 * Leases up to `limit` deliveries that are due and held by nobody (or by an instance whose lease lapsed), oldest due
 * first. Two instances never hold one delivery: the rows are taken with FOR UPDATE SKIP LOCKED.
 */
export async function leaseDue(db: Db, owner: string, limit: number, leaseMs: number): Promise<OutboundDelivery[]> {
  if (limit <= 0) return [];
  const taken = await db.execute<{ id: string }>(sql`
    update outbound_deliveries set lease_owner = ${owner},
      lease_until = now() + make_interval(secs => ${leaseMs / 1000}), updated_at = now()
    where id in (
      select id from outbound_deliveries
      where state = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    returning id
  `);
  const ids = taken.rows.map((row) => row.id);
  if (ids.length === 0) return [];
  return db
    .select()
    .from(outboundDeliveries)
    .where(inArray(outboundDeliveries.id, ids))
    .orderBy(asc(outboundDeliveries.nextAttemptAt));
}

export interface RecordedAttempt {
  attempt: number;
  state: OutboundDelivery["state"];
  nextAttemptAt: Date | null;
}

/**
 * Records one try and what it makes of the delivery: delivered, failed for good, or due again at `retryAt`. A settled
 * delivery's withheld values leave its stored body. Returns null (nothing written) when `owner` no longer holds the
 * lease: another instance took the delivery over, and its try is the one that counts.
 */
export async function recordAttempt(
  db: Db,
  delivery: Pick<OutboundDelivery, "id" | "attempts" | "body" | "withheld">,
  owner: string,
  attempt: { at: Date; latencyMs: number; result: AttemptResult; recipient: string | null },
  next: { giveUp: boolean; retryAt: Date },
): Promise<RecordedAttempt | null> {
  const { result } = attempt;
  const settled = result.outcome !== "retry" || next.giveUp;
  const state = result.outcome === "delivered" ? "delivered" : settled ? "failed" : "pending";
  const outcome = result.outcome === "retry" && next.giveUp ? "failed" : result.outcome;
  const number = delivery.attempts + 1;
  const lastOutcome =
    state === "pending"
      ? `${result.detail} Trying again at ${next.retryAt.toISOString().slice(11, 19)} UTC.`
      : state === "failed" && result.outcome === "retry"
        ? `${result.detail} Gave up after ${number} ${number === 1 ? "try" : "tries"}.`
        : result.detail;
  return db.transaction(async (tx) => {
    const updated = await tx.execute<{ id: string }>(sql`
      update outbound_deliveries set
        state = ${state},
        attempts = ${number},
        recipient = coalesce(${attempt.recipient}, recipient),
        next_attempt_at = ${state === "pending" ? next.retryAt.toISOString() : sql`next_attempt_at`},
        last_outcome = ${lastOutcome},
        lease_owner = null, lease_until = null,
        settled_at = ${settled ? sql`now()` : null},
        body = ${settled ? sql`${JSON.stringify(withholdValues(delivery.body, delivery.withheld))}::jsonb` : sql`body`},
        withheld = ${settled ? sql`'{}'::text[]` : sql`withheld`},
        updated_at = now()
      where id = ${delivery.id} and lease_owner = ${owner} and state = 'pending'
      returning id
    `);
    if (updated.rows.length === 0) return null;
    await tx.insert(outboundAttempts).values({
      deliveryId: delivery.id,
      attempt: number,
      at: attempt.at,
      latencyMs: Math.round(attempt.latencyMs),
      status: result.status,
      outcome,
      detail: result.detail,
      owner,
    });
    return { attempt: number, state, nextAttemptAt: state === "pending" ? next.retryAt : null };
  });
}

/** Gives leases back untouched (the instance stops before it sent): those deliveries are due again at once. */
export async function releaseLeases(db: Db, owner: string, ids?: string[]): Promise<number> {
  if (ids && ids.length === 0) return 0;
  const rows = await db
    .update(outboundDeliveries)
    .set({ leaseOwner: null, leaseUntil: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(outboundDeliveries.leaseOwner, owner),
        eq(outboundDeliveries.state, "pending"),
        ids ? inArray(outboundDeliveries.id, ids) : undefined,
      ),
    )
    .returning({ id: outboundDeliveries.id });
  return rows.length;
}

/** A delivery with its tries, oldest first: the delivery log of one message. */
export interface DeliveryLog {
  delivery: OutboundDelivery;
  attempts: OutboundAttempt[];
}

/** The deliveries of these messages with every try, for the pages that show what became of them. */
export async function deliveryLogs(db: Db, messageIds: string[]): Promise<Map<string, DeliveryLog[]>> {
  const logs = new Map<string, DeliveryLog[]>();
  if (messageIds.length === 0) return logs;
  const deliveries = await db
    .select()
    .from(outboundDeliveries)
    .where(inArray(outboundDeliveries.messageId, messageIds))
    .orderBy(asc(outboundDeliveries.channel));
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .select()
          .from(outboundAttempts)
          .where(
            inArray(
              outboundAttempts.deliveryId,
              deliveries.map((d) => d.id),
            ),
          )
          .orderBy(asc(outboundAttempts.deliveryId), asc(outboundAttempts.attempt));
  for (const delivery of deliveries) {
    const list = logs.get(delivery.messageId) ?? [];
    list.push({ delivery, attempts: attempts.filter((a) => a.deliveryId === delivery.id) });
    logs.set(delivery.messageId, list);
  }
  return logs;
}
