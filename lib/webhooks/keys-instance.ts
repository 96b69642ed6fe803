import "server-only";
import { upstream } from "../upstream";
import { WebhookKeySource } from "./keys";

interface Shared {
  keys?: WebhookKeySource;
}
// On globalThis: Next.js may evaluate this module more than once in one process; the key cache is one per process.
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.webhook-keys")] ??= {});

/** This process's cache of the upstream's webhook signing keys, read through the door. */
export function webhookKeys(): WebhookKeySource {
  shared.keys ??= new WebhookKeySource({ fetchKeys: () => upstream().getWebhookKeys({ mode: "interactive" }) });
  return shared.keys;
}
