// The checks every link-scoped call makes, in the upstream's order: exists (404), not deleted (410), then what the
// call itself needs (state 422, permission 403).
import type { Product } from "../wire-vocabulary";
import { apiErrors } from "../http";
import type { Store } from "../store";
import type { LinkRecord } from "../types";

export function requireLink(store: Store, id: string, options: { allowDeleted?: boolean } = {}): LinkRecord {
  const link = store.getLink(id);
  if (!link) throw apiErrors.linkNotFound();
  if (link.state === "deleted" && !options.allowDeleted) throw apiErrors.linkDeleted();
  return link;
}

function hasNoDataYet(link: LinkRecord): boolean {
  return link.state === "connecting" || link.state === "awaiting_token_exchange";
}

/** Data can be read from connected links and from links in error (imported or broken links keep their data). */
export function requireReadyLink(store: Store, id: string): LinkRecord {
  const link = requireLink(store, id);
  if (hasNoDataYet(link)) {
    throw apiErrors.badState("link_not_ready", `The link is in state ${link.state}; it has no data yet.`);
  }
  return link;
}

const PRODUCT_LABELS: Record<Product, string> = {
  accounts: "Accounts",
  account_numbers: "Account numbers",
  identity: "Identity",
  transactions: "Transactions",
  investments: "Investments",
  enrichment: "Enrichment",
};

export function requireProduct(link: LinkRecord, product: Product): void {
  if (!link.products[product]) throw apiErrors.forbidden(`${PRODUCT_LABELS[product]} access not permitted`);
}

/**
 * Whether the link-scoped reads of `product` would serve this link's data (requireReadyLink and requireProduct pass):
 * the links a customer user's cross-link reads (GET /users/{id}/accounts, /transactions) gather from.
 */
export function servesDataOf(link: LinkRecord, product: Product): boolean {
  return link.state !== "deleted" && !hasNoDataYet(link) && Boolean(link.products[product]);
}
