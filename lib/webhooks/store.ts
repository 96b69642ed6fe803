import "server-only";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { webhookEvents } from "../db/schema";
import { storable, storableDeep } from "../http/storable-input";
import type { VerifiedWebhook } from "./verify";

// What the receiver writes before it answers: a verified event, once per idempotency key (a redelivery only counts),
// or a refusal with its reason. The processor (processor.ts) takes it from there. A delivery signed by the upstream but
// outside the window is stored the same way, marked late: the processor never applies it as an event, it has the link
// read again (docs/decisions/webhook-retries.md).

export interface Receipt {
  id: string;
  /** The event was stored before (the upstream's retry of a delivery Linkdesk already has). */
  duplicate: boolean;
}

export interface DeliveryFacts {
  sourceAddress: string | null;
  deliveryToken: string | null;
  deliveryAttempt: number | null;
  receivedAt: Date;
}

type NewEvent = typeof webhookEvents.$inferInsert;

interface Waiting {
  key: string;
  values: NewEvent;
  resolve: (receipt: Receipt) => void;
  reject: (error: unknown) => void;
}

/** Rows one INSERT writes at most: its parameters stay well under PostgreSQL's 65,535. */
export const STORE_BATCH = 500;

/**
 * Verified events are written together while a write is under way (group commit): the first event of a quiet moment
 * is written at once, and those that arrive meanwhile wait for it and go in the next INSERT, all of them. Each caller
 * still answers only once its own row is committed. A batch holds each idempotency key once; a second delivery with
 * the same key waits for the next batch, where it is counted as a redelivery.
 */
class EventWriter {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(private readonly db: Db) {}

  write(key: string, values: NewEvent): Promise<Receipt> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, values, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch: Waiting[] = [];
        const later: Waiting[] = [];
        const keys = new Set<string>();
        for (const item of this.waiting) {
          if (batch.length < STORE_BATCH && !keys.has(item.key)) {
            keys.add(item.key);
            batch.push(item);
          } else later.push(item);
        }
        this.waiting = later;
        try {
          const rows = await this.db
            .insert(webhookEvents)
            .values(batch.map((item) => item.values))
            .onConflictDoUpdate({
              target: webhookEvents.idempotencyKey,
              set: {
                redeliveries: sql`${webhookEvents.redeliveries} + 1`,
                lastReceivedAt: sql`excluded.last_received_at`,
              },
            })
            .returning({
              id: webhookEvents.id,
              key: webhookEvents.idempotencyKey,
              redeliveries: webhookEvents.redeliveries,
            });
          const byKey = new Map(rows.map((row) => [row.key, row]));
          for (const item of batch) {
            const row = byKey.get(item.key);
            if (row) item.resolve({ id: row.id, duplicate: row.redeliveries > 0 });
            else item.reject(new Error("The event's row was not returned by its INSERT."));
          }
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

const writers = new WeakMap<Db, EventWriter>();

/**
 * Stores a verified (or late) event unless one with its idempotency key exists, in which case the redelivery is
 * counted: a late retry of an event Linkdesk already has costs nothing more.
 */
export function storeVerifiedEvent(
  db: Db,
  webhook: VerifiedWebhook,
  body: unknown,
  facts: DeliveryFacts,
): Promise<Receipt> {
  const { envelope } = webhook;
  const key = storable(envelope.webhook_idempotency_key);
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new EventWriter(db)));
  return writer.write(key, {
    receivedAt: facts.receivedAt,
    lastReceivedAt: facts.receivedAt,
    verification: webhook.late ? "late" : "verified",
    sourceAddress: facts.sourceAddress,
    idempotencyKey: key,
    deliveryToken: facts.deliveryToken,
    deliveryAttempt: facts.deliveryAttempt,
    kid: storable(webhook.kid),
    signedAt: webhook.signedAt,
    event: storable(envelope.webhook_event),
    linkId: storable(envelope.link_id),
    eventAt: new Date(envelope.webhook_timestamp),
    // An upstream string jsonb cannot hold (a NUL) is replaced rather than the event lost.
    body: storableDeep(body),
    outcome: "pending",
  });
}

/** Records a refused request: its reason and where it came from, never its body. */
export async function storeRefusal(db: Db, reason: string, facts: DeliveryFacts & { kid?: string }): Promise<void> {
  await db.insert(webhookEvents).values({
    receivedAt: facts.receivedAt,
    lastReceivedAt: facts.receivedAt,
    verification: "refused",
    refusal: storable(reason),
    sourceAddress: facts.sourceAddress,
    deliveryToken: facts.deliveryToken,
    deliveryAttempt: facts.deliveryAttempt,
    kid: facts.kid ? storable(facts.kid) : null,
    outcome: "refused",
  });
}
