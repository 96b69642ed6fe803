"use server";

import {
  describeOperationError,
  isLinkOperationRefused,
  type LinkOperation,
  refreshLinkProducts,
  sendLinkTestWebhook,
  updateLinkSettings,
} from "../links/operations";
import { refreshProductsSchema, sendTestWebhookSchema, updateLinkSchema } from "../schemas/link-operations";
import { upstream } from "../upstream";
import { isUpstreamError } from "../upstream/errors";
import type { Product } from "../upstream/schemas";
import { ActionRefused, type AuditNote, actionClient, noteUpstream } from "./safe-action";

// The link page's operations, for support and up (operateLink): each spends the upstream's per-link budget. Every
// call goes through Linkdesk's rate budget as a click (refused with the time of the next slot when it is full).

/**
 * Runs one operation's upstream work, noting its outcome for the audit row; a refusal (Linkdesk's own, or the
 * upstream's where Linkdesk has better words for it) reaches the person as a sentence.
 */
async function operate<T>(
  note: (n: AuditNote) => void,
  operation: LinkOperation,
  work: () => Promise<T>,
  successStatus: number,
  products?: readonly Product[],
): Promise<T> {
  try {
    return await noteUpstream(note, work, successStatus);
  } catch (error) {
    if (isLinkOperationRefused(error)) throw new ActionRefused(error.message);
    const words = isUpstreamError(error) ? describeOperationError(operation, error, products) : null;
    if (words) throw new ActionRefused(words);
    throw error;
  }
}

/** POST /webhooks/test/link/{id}: the upstream sends the link's webhook an example of the chosen event. */
export const sendTestWebhook = actionClient
  .metadata({ action: "link.test_webhook", permission: "operateLink" })
  .inputSchema(sendTestWebhookSchema)
  .action(async ({ parsedInput: { linkId, event }, ctx }) => {
    ctx.note({ targetType: "link", targetId: linkId, linkId, input: { event } });
    return operate(
      ctx.note,
      "test_webhook",
      () => sendLinkTestWebhook(upstream(), linkId, event, { correlationId: ctx.correlationId, report: ctx.note }),
      200,
    );
  });

/** POST /links/{id}/products: the upstream refreshes the products from the institution (202: it has started). */
export const refreshProducts = actionClient
  .metadata({ action: "link.refresh_products", permission: "operateLink" })
  .inputSchema(refreshProductsSchema)
  .action(async ({ parsedInput: { linkId, products }, ctx }) => {
    ctx.note({ targetType: "link", targetId: linkId, linkId, input: { products } });
    return operate(
      ctx.note,
      "refresh_products",
      () => refreshLinkProducts(upstream(), linkId, products, { correlationId: ctx.correlationId, report: ctx.note }),
      202,
      products,
    );
  });

/** PATCH /links/{id}: sets the link's webhook (or removes it) and its tags; the audit row holds both before and after. */
export const updateLink = actionClient
  .metadata({ action: "link.update", permission: "operateLink" })
  .inputSchema(updateLinkSchema)
  .action(async ({ parsedInput, ctx }) => {
    ctx.note({ targetType: "link", targetId: parsedInput.linkId, linkId: parsedInput.linkId });
    return operate(
      ctx.note,
      "update",
      () => updateLinkSettings(upstream(), parsedInput, { correlationId: ctx.correlationId, report: ctx.note }),
      200,
    );
  });
