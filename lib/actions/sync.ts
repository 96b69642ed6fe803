"use server";

import { getDb } from "../db/client";
import { requestSync } from "../sync/lease";
import { markLinkDeleted } from "../sync/queries";
import { kickSyncScheduler } from "../sync/scheduler";
import { refreshLinkSchema } from "../sync/schemas";
import { getSyncStatus } from "../sync/status";
import type { RefreshedLink } from "../sync/types";
import { upstream } from "../upstream";
import { isUpstreamError } from "../upstream/errors";
import { actionClient, noteUpstream } from "./safe-action";

/**
 * "Refresh now" for one link: one GET /links/{id}, interactive (refused with the time of the next slot when the rate
 * budget is used up). The upstream module's observer writes the answer into the read model.
 */
export const refreshLink = actionClient
  .metadata({ action: "link.refresh", permission: "read" })
  .inputSchema(refreshLinkSchema)
  .action(async ({ parsedInput: { linkId }, ctx }): Promise<{ link: RefreshedLink }> => {
    ctx.note({ targetType: "link", targetId: linkId, linkId });
    try {
      const link = await noteUpstream(ctx.note, () =>
        upstream().getLink(linkId, { correlationId: ctx.correlationId, mode: "interactive" }),
      );
      ctx.note({ after: { state: link.state, errorCode: link.error_code ?? null } });
      return {
        link: {
          linkId: link.link_id,
          state: link.state,
          errorCode: link.error_code ?? null,
          institutionName: link.institution_name,
          seenAt: new Date().toISOString(),
        },
      };
    } catch (error) {
      // 410: the upstream no longer serves the link's details; the read model learns it is deleted all the same.
      if (isUpstreamError(error) && error.status === 410) await markLinkDeleted((await getDb()).db, linkId, new Date());
      throw error;
    }
  });

/**
 * "Refresh all": asks for a sync run now (on whichever instance looks first; this one looks at once). Costs the
 * budget of a whole run, so it takes more than the right to read. Not recorded while a run is in progress.
 */
export const refreshAllLinks = actionClient
  .metadata({ action: "link.refresh_all", permission: "refreshAll" })
  .action(async ({ ctx }) => {
    const { db } = await getDb();
    const { requested, running } = await requestSync(db);
    ctx.note({ targetType: "links", input: { refreshAll: true }, after: { requested, alreadyRunning: running } });
    if (requested) kickSyncScheduler();
    const status = await getSyncStatus(db);
    return {
      requested,
      alreadyRunning: running,
      done: status.done,
      total: status.total,
      etaSeconds: status.etaSeconds,
    };
  });
