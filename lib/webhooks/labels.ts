import type { WebhookOutcome, WebhookVerification } from "../db/schema";

// What the Webhooks page, a link's events and the filters call each kind, verification and outcome: pure data, shared
// by cells, filters and the summary, so a word reads the same everywhere.

/**
 * The event kinds the upstream documents (webhook_event); any other name is shown as sent, marked
 * NOT_KNOWN_TO_LINKDESK, and the link it names is read again.
 */
export const WEBHOOK_KINDS = {
  "link.state_changed": "Link state changed",
  "link.product_refresh": "Product refreshed",
  "transactions.updates_available": "Transactions changed",
} as const;

export type WebhookKind = keyof typeof WEBHOOK_KINDS;

/** How a value the upstream sent that this version does not know is marked, wherever it is shown. */
export const NOT_KNOWN_TO_LINKDESK = "not known to this version of Linkdesk";

export const isKnownWebhookKind = (event: string): event is WebhookKind => Object.hasOwn(WEBHOOK_KINDS, event);

export const WEBHOOK_VERIFICATION_LABELS: Record<WebhookVerification, string> = {
  verified: "Verified",
  late: "Signed late",
  refused: "Refused",
};

/** The same in a sentence each: a chip's hover. */
export const WEBHOOK_VERIFICATION_MEANINGS: Record<WebhookVerification, string> = {
  verified: "Signed by the upstream within the window; applied as an event",
  late: "Signed by the upstream, but outside the window (a retry after the upstream's back-off, or a replay): not applied as an event; the link is read again from the upstream instead",
  refused: "Not the upstream's, or not a webhook: refused, and its body not kept",
};

export const WEBHOOK_OUTCOME_LABELS: Record<WebhookOutcome, string> = {
  pending: "Waiting",
  processed: "Processed",
  read_again: "Link read again",
  failed: "Failed",
  unknown_kind: "Kept, link read again",
  refused: "Not processed",
};

/** The same outcomes in a sentence each: a filter's option and a chip's hover. */
export const WEBHOOK_OUTCOME_MEANINGS: Record<WebhookOutcome, string> = {
  pending: "Stored, waiting for the processor (or for its next try after a failure)",
  processed: "Applied to Linkdesk's copy of the link",
  read_again:
    "Not applied as an event (signed late): the link is read again from the upstream, so the change lands all the same",
  failed: "Processing gave up: reprocess it once the cause is fixed",
  unknown_kind: `A kind ${NOT_KNOWN_TO_LINKDESK}: kept as received, and the link read again from the upstream`,
  refused: "The request was refused, so there was nothing to process",
};

// A chip's colours are one class of globals.css (.tone-*), as the links' and audit's chips.
export const WEBHOOK_VERIFICATION_TONES: Record<WebhookVerification, string> = {
  verified: "tone-emerald",
  late: "tone-amber",
  refused: "tone-red",
};

export const WEBHOOK_OUTCOME_TONES: Record<WebhookOutcome, string> = {
  pending: "tone-sky",
  processed: "tone-emerald",
  read_again: "tone-sky",
  failed: "tone-red",
  unknown_kind: "tone-amber",
  refused: "tone-slate",
};

/** "Received since" choices that move with the clock (a shared link shows the last day whenever it is opened). */
export const WEBHOOK_SINCE_SPANS = {
  "1h": { label: "Last hour", ms: 60 * 60 * 1000 },
  "24h": { label: "Last 24 hours", ms: 24 * 60 * 60 * 1000 },
  "7d": { label: "Last 7 days", ms: 7 * 24 * 60 * 60 * 1000 },
  "30d": { label: "Last 30 days", ms: 30 * 24 * 60 * 60 * 1000 },
} as const;

export type WebhookSinceSpan = keyof typeof WEBHOOK_SINCE_SPANS;
