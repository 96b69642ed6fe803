// Product refreshes (POST /links/{id}/products, upstream-facts §3.5): the upstream refuses a product refreshed too
// recently (the spec: one hour for accounts, one day for every other product; limits.ts
// PRODUCT_REFRESH_INTERVAL_MS), and otherwise refreshes in the background, telling the link's webhook each step.
import { PRODUCT_REFRESH_INTERVAL_MS } from "./limits";
import type { LinkProductState, Product } from "./wire-vocabulary";
import type { SandboxWorld } from "./context";
import { notify, productRefreshEvent } from "./webhook-events";
import type { LinkRecord, ProductStatus } from "./types";
import type { Delivery } from "./webhooks";

const DEFAULT_FAILURE = "The last refresh failed.";

const timeOf = (value: string | null | undefined) => (value ? Date.parse(value) : Number.NEGATIVE_INFINITY);

/**
 * How long until `product` may be refreshed again; 0 when it may now. A refresh counts from the later of its last
 * success (`refreshed_at`) and its last attempt (`last_attempted_at`), so one under way or one that failed counts too.
 */
export function refreshWaitMs(status: ProductStatus, product: Product, nowMs: number): number {
  const last = Math.max(timeOf(status.refreshed_at), timeOf(status.last_attempted_at));
  return Math.max(0, last + PRODUCT_REFRESH_INTERVAL_MS[product] - nowMs);
}

/** Moves one product of a link to `state` (its status fields as the upstream shows them) and tells the webhook. */
export function setProductState(
  world: SandboxWorld,
  link: LinkRecord,
  product: Product,
  state: LinkProductState,
  failure: { errorCode?: string; errorMessage?: string } = {},
): Delivery | null {
  const status = link.products[product];
  if (!status) return null;
  const now = new Date(world.options.now()).toISOString();
  status.last_attempted_at = now;
  if (state === "completed") {
    status.refreshed_at = now;
    delete status.error_code;
    delete status.error_message;
    if (product === "transactions") status.last_enriched = now;
    link.last_synced_at = now;
  } else if (state === "failed") {
    status.error_code = failure.errorCode ?? "unknown";
    status.error_message = failure.errorMessage ?? DEFAULT_FAILURE;
  }
  const errorMessage = state === "failed" ? status.error_message : undefined;
  return notify(world, link, productRefreshEvent(world, link, product, state, { errorMessage }));
}

/** Starts refreshing `products`: pending now, completed after refreshDelayMs (unless the link is deleted meanwhile). */
export function startRefresh(world: SandboxWorld, link: LinkRecord, products: Product[]): void {
  for (const product of products) setProductState(world, link, product, "pending");
  world.later(world.options.refreshDelayMs, () => {
    if (link.state === "deleted") return;
    for (const product of products) setProductState(world, link, product, "completed");
  });
}
