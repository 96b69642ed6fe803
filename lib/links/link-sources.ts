import type { LinkSource } from "../db/schema";

// Where Linkdesk first learned of a link (lib/links/discovery.ts), in words, for the links list and its CSV.

export const LINK_SOURCE_LABELS: Record<LinkSource, string> = {
  listing: "Listing",
  upstream_answer: "Upstream answer",
  webhook: "Webhook",
  customer_lookup: "Customer lookup",
  registration: "Registration",
};

/** The sources in the order pages list them. */
export const LINK_SOURCE_ORDER = Object.keys(LINK_SOURCE_LABELS) as LinkSource[];

export const LINK_SOURCE_MEANINGS: Record<LinkSource, string> = {
  listing: "The upstream's list of links (GET /links), which holds active links only.",
  upstream_answer:
    "An answer of the upstream that carried the link: an import, a token exchange, a link read by its id.",
  webhook: "A webhook from the upstream that named the link.",
  customer_lookup: "A look-up of the customer's links (GET /users/{id}/links) by staff.",
  registration: "The product's back end registered the link's id (by file or through POST /api/links/register).",
};
