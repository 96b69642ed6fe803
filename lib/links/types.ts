import type { WireAccount, WireLink, WireProductStatus } from "../upstream/schemas";

// A link as the dashboard's pages and components speak of it. Today each is the upstream's shape as parsed at the
// door; components import these names, never lib/upstream, so a change of the wire meets one mapping here, not every
// component that shows a link.

/** One link with its products, state and error, as the link's page shows it. */
export type LinkDetails = WireLink;
/** The status of one product of a link (accounts, transactions…): refreshed when, failing with which code. */
export type ProductStatus = WireProductStatus;
/** One account of a link, with its balances. */
export type LinkAccount = WireAccount;

export {
  LINK_ERROR_CODES,
  LINK_STATES,
  PRODUCTS,
  type LinkErrorCode,
  type LinkState,
  type Product,
} from "../upstream/schemas";
