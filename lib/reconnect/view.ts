import "server-only";
import { desc, eq } from "drizzle-orm";
import { type Db, getDb } from "../db/client";
import { type OutboundChannel, type OutboundState, reconnectRequests } from "../db/schema";
import { CUSTOMER_SOURCE_LABELS, type CustomerSource, knownCustomerOf } from "../links/customers";
import { linkErrorLabel } from "../links/error-codes";
import { CHANNEL_LABELS } from "../outbound/message";
import { deliveryLogs } from "../outbound/store";
import { type LinkCondition, whyNoReconnect } from "./reasons";
import { type ReconnectSetup, describeDestinations, notConfiguredWords, reconnectSetup } from "./setup";

// What a link's page shows of reconnect requests: whether one can be asked for now (and if not, why, in words), and
// every request made for the link with what became of it: its message's deliveries, try by try, and whether the link
// came back.

/** How many of a link's requests its page lists (newest first). */
export const LINK_REQUESTS_SHOWN = 20;

export interface DeliveryTry {
  attempt: number;
  at: string;
  latencyMs: number;
  status: number | null;
  outcome: "delivered" | "retry" | "failed";
  detail: string;
}

export interface DeliveryView {
  channel: OutboundChannel;
  label: string;
  state: OutboundState;
  recipient: string | null;
  attempts: number;
  lastOutcome: string | null;
  nextAttemptAt: string | null;
  tries: DeliveryTry[];
}

export interface ReconnectRequestView {
  id: string;
  requestedAt: string;
  requestedBy: string;
  state: "creating" | "sent" | "failed";
  /** Why it went no further, in words (failed), or that it was cut short (creating for too long). */
  reason: string | null;
  errorCode: string | null;
  errorLabel: string;
  customerUserId: string;
  customerSource: string;
  sessionTokenHint: string | null;
  keptWebhook: string | null;
  keptTags: string[];
  reconnectedAt: string | null;
  deliveries: DeliveryView[];
}

export interface ReconnectOffer {
  /** Null: a request may be made now. Otherwise why not, in words. */
  unavailable: string | null;
  customer: { id: string; source: string; email: string | null } | null;
  destinations: { webhook: string | null; mail: string | null };
  /** Whether an email would go too (a mail server is configured and the end user's address known). */
  emails: boolean;
}

/** Whether a request can be made for this link now, and where it would go. */
export async function reconnectOffer(
  db: Db,
  link: LinkCondition & { link_id: string },
  setup: ReconnectSetup = reconnectSetup(),
): Promise<ReconnectOffer> {
  const destinations = describeDestinations(setup);
  const customer = await knownCustomerOf(db, link.link_id);
  const shownCustomer = customer
    ? { id: customer.customerUserId, source: CUSTOMER_SOURCE_LABELS[customer.source], email: customer.email }
    : null;
  const unavailable =
    whyNoReconnect(link) ??
    (setup.missing.length > 0 ? notConfiguredWords(setup.missing).replace(/ Nothing was sent\.$/, "") : null) ??
    (customer
      ? null
      : "Linkdesk does not know which customer user this link belongs to: the link was neither imported through Linkdesk nor listed in a look-up of its customer's links. If you know the customer's id, look it up under Links → A customer's links.");
  return {
    unavailable,
    customer: shownCustomer,
    destinations,
    emails: destinations.mail !== null && customer?.email != null,
  };
}

/** The link's requests, newest first, each with its deliveries and their tries. */
export async function linkReconnectRequests(
  db: Db,
  linkId: string,
  limit = LINK_REQUESTS_SHOWN,
  now = Date.now(),
): Promise<ReconnectRequestView[]> {
  const rows = await db
    .select()
    .from(reconnectRequests)
    .where(eq(reconnectRequests.linkId, linkId))
    .orderBy(desc(reconnectRequests.requestedAt))
    .limit(limit);
  const logs = await deliveryLogs(
    db,
    rows.flatMap((row) => (row.messageId ? [row.messageId] : [])),
  );
  return rows.map((row) => {
    const cutShort = row.state === "creating" && now - row.requestedAt.getTime() > 2 * 60_000;
    return {
      id: row.id,
      requestedAt: row.requestedAt.toISOString(),
      requestedBy: row.requestedByEmail,
      state: row.state,
      reason: cutShort
        ? "Cut short before its message was queued (Linkdesk stopped, or lost its database): nothing reached the user. Ask again."
        : row.reason,
      errorCode: row.errorCode,
      errorLabel: row.errorCode ? linkErrorLabel(row.errorCode) : "no error code",
      customerUserId: row.customerUserId,
      customerSource: CUSTOMER_SOURCE_LABELS[row.customerSource as CustomerSource] ?? row.customerSource,
      sessionTokenHint: row.sessionTokenHint,
      keptWebhook: row.keptWebhook,
      keptTags: row.keptTags ?? [],
      reconnectedAt: row.reconnectedAt?.toISOString() ?? null,
      deliveries: (row.messageId ? (logs.get(row.messageId) ?? []) : []).map(({ delivery, attempts }) => ({
        channel: delivery.channel,
        label: CHANNEL_LABELS[delivery.channel],
        state: delivery.state,
        // A webhook's host only: a product may keep a credential in the path, and the page is no place for it.
        recipient:
          delivery.channel === "webhook" && delivery.recipient && URL.canParse(delivery.recipient)
            ? new URL(delivery.recipient).host
            : delivery.recipient,
        attempts: delivery.attempts,
        lastOutcome: delivery.lastOutcome,
        nextAttemptAt: delivery.state === "pending" ? delivery.nextAttemptAt.toISOString() : null,
        tries: attempts.map((a) => ({
          attempt: a.attempt,
          at: a.at.toISOString(),
          latencyMs: a.latencyMs,
          status: a.status,
          outcome: a.outcome,
          detail: a.detail,
        })),
      })),
    };
  });
}

/**
 * Everything the link's page shows of reconnect requests, read in one place (the page's components get plain data).
 * The offer is read only for a page that shows the button: for any other, the requests alone (one indexed read).
 */
export async function linkReconnectView(link: LinkCondition & { link_id: string }, options: { offer: boolean }) {
  const { db } = await getDb();
  const [offer, requests] = await Promise.all([
    options.offer ? reconnectOffer(db, link) : null,
    linkReconnectRequests(db, link.link_id),
  ]);
  return { offer, requests };
}
