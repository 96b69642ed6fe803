import { z } from "zod";
import { WHO_ACTS } from "../links/error-codes";

// Shared by the exchange form and the exchange action. The spec's sample token is UUID-shaped.
export const exchangeTokenSchema = z.object({
  exchangeableToken: z
    .string()
    .trim()
    .pipe(z.uuid("An exchangeable token looks like 123e4567-e89b-12d3-a456-426614174000")),
});

export type ExchangeTokenInput = z.infer<typeof exchangeTokenSchema>;

// The links list's state in the URL, shared by the list page, its CSV export, Health's click-throughs and tests.
// Every field is optional; a bad value is dropped (and reported by the page), never an error page.
export const LINK_SORTS = [
  "created_at",
  "last_refreshed_at",
  "institution_name",
  "state",
  "error_code",
  "provider",
  "link_id",
] as const;

/**
 * A state or error code in the URL: any value the read model may hold, since the upstream's lists grow and a link in a
 * state added since must still be found and exported. Only the characters an enum value is made of.
 */
const upstreamValue = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.:-]+$/);

export const linkListParamsSchema = z.object({
  state: upstreamValue.optional(),
  error_code: upstreamValue.optional(),
  /** Links whose error code the user, a wait, or the service must resolve (Health's groups). */
  who_acts: z.enum(WHO_ACTS).optional(),
  institution: z.string().trim().min(1).max(200).optional(),
  provider: z.string().trim().min(1).max(100).optional(),
  tag: z.string().trim().min(1).max(200).optional(),
  product_error: z.string().trim().min(1).max(100).optional(),
  /** Links with no product refreshed in this many days. */
  stale: z.coerce.number().int().min(1).max(3650).optional(),
  /** Link id (prefix) or tag. */
  q: z.string().trim().min(1).max(200).optional(),
  /** Links a reconnect campaign (its job id) asked whose request has not seen them back. */
  campaign: z.uuid().optional(),
  sort: z.enum(LINK_SORTS).optional(),
  dir: z.enum(["asc", "desc"]).optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
});

export type LinkListParams = z.infer<typeof linkListParamsSchema>;
