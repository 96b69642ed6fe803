import { z } from "zod";

// Shared by the Webhooks page's Reprocess button and the reprocess action.
export const webhookEventIdSchema = z.object({ eventId: z.uuid("Not a webhook event id") });
export type WebhookEventIdInput = z.infer<typeof webhookEventIdSchema>;
