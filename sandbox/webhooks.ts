// Webhook deliveries (upstream-facts §11): a POST of the event's JSON to the link's webhook URL, signed, retried with
// exponential back-off on any answer that is not 2xx (and on connection errors and timeouts), with the same body, so
// the same webhook_idempotency_key and webhook_timestamp, on every attempt. Deliveries leave after the API answer that
// caused them, one link's in the order they were made (the next waits until the one before is delivered or given up),
// at most `concurrency` attempts in flight across links. Every delivery is kept for GET /_sandbox/webhooks.
// Each attempt is signed afresh (a new `iat`, the key current then), unless the delivery re-sends its first signature
// (drift's stale_webhook_retry). The facts say only that `iat` is checked (§11); a receiver that refuses an old one
// would then refuse a retry the upstream made in good faith, minutes of back-off after the first attempt.
import { randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { SigningKeys } from "./webhook-signing";

export type DeliveryState = "pending" | "retrying" | "delivered" | "failed" | "skipped";

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came (connection error, timeout). */
  status: number | null;
  error: string | null;
  kid: string;
  /** From the request's start to the receiver's status line (or to the error): the receiver's acknowledgement time. */
  duration_ms: number;
}

export interface Delivery {
  delivery_token: string;
  webhook_event: string;
  link_id: string;
  url: string;
  webhook_idempotency_key: string;
  webhook_timestamp: string;
  state: DeliveryState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  finished_at: string | null;
  attempt_log: DeliveryAttempt[];
  /** The exact bytes sent (the signature covers them). */
  body: string;
}

export interface DispatcherOptions {
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
  concurrency: number;
}

/** Deliveries kept for GET /_sandbox/webhooks; older finished ones are forgotten first. */
const KEPT_DELIVERIES = 1000;

/**
 * Names reserved for documentation (RFC 2606 / RFC 6761) never reach a real receiver: the seed data's display
 * webhooks (`https://hooks.acme.example/…`) and test fixtures use them. Their deliveries are recorded as `skipped`
 * rather than tried, so a sandbox without a network never waits on them.
 */
