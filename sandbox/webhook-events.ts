// The webhook events a link sends to its `webhook` URL (upstream-facts §11), and when: link.state_changed on every
// change of state, link.product_refresh at each step of a product refresh, transactions.updates_available when a
// link's transactions change by an import (a correction is the client's own change: no event). A link without a
// webhook sends nothing.
import { randomUUID } from "node:crypto";
import type { SandboxWorld } from "./context";
import { DRIFT_VALUES, linkErrorMeaning, WEBHOOK_EXTRAS } from "./drift";
import type { LinkRecord } from "./types";
import type { Delivery } from "./webhooks";
import type { LinkProductState, Product } from "./wire-vocabulary";

interface EventBase {
  webhook_major_version: 1;
  webhook_minor_version: 0;
  webhook_idempotency_key: string;
  webhook_timestamp: string;
  link_id: string;
  link_tags: string[];
  webhook_event: string;
}

export type WebhookPayload = EventBase & Record<string, unknown>;

function base(world: SandboxWorld, link: LinkRecord, event: string, idempotencyKey?: string): EventBase {
  return {
    webhook_major_version: 1,
    webhook_minor_version: 0,
    webhook_idempotency_key: idempotencyKey ?? randomUUID(),
    webhook_timestamp: new Date(world.options.now()).toISOString(),
    link_id: link.link_id,
    link_tags: [...link.link_tags],
    webhook_event: event,
  };
}

/** The state and error as the link's other answers send them, drift included (wire.ts), so the two never disagree. */
export function linkStateChangedEvent(world: SandboxWorld, link: LinkRecord, idempotencyKey?: string): WebhookPayload {
  const wire = world.wire.link(link);
  const error = typeof wire.error_code === "string" ? wire.error_code : null;
  return {
    ...base(world, link, "link.state_changed", idempotencyKey),
    state: wire.state,
    ...(error ? { error, error_message: linkErrorMeaning(error) } : {}),
  };
}

export function productRefreshEvent(
  world: SandboxWorld,
  link: LinkRecord,
  product: Product,
  state: LinkProductState,
  options: { errorMessage?: string; idempotencyKey?: string; event?: string } = {},
): WebhookPayload {
  return {
    ...base(world, link, options.event ?? "link.product_refresh", options.idempotencyKey),
    product,
    state,
    state_changed_at: new Date(world.options.now()).toISOString(),
    ...(options.errorMessage ? { error_message: options.errorMessage } : {}),
  };
}

export function transactionsUpdatesEvent(
  world: SandboxWorld,
  link: LinkRecord,
  idempotencyKey?: string,
): WebhookPayload {
  return { ...base(world, link, "transactions.updates_available", idempotencyKey) };
}

/**
 * Sends `payload` to the link's webhook; nothing without one. A drifted link's webhook (drift.ts) may hear extra
 * fields, have its retries re-send the first signature, or hear an event of a kind no list holds after this one.
 */
export function notify(world: SandboxWorld, link: LinkRecord, payload: WebhookPayload): Delivery | null {
  if (!link.webhook) return null;
  const kind = world.wire.linkKind(link);
  const body = kind === "extra_fields" ? { ...payload, ...WEBHOOK_EXTRAS } : payload;
  const delivery = world.webhooks.enqueue(link.link_id, link.webhook, body, {
    reuseFirstSignature: kind === "stale_webhook_retry",
  });
  if (kind === "unknown_webhook_event")
    world.webhooks.enqueue(link.link_id, link.webhook, base(world, link, DRIFT_VALUES.webhookEvent));
  return delivery;
}

export function notifyStateChanged(world: SandboxWorld, link: LinkRecord): Delivery | null {
  return notify(world, link, linkStateChangedEvent(world, link));
}

export function notifyTransactionsUpdated(world: SandboxWorld, link: LinkRecord): Delivery | null {
  return notify(world, link, transactionsUpdatesEvent(world, link));
}
