import { randomUUID } from "node:crypto";
import type { OutboundChannel } from "../db/schema";

// A message Linkdesk sends out of its own accord, as its callers hand it to deliver() (lib/outbound/index.ts): a
// reconnect request today (lib/reconnect), alerts next. The owner of a message is its caller; this module only
// delivers it, once per channel, and keeps the log of every try.

/**
 * One message. Its id is the Standard Webhooks `webhook-id` on every try of its webhook (and its email's Message-ID),
 * so the receiver keeps it once however often it arrives; a caller that may hand the same message in twice gives it
 * the same id (made from its own request's id), and it is queued once.
 */
export interface OutboundMessage {
  /** `msg_` and letters or digits. */
  id: string;
  /** What it is about, e.g. `link.reconnect_requested`: the webhook body's `type`. */
  type: string;
  /** The webhook body's `data`: what the product's back end needs, never a credential of Linkdesk's. */
  data: Record<string, unknown>;
  /** When it happened: the webhook body's `timestamp`, the same on every try (the header's is each try's own). */
  at: Date;
  /**
   * Values in the message that are needed only to send it (a link session token for the end user): once a delivery is
   * settled they are replaced in its stored body by their last four characters.
   */
  withheld?: string[];
  /** Also by email, when the caller knows an address and a mail server is configured. */
  email?: OutboundEmail | null;
}

export interface OutboundEmail {
  to: string;
  subject: string;
  text: string;
}

/** The body of a message's webhook, as the Standard Webhooks scheme recommends: type, timestamp, data. */
export interface WebhookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export function webhookBody(message: Pick<OutboundMessage, "type" | "data" | "at">): WebhookBody {
  return { type: message.type, timestamp: message.at.toISOString(), data: message.data };
}

/** A message id from a caller's own id (a request's uuid): the same request always makes the same message. */
export function messageIdFor(ownId: string = randomUUID()): string {
  return `msg_${ownId.replace(/[^A-Za-z0-9]/g, "")}`;
}

export const MESSAGE_ID_PATTERN = /^msg_[A-Za-z0-9]{1,120}$/;

/** A delivery's channel in words. */
export const CHANNEL_LABELS: Record<OutboundChannel, string> = {
  webhook: "Product's back end (webhook)",
  email: "Email to the end user",
};

/** What a withheld value is replaced by once its delivery is settled: enough to tell two apart, not enough to use. */
export function withheldHint(value: string): string {
  return `…${value.slice(-4)} (withheld once sent)`;
}

/** `body` with every withheld value replaced by its hint, wherever it occurs (a token inside an email's text too). */
export function withholdValues<T>(body: T, values: readonly string[]): T {
  const used = values.filter((value) => value.length > 0);
  if (used.length === 0) return body;
  let text = JSON.stringify(body);
  for (const value of used) {
    const inJson = JSON.stringify(value).slice(1, -1);
    text = text.split(inJson).join(JSON.stringify(withheldHint(value)).slice(1, -1));
  }
  return JSON.parse(text) as T;
}
