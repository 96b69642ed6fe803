import { z } from "zod";
import { linkIdSchema } from "./link-operations";

// Shared by the link page's reconnect button and its server action (lib/actions/reconnect.ts).

/**
 * One reconnect request. `requestKey` is made by the page when it shows the button and sent with every try of the
 * same click: a double click, a POST sent again or a retry of the same request is recognised as one, and makes one
 * session and one message.
 */
export const requestReconnectSchema = z.object({
  linkId: linkIdSchema,
  requestKey: z.uuid({ error: "Reload the page: this request has no key to recognise it by" }),
});

export type RequestReconnectInput = z.infer<typeof requestReconnectSchema>;

/**
 * A reconnect campaign over a links-list view (ops and up). `view` is the list's query string as the preview showed
 * it; `expectedLinks` is the number the person confirmed, so that a view that grew since is shown again before it
 * starts.
 */
export const startCampaignSchema = z.object({
  view: z.string().max(4_000, { error: "The view's filters are too long." }),
  askedWithinDays: z
    .number({ error: "Choose how many days back a request counts." })
    .int()
    .min(0, { error: "Days back cannot be negative." })
    .max(90, { error: "At most 90 days back." }),
  expectedLinks: z
    .number({ error: "Reload the preview: it did not say how many links it showed." })
    .int()
    .min(1, { error: "A campaign of no links asks nobody." })
    .max(20_000),
});
export type StartCampaignInput = z.infer<typeof startCampaignSchema>;