export function undeliverableReason(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not an absolute URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return `scheme ${parsed.protocol} is not http or https`;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "");
  const labels = host.split(".");
  const tld = labels[labels.length - 1] ?? "";
  const registered = labels.slice(-2).join(".");
  if (tld === "example" || tld === "invalid" || ["example.com", "example.net", "example.org"].includes(registered)) {
    return `${host} is a name reserved for documentation (RFC 2606); nothing was sent`;
  }
  return null;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class WebhookDispatcher {
  private deliveries: Delivery[] = [];
  private readonly byToken = new Map<string, Delivery>();
  /** Deliveries waiting per link, the one being worked first; a link has a worker while it has a queue. */
  private queues = new Map<string, Delivery[]>();
  private inFlight = 0;
  private slotWaiters: (() => void)[] = [];
  private readonly waits = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  private readonly requests = new Set<AbortController>();
  /** Bumped by reset() and close(): work of an older generation stops at its next step. */
  private generation = 0;
  /** No attempt starts before this (a staged webhook pause, outages.ts); 0: none. */
  private pausedUntilMs = 0;
  /** Deliveries whose retries re-send the first attempt's signature, and that signature once made. */
  private readonly firstSignatures = new WeakMap<Delivery, { kid: string; signature: string } | null>();

  constructor(
    private readonly now: () => number,
    private readonly keys: SigningKeys,
    private readonly options: DispatcherOptions,
  ) {}

  /** Records a delivery of `payload` to `url` and sends it in the background; returns at once. */
  enqueue(
    linkId: string,
    url: string,
    payload: { webhook_event: string; webhook_idempotency_key: string; webhook_timestamp: string },
    options: { reuseFirstSignature?: boolean } = {},
  ): Delivery {
    const delivery: Delivery = {
      delivery_token: randomUUID(),
      webhook_event: payload.webhook_event,
      link_id: linkId,
      url,
      webhook_idempotency_key: payload.webhook_idempotency_key,
      webhook_timestamp: payload.webhook_timestamp,
      state: "pending",
      attempts: 0,
      last_status: null,
      last_error: null,
      next_attempt_at: null,
      created_at: iso(this.now()),
      finished_at: null,
      attempt_log: [],
      body: JSON.stringify(payload),
    };
    this.remember(delivery);
    if (options.reuseFirstSignature) this.firstSignatures.set(delivery, null);
    const skipped = undeliverableReason(url);
    if (skipped) {
      delivery.state = "skipped";
      delivery.last_error = skipped;
      delivery.finished_at = delivery.created_at;
      return delivery;
    }
    const queue = this.queues.get(linkId);
    if (queue) {
      queue.push(delivery);
    } else {
      this.queues.set(linkId, [delivery]);
      const generation = this.generation;
      // Started on a later turn: the API answer that caused the delivery is never held up by it.
      setImmediate(() => void this.drain(linkId, generation));
    }
    return delivery;
  }

  list(filter: { linkId?: string; event?: string } = {}): Delivery[] {
    return this.deliveries.filter(
      (delivery) =>
        (!filter.linkId || delivery.link_id === filter.linkId) &&
        (!filter.event || delivery.webhook_event === filter.event),
    );
  }

  get(token: string): Delivery | undefined {
    return this.byToken.get(token);
  }

  /** Deliveries not yet delivered, failed or skipped. */
  get outstanding(): number {
    return this.deliveries.filter((delivery) => delivery.state === "pending" || delivery.state === "retrying").length;
  }

  /** Forgets every delivery and stops those under way (a sandbox reset). */
  reset(): void {
    this.stopAll();
    this.deliveries = [];
    this.byToken.clear();
  }

  close(): void {
    this.stopAll();
  }

  private stopAll(): void {
    this.generation++;
    this.queues = new Map();
    for (const controller of this.requests) controller.abort();
    this.requests.clear();
    for (const wait of this.waits) {
      clearTimeout(wait.timer);
      wait.done();
    }
    this.waits.clear();
    const waiters = this.slotWaiters;
    this.slotWaiters = [];
    for (const wake of waiters) wake();
  }

  private remember(delivery: Delivery): void {
    this.deliveries.push(delivery);
    this.byToken.set(delivery.delivery_token, delivery);
    if (this.deliveries.length <= KEPT_DELIVERIES) return;
    const index = this.deliveries.findIndex((old) => old.state !== "pending" && old.state !== "retrying");
    const [dropped] = this.deliveries.splice(index >= 0 ? index : 0, 1);
    if (dropped) this.byToken.delete(dropped.delivery_token);
  }

  private async drain(linkId: string, generation: number): Promise<void> {
    const queue = this.queues.get(linkId);
    while (queue && queue.length > 0 && generation === this.generation) {
      const delivery = queue[0] as Delivery;
      await this.deliver(delivery, generation);
      queue.shift();
    }
    if (generation === this.generation && this.queues.get(linkId) === queue) this.queues.delete(linkId);
  }

  /** Holds every attempt until `untilMs` (the sandbox's clock); 0 (or a time past) lifts a pause. */
  pause(untilMs: number): void {
    this.pausedUntilMs = untilMs;
    // Senders already waiting look again: a lifted pause lets them go at once.
    for (const wait of this.pauseWaits) wait();
    this.pauseWaits.clear();
  }

  private readonly pauseWaits = new Set<() => void>();

  private async deliver(delivery: Delivery, generation: number): Promise<void> {
    for (let attempt = delivery.attempts + 1; attempt <= this.options.maxAttempts; attempt++) {
      while (this.now() < this.pausedUntilMs && generation === this.generation) {
        await new Promise<void>((resolve) => {
          this.pauseWaits.add(resolve);
          void this.wait(Math.min(1_000, this.pausedUntilMs - this.now())).then(() => {
            this.pauseWaits.delete(resolve);
            resolve();
          });
        });
      }
      if (generation !== this.generation) return;
      await this.acquireSlot();
      if (generation !== this.generation) {
        this.releaseSlot();
        return;
      }
      let outcome: { status: number | null; error: string | null };
      try {
        outcome = await this.send(delivery, attempt);
      } finally {
        this.releaseSlot();
      }
      if (generation !== this.generation) return;
      delivery.next_attempt_at = null;
      if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
        delivery.state = "delivered";
        delivery.finished_at = iso(this.now());
        return;
      }
      if (attempt === this.options.maxAttempts) break;
      const waitMs = this.options.retryBaseMs * 2 ** (attempt - 1);
      delivery.state = "retrying";
      delivery.next_attempt_at = iso(this.now() + waitMs);
      await this.wait(waitMs);
      if (generation !== this.generation) return;
    }
    delivery.state = "failed";
    delivery.finished_at = iso(this.now());
  }

  private async send(delivery: Delivery, attempt: number): Promise<{ status: number | null; error: string | null }> {
    let first = this.firstSignatures.get(delivery);
    if (first === null) {
      first = { kid: this.keys.currentKid, signature: this.keys.signatureFor(delivery.body) };
      this.firstSignatures.set(delivery, first);
    }
    const kid = first?.kid ?? this.keys.currentKid;
    const signature = first?.signature ?? this.keys.signatureFor(delivery.body);
    const controller = new AbortController();
    this.requests.add(controller);
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.options.timeoutMs} ms`)),
      this.options.timeoutMs,
    );
    let status: number | null = null;
    let error: string | null = null;
    const started = performance.now();
    let answeredAfterMs: number | null = null;
    try {
      status = await post(
        delivery.url,
        {
          "Content-Type": "application/json",
          "User-Agent": "linkdesk-sandbox-webhooks/1",
          "MoneyKit-Signature": signature,
          "MoneyKit-Delivery-Token": delivery.delivery_token,
          "MoneyKit-Delivery-Attempt": String(attempt),
        },
        delivery.body,
        controller.signal,
      );
      answeredAfterMs = performance.now() - started;
      if (status < 200 || status >= 300) error = `the receiver answered ${status}`;
    } catch (caught) {
      const reason = controller.signal.aborted ? controller.signal.reason : caught;
      error =
        reason instanceof Error
          ? reason.cause instanceof Error
            ? `${reason.message}: ${reason.cause.message}`
            : reason.message
          : String(reason);
    } finally {
      clearTimeout(timer);
      this.requests.delete(controller);
    }
    delivery.attempts = attempt;
    delivery.last_status = status;
    delivery.last_error = error;
    const durationMs = Math.round((answeredAfterMs ?? performance.now() - started) * 100) / 100;
    delivery.attempt_log.push({ attempt, at: iso(this.now()), status, error, kid, duration_ms: durationMs });
    return { status, error };
  }

  private acquireSlot(): Promise<void> {
    if (this.inFlight < this.options.concurrency) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.slotWaiters.push(() => {
        this.inFlight++;
        resolve();
      });
    });
  }

  private releaseSlot(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const next = this.slotWaiters.shift();
    if (next) next();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.waits.delete(entry);
          resolve();
        }, ms),
        done: resolve,
      };
      // A retry waiting must not keep a finished program (or a test run) alive.
      entry.timer.unref();
      this.waits.add(entry);
    });
  }
}

// Node's own HTTP client with connections kept alive, rather than fetch: a delivery costs the sender a fraction of the
// CPU, and the receiver's figures in the webhooks benchmark (scripts/bench/webhooks.ts) are not the sender's.
const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/** POSTs `body` and resolves with the status line's code once it arrives (the answer's body is read and dropped). */
function post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const client = target.protocol === "https:" ? https : target.protocol === "http:" ? http : null;
    if (!client) return reject(new Error(`not an http(s) URL: ${target.protocol}`));
    const request = client.request(
      target,
      {
        method: "POST",
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        agent: agents[target.protocol as "http:"],
        signal,
      },
      (response) => {
        // A redirect is an answer that is not 2xx: the upstream does not follow it (nor does this client).
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.once("error", reject);
    request.end(body);
  });
}
