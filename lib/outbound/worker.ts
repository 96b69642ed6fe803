import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import type { Db } from "../db/client";
import type { OutboundDelivery } from "../db/schema";
import { LEASE_TTL_MS, TAKEOVER_POLL_MS } from "../leases/timing";
import type { AttemptResult } from "./attempt";
import type { OutboundConfig } from "./config";
import { sendEmail } from "./email";
import type { OutboundEmail } from "./message";
import { leaseDue, recordAttempt, releaseLeases } from "./store";
import { postWebhook } from "./webhook";

// The sender every dashboard instance runs: it leases due deliveries (any instance's), makes one try of each, and
// records the try and what comes next in one transaction. A try that fails for a reason that may pass (no answer, a
// refused connection, a 5xx, a mail server's 4xx) is tried again after a growing wait, a bounded number of times; a
// refusal that would come again (a 4xx, a mail server's 5xx) fails at once. Every try of a webhook carries the same
// webhook-id, so the receiver keeps the message once whether it arrived once or three times. An instance that dies
// mid-try leaves no row for that try; its lease lapses and another instance sends the message again, same id.

export interface OutboundLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Waits before the 2nd, 3rd… try: about three quarters of an hour from the first try to the last. The Standard
 * Webhooks scheme suggests a schedule of this shape (seconds, then minutes, then longer); a reconnect request is worth
 * little after an hour, and an alert (issue 37) less.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000];
/** A receiver's Retry-After is honoured up to this; beyond it, the schedule's wait. */
const MAX_RETRY_AFTER_MS = 60 * 60_000;

export interface OutboundWorkerOptions {
  db: Db;
  /** Read before each try, so a changed secret or address applies to the next one. */
  config: () => OutboundConfig;
  owner?: string;
  log?: OutboundLog;
  pollMs?: number;
  retryDelaysMs?: readonly number[];
  maxInFlight?: number;
}

const silent: OutboundLog = { info: () => undefined, warn: () => undefined };

export class OutboundWorker {
  readonly owner: string;
  private readonly db: Db;
  private readonly log: OutboundLog;
  private readonly pollMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly maxInFlight: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private loop?: Promise<void>;
  private stopping = false;
  private woken = false;
  private wakeUp?: () => void;
  private databaseDown = false;

  constructor(private readonly options: OutboundWorkerOptions) {
    this.db = options.db;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.log = options.log ?? silent;
    this.pollMs = options.pollMs ?? TAKEOVER_POLL_MS;
    this.retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.maxInFlight = options.maxInFlight ?? 8;
  }

  /** How many tries a delivery gets in all. */
  get maxTries(): number {
    return this.retryDelaysMs.length + 1;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Looks for due deliveries now rather than at the next poll (one was just queued in this process). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Deliveries this instance is trying right now. */
  get busy(): number {
    return this.inFlight.size;
  }

  /**
   * Stops leasing, lets tries in flight finish for up to `drainMs`, then gives back every lease it still holds: a try
   * still unanswered then is sent again by another instance, under the same message id.
   */
  async stop(drainMs = 5_000): Promise<void> {
    if (this.stopping) return this.loop;
    this.stopping = true;
    this.wake();
    const drained = Promise.all(this.inFlight.values());
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, drainMs).unref?.())]);
    await this.loop;
    const released = await releaseLeases(this.db, this.owner).catch(() => 0);
    this.log.info({ owner: this.owner, released, unanswered: this.inFlight.size }, "outbound sender stopped");
  }

  /** One round: lease what is due and try each (for tests: resolves once every try of the round is recorded). */
  async runOnce(): Promise<number> {
    const room = this.maxInFlight - this.inFlight.size;
    if (room <= 0 || this.stopping) return 0;
    const leaseMs = leaseFor(this.options.config().timeoutMs);
    const due = await leaseDue(this.db, this.owner, room, leaseMs);
    for (const delivery of due) this.spawn(delivery);
    await Promise.all(due.map((d) => this.inFlight.get(d.id)));
    return due.length;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const room = this.maxInFlight - this.inFlight.size;
        if (room > 0) {
          const leaseMs = leaseFor(this.options.config().timeoutMs);
          for (const delivery of await leaseDue(this.db, this.owner, room, leaseMs)) this.spawn(delivery);
        }
        if (this.databaseDown) this.log.info({}, "outbound sender: database reachable again");
        this.databaseDown = false;
      } catch (error) {
        if (!this.databaseDown)
          this.log.warn({ err: error }, "outbound sender: database unavailable; sending pauses until it answers");
        this.databaseDown = true;
      }
      await this.idle();
    }
  }

  private idle(): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      timer.unref?.();
      this.wakeUp = done;
    });
  }

  private spawn(delivery: OutboundDelivery): void {
    if (this.inFlight.has(delivery.id)) return;
    const work = this.tryOnce(delivery)
      .catch((error: unknown) => {
        // Recording failed (the database went away): the lease lapses and the delivery is tried again, same id.
        this.log.warn(
          { err: error, messageId: delivery.messageId, channel: delivery.channel },
          "outbound sender: could not record a try",
        );
      })
      .finally(() => {
        this.inFlight.delete(delivery.id);
        if (!this.stopping) this.wake();
      });
    this.inFlight.set(delivery.id, work);
  }

  private async tryOnce(delivery: OutboundDelivery): Promise<void> {
    const config = this.options.config();
    const at = new Date();
    const started = performance.now();
    const { result, recipient } = await send(delivery, config);
    const latencyMs = performance.now() - started;
    const tries = delivery.attempts + 1;
    const wait = Math.max(
      this.retryDelaysMs[Math.min(tries - 1, this.retryDelaysMs.length - 1)] ?? 0,
      Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS),
    );
    const recorded = await recordAttempt(
      this.db,
      delivery,
      this.owner,
      { at, latencyMs, result, recipient },
      { giveUp: tries >= this.maxTries, retryAt: new Date(Date.now() + wait) },
    );
    // The log line names the message, never its body or the recipient's address.
    this.log.info(
      {
        messageId: delivery.messageId,
        type: delivery.type,
        channel: delivery.channel,
        attempt: tries,
        outcome: result.outcome,
        status: result.status,
        latencyMs: Math.round(latencyMs),
        state: recorded?.state ?? "taken over by another instance",
      },
      "outbound delivery try",
    );
  }
}

/** A lease outlasts the longest try (an email's connection, greeting and reply may each take the timeout). */
export function leaseFor(timeoutMs: number): number {
  return Math.max(LEASE_TTL_MS, 3 * timeoutMs + 5_000);
}

/** One try on the delivery's channel, with the configuration as it is now. */
async function send(
  delivery: OutboundDelivery,
  config: OutboundConfig,
): Promise<{ result: AttemptResult; recipient: string | null }> {
  if (delivery.channel === "webhook") {
    if (!config.webhook)
      return {
        recipient: null,
        result: {
          outcome: "retry",
          status: null,
          detail: "Not sent: the product's webhook is not configured on this instance (PRODUCT_WEBHOOK_URL).",
        },
      };
    return {
      recipient: config.webhook.url,
      result: await postWebhook(config.webhook, delivery.messageId, JSON.stringify(delivery.body), config.timeoutMs),
    };
  }
  const email = delivery.body as OutboundEmail;
  if (!config.mail)
    return {
      recipient: email.to,
      result: {
        outcome: "retry",
        status: null,
        detail: "Not sent: no mail server is configured on this instance (SMTP_URL or SMTP_HOST).",
      },
    };
  return { recipient: email.to, result: await sendEmail(config.mail, delivery.messageId, email, config.timeoutMs) };
}
