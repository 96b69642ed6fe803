import "server-only";
import type { Db } from "../db/client";
import type { WebhookKeySource } from "./keys";
import { type DeliveryFacts, storeRefusal, storeVerifiedEvent } from "./store";
import { verifyWebhook } from "./verify";

// The receiver's decision for one request, apart from Next.js so it can be tested as a function: the body is held to
// the size limit, the signature and the body's hash are checked, and only then is the event stored (before the 2xx, so
// an acknowledged event is never lost) or the refusal recorded with its reason. An event signed outside the window is
// stored as late and answered 2xx too: its link is read again instead (the upstream need not retry it). A refused
// request's body is never stored or logged. Refusals per address are bounded: past REFUSALS_STORED_PER_MINUTE a source
// gets 429s that are counted once a minute instead of a row each.

export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;
export const REFUSALS_STORED_PER_MINUTE = 120;

export interface ReceiveInput {
  body: Uint8Array;
  /** The body is longer than the limit (the door stopped reading it). */
  overLimit: boolean;
  headers: Pick<Headers, "get">;
  sourceAddress: string | null;
  receivedAt: Date;
}

export interface ReceiveDeps {
  db: Db;
  keys: WebhookKeySource;
  maxAgeS: number;
  /** Requests a second from one address. */
  ratePerSecond: number;
}

export interface ReceiveAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** A verified event was stored for the first time: wake the processor. */
  stored?: boolean;
}

interface Window {
  startedAt: number;
  count: number;
  noted?: boolean;
}

/** Fixed one-second and one-minute windows per address; a few thousand addresses at most are kept. */
class PerAddress {
  private windows = new Map<string, Window>();

  constructor(private readonly lengthMs: number) {}

  take(address: string, nowMs: number, limit: number): { allowed: boolean; window: Window } {
    let window = this.windows.get(address);
    if (!window || nowMs - window.startedAt >= this.lengthMs) {
      if (this.windows.size > 5000) this.windows.clear();
      window = { startedAt: nowMs, count: 0 };
      this.windows.set(address, window);
    }
    window.count++;
    return { allowed: window.count <= limit, window };
  }
}

const requests = new PerAddress(1000);
const refusals = new PerAddress(60_000);

const header = (headers: Pick<Headers, "get">, name: string, max = 200) => headers.get(name)?.slice(0, max) ?? null;

export async function receiveWebhook(input: ReceiveInput, deps: ReceiveDeps): Promise<ReceiveAnswer> {
  const attempt = Number(header(input.headers, "moneykit-delivery-attempt", 10));
  const facts: DeliveryFacts = {
    sourceAddress: input.sourceAddress,
    deliveryToken: header(input.headers, "moneykit-delivery-token"),
    deliveryAttempt: Number.isSafeInteger(attempt) && attempt > 0 ? attempt : null,
    receivedAt: input.receivedAt,
  };
  const address = input.sourceAddress ?? "unknown";
  const nowMs = input.receivedAt.getTime();

  const refuse = async (
    status: number,
    reason: string,
    kid?: string,
    headers?: Record<string, string>,
  ): Promise<ReceiveAnswer> => {
    const { allowed, window } = refusals.take(address, nowMs, REFUSALS_STORED_PER_MINUTE);
    if (allowed) {
      await storeRefusal(deps.db, reason, { ...facts, kid });
      return { status, body: { error: reason }, headers };
    }
    // Past the bound: one row says so, once a minute; the requests still get their answer.
    if (!window.noted) {
      window.noted = true;
      await storeRefusal(
        deps.db,
        `More than ${REFUSALS_STORED_PER_MINUTE} refused requests in a minute from this address: further refusals this minute are answered 429 and not recorded one by one.`,
        facts,
      );
    }
    return {
      status: 429,
      body: { error: "Too many refused webhooks from this address; wait a minute." },
      headers: { "Retry-After": "60" },
    };
  };

  if (!requests.take(address, nowMs, deps.ratePerSecond).allowed) {
    return refuse(429, `More than ${deps.ratePerSecond} webhook requests in a second from this address.`, undefined, {
      "Retry-After": "1",
    });
  }
  if (input.overLimit || input.body.byteLength > WEBHOOK_BODY_LIMIT_BYTES) {
    return refuse(413, "The body is over 1 MB: no webhook is that large.");
  }
  const verification = await verifyWebhook({
    body: input.body,
    signature: input.headers.get("moneykit-signature"),
    keyFor: (kid) => deps.keys.lookup(kid),
    now: input.receivedAt,
    maxAgeS: deps.maxAgeS,
  });
  if (!verification.ok) return refuse(verification.status, verification.reason, verification.kid);

  // The envelope is the whole body (its schema keeps every field it does not name).
  const receipt = await storeVerifiedEvent(deps.db, verification.webhook, verification.webhook.envelope, facts);
  return {
    status: 200,
    body: receipt.duplicate
      ? { received: true, duplicate: true, note: "Already received: this delivery is not processed again." }
      : verification.webhook.late
        ? {
            received: true,
            late: true,
            note: "Signed outside the window: not applied as an event; the link it names is read again instead.",
          }
        : { received: true },
    stored: !receipt.duplicate,
  };
}
