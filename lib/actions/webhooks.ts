"use server";

import { getDb } from "../db/client";
import { webhookEventIdSchema } from "../schemas/webhooks";
import { kickWebhookProcessor } from "../webhooks/processor";
import { requeueWebhookEvent } from "../webhooks/query";
import { ActionRefused, actionClient } from "./safe-action";

/**
 * Processes a stored webhook event again (ops and admins): it goes back to waiting, due now, and this instance's
 * processor is woken. A refused request is refused here too, in words: there is nothing of it to process.
 */
export const reprocessWebhookEvent = actionClient
  .metadata({ action: "webhook.reprocess", permission: "reprocessWebhook" })
  .inputSchema(webhookEventIdSchema)
  .action(async ({ parsedInput: { eventId }, ctx }) => {
    const { db } = await getDb();
    ctx.note({ targetType: "webhook_event", targetId: eventId });
    const result = await requeueWebhookEvent(db, eventId);
    if (!result.requeued) throw new ActionRefused(result.reason);
    ctx.note({
      linkId: result.linkId ?? undefined,
      before: { outcome: result.before },
      after: { outcome: "pending" },
      input: { event: result.event },
    });
    kickWebhookProcessor();
    return { eventId: result.id };
  });
