import "server-only";
import { type Db, getDb } from "../db/client";
import { logger } from "../logger";
import { closeReserveMs, onShutdown } from "../shutdown";
import { type OutboundConfig, outboundConfig } from "./config";
import type { OutboundMessage } from "./message";
import { type Queued, queueMessage } from "./store";
import { OutboundWorker } from "./worker";

// Outbound delivery, one way in: deliver(message). Callers (reconnect requests; alerts next) own their messages; this
// module queues each once per channel, sends it from whichever instance's worker leases it, signs webhooks by the
// Standard Webhooks scheme, and keeps every try in the delivery log (outbound_deliveries, outbound_attempts).

export type { OutboundMessage, OutboundEmail } from "./message";
export { messageIdFor } from "./message";
export type { Queued } from "./store";

/**
 * Queues `message` for the product's webhook when one is configured, and by email when the message has one and a
 * mail server is configured. Pass the caller's transaction as `db` to commit the message with what it is about; the
 * worker is woken at once and, should it look before the commit, finds the message at its next look (within 2 s):
 * call wakeOutboundWorker() after the commit to spare that wait. Handing in the same message id again queues nothing.
 */
export async function deliver(
  db: Db,
  message: OutboundMessage,
  config: OutboundConfig = outboundConfig(),
): Promise<Queued> {
  const queued = await queueMessage(db, message, {
    webhook: config.webhook ? { recipient: config.webhook.url } : null,
    email: message.email && config.mail ? { recipient: message.email.to } : null,
  });
  wakeOutboundWorker();
  return queued;
}

interface Shared {
  worker?: Promise<OutboundWorker>;
}
// On globalThis: Next.js may evaluate this module more than once in one process, and there must be one worker.
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.outbound")] ??= {});

/** Starts this process's outbound worker (once); it also sends what other instances queued. */
export function startOutboundWorker(): Promise<OutboundWorker> {
  shared.worker ??= (async () => {
    const { db } = await getDb();
    const log = logger().child({ component: "outbound" });
    const worker = new OutboundWorker({ db, config: outboundConfig, log });
    worker.start();
    log.info({ owner: worker.owner }, "outbound sender started");
    return worker;
  })();
  return shared.worker;
}

/** Looks for due deliveries at once, if the worker runs in this process. */
export function wakeOutboundWorker(): void {
  void shared.worker?.then((worker) => worker.wake());
}

/** Stops leasing, lets tries in flight finish up to `drainMs`, and gives this instance's leases back. */
export async function stopOutboundWorker(drainMs?: number): Promise<void> {
  const worker = await shared.worker?.catch(() => undefined);
  shared.worker = undefined;
  await worker?.stop(drainMs);
}

/** Stops the worker as a step of the shutdown's drain phase. */
export function stopOutboundWorkerAtShutdown(shutdownTimeoutMs: number): void {
  const drainMs = Math.min(5_000, (shutdownTimeoutMs - closeReserveMs(shutdownTimeoutMs)) / 2);
  onShutdown("outbound sender", () => stopOutboundWorker(drainMs), "drain");
}
