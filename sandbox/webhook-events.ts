// The webhook events a link sends to its `webhook` URL (upstream-facts §11), and when: link.state_changed on every
// change of state, link.product_refresh at each step of a product refresh, transactions.updates_available when a
// link's transactions change by an import (a correction is the client's own change: no event). A link without a
// webhook sends nothing.
import { randomUUID } from "node:crypto";
import type { LinkErrorCode, Product } from "../lib/upstream/schemas";
import type { SandboxWorld } from "./context";
import type { LinkRecord } from "./types";
import type { Delivery } from "./webhooks";

export const LINK_PRODUCT_STATES = ["pending", "in_progress", "completed", "failed"] as const;
export type LinkProductState = (typeof LINK_PRODUCT_STATES)[number];

/** What POST /webhooks/test/link/{id} may ask for; `product.state_changed` is the older name of link.product_refresh. */
export const TEST_WEBHOOK_EVENTS = [
  "link.state_changed",
  "transactions.updates_available",
  "product.state_changed",
  "link.product_refresh",
] as const;
export type TestWebhookEvent = (typeof TEST_WEBHOOK_EVENTS)[number];

/** The meanings the upstream documents for its link error codes (upstream-facts §3.3). */
export const LINK_ERROR_MESSAGES: Record<LinkErrorCode, string> = {
  system_error: "An error on the service's side; it is being looked into.",
  provider_error: "The data provider is having an outage.",
  institution_error: "The institution is having an outage.",
  user_error: "The end user failed or abandoned authentication, or it timed out.",
  auth_expired: "The link's authentication expired; the end user must reconnect.",
  no_accounts: "No accounts with data for the requested products.",
  user_setup_required: "The end user must take an action at the institution.",
  invalid_credentials: "The credentials are no longer valid.",
  user_oauth_denied: "The end user denied access at the institution.",
  user_input_incorrect: "The end user's answer (MFA, security question) was incorrect.",
  incomplete: "Waiting on the end user; linking can be resumed later.",
};

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

export function linkStateChangedEvent(world: SandboxWorld, link: LinkRecord, idempotencyKey?: string): WebhookPayload {
  return {
    ...base(world, link, "link.state_changed", idempotencyKey),
    state: link.state,
    ...(link.error_code ? { error: link.error_code, error_message: LINK_ERROR_MESSAGES[link.error_code] } : {}),
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

/** Sends `payload` to the link's webhook; nothing without one. */
export function notify(world: SandboxWorld, link: LinkRecord, payload: WebhookPayload): Delivery | null {
  if (!link.webhook) return null;
  return world.webhooks.enqueue(link.link_id, link.webhook, payload);
}

export function notifyStateChanged(world: SandboxWorld, link: LinkRecord): Delivery | null {
  return notify(world, link, linkStateChangedEvent(world, link));
}

export function notifyTransactionsUpdated(world: SandboxWorld, link: LinkRecord): Delivery | null {
  return notify(world, link, transactionsUpdatesEvent(world, link));
}
