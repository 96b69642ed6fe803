import "server-only";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { webhookEvents } from "../db/schema";
import { storable, storableDeep } from "../http/storable-input";
import type { VerifiedWebhook } from "./verify";

// What the receiver writes before it answers: a verified event, once per idempotency key (a redelivery only counts),
// or a refusal with its reason. The processor (processor.ts) takes it from there.

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

/** Stores a verified event unless one with its idempotency key exists, in which case the redelivery is counted. */
export async function storeVerifiedEvent(db: Db, webhook: VerifiedWebhook, body: unknown, facts: DeliveryFacts): Promise<Receipt> {
  const { envelope } = webhook;
  const [row] = await db
    .insert(webhookEvents)
    .values({
      receivedAt: facts.receivedAt,
      lastReceivedAt: facts.receivedAt,
      verification: "verified",
      sourceAddress: facts.sourceAddress,
      idempotencyKey: storable(envelope.webhook_idempotency_key),
      deliveryToken: facts.deliveryToken,
      deliveryAttempt: facts.deliveryAttempt,
      kid: storable(webhook.kid),
      event: storable(envelope.webhook_event),
      linkId: storable(envelope.link_id),
      eventAt: new Date(envelope.webhook_timestamp),
      // An upstream string jsonb cannot hold (a NUL) is replaced rather than the event lost.
      body: storableDeep(body),
      outcome: "pending",
    })
    .onConflictDoUpdate({
      target: webhookEvents.idempotencyKey,
      set: { redeliveries: sql`${webhookEvents.redeliveries} + 1`, lastReceivedAt: facts.receivedAt },
    })
    .returning({ id: webhookEvents.id, redeliveries: webhookEvents.redeliveries });
  return { id: row!.id, duplicate: row!.redeliveries > 0 };
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
