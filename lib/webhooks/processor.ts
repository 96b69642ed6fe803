import "server-only";

// Placeholder while the processor is written (lib/webhooks): the exported names are the contract other modules use.

/** Wakes this instance's webhook processor: an event was stored or set to be processed again. */
export function kickWebhookProcessor(): void {}
