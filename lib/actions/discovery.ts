"use server";

import { getDb } from "../db/client";
import { type CustomerLookup, countLinksBySource, lookUpCustomerLinks, registerLinkIds } from "../links/discovery";
import type { LinkSource } from "../db/schema";
import { type InvalidFileLine, customerLookupSchema, parseLinkIdFile, registerFileSchema } from "../schemas/discovery";
import { upstream } from "../upstream";
import { ActionRefused, actionClient, noteUpstream } from "./safe-action";

// Learning of links the upstream's listing leaves out (lib/links/discovery.ts): a customer's links looked up by staff,
// and a file of link ids the product's back end knows, registered by an admin. The back end's own door to the same
// registration is the route handler app/api/links/register/route.ts.

/** A customer's links (GET /users/{id}/links), recorded in the read model as learned by this lookup when new. */
export const lookUpCustomer = actionClient
  .metadata({ action: "link.lookup_customer", permission: "lookupCustomer" })
  .inputSchema(customerLookupSchema)
  .action(async ({ parsedInput: { customerId }, ctx }): Promise<CustomerLookup> => {
    ctx.note({ targetType: "customer", targetId: customerId, input: { customerId } });
    const { db } = await getDb();
    const found = await noteUpstream(ctx.note, () =>
      lookUpCustomerLinks(db, upstream(), customerId, { correlationId: ctx.correlationId }),
    );
    ctx.note({
      after: {
        links: found.links.length,
        newToLinkdesk: found.links.filter((link) => link.newToLinkdesk).length,
        inError: found.links.filter((link) => link.state === "error").length,
      },
    });
    return found;
  });

/** Invalid lines sent back to the page at most: the page lists every one from its own reading of the file. */
const INVALID_LINES_RETURNED = 100;

export interface RegisterFileResult {
  registered: number;
  alreadyKnown: number;
  invalid: number;
  duplicates: number;
  invalidLines: InvalidFileLine[];
  /** The read model's links by where Linkdesk first learned of them, after this registration. */
  bySource: Partial<Record<LinkSource, number>>;
}

/**
 * Registers the link ids of an uploaded file (one id a line, or CSV with a link_id column). The server reads and
 * checks the file itself: the page's preview is never trusted. Valid ids are registered, invalid lines reported.
 */
export const registerLinkIdsFile = actionClient
  .metadata({ action: "link.register", permission: "registerLinks" })
  .inputSchema(registerFileSchema)
  .action(async ({ parsedInput: { file }, ctx }): Promise<RegisterFileResult> => {
    const text = new TextDecoder("utf-8", { fatal: false }).decode(await file.arrayBuffer());
    const parsed = parseLinkIdFile(text);
    const input = {
      fileName: file.name.slice(0, 200),
      bytes: file.size,
      format: parsed.format,
      ids: parsed.ids.length,
      invalid: parsed.invalid.length,
      duplicates: parsed.duplicates,
    };
    ctx.note({ targetType: "link_ids", input });
    if (parsed.refusal) throw new ActionRefused(parsed.refusal);
    const { db } = await getDb();
    const registration = await registerLinkIds(db, parsed.ids, "registration");
    // The first invalid lines by number and reason (never their text: the trail keeps what was asked, not the file).
    ctx.note({
      after: {
        ...registration,
        invalidLines: parsed.invalid.slice(0, 20).map(({ line, reason }) => ({ line, reason })),
      },
    });
    return {
      ...registration,
      invalid: parsed.invalid.length,
      duplicates: parsed.duplicates,
      invalidLines: parsed.invalid.slice(0, INVALID_LINES_RETURNED),
      bySource: await countLinksBySource(db),
    };
  });
