"use server";

import { getBudget } from "../budget";
import { getDb } from "../db/client";
import { wakeJobRunner } from "../jobs";
import { parseLinkListParams } from "../links/list-params";
import { planCampaign, startCampaign } from "../reconnect/campaign";
import { askToReconnect, isReconnectRefused } from "../reconnect/request";
import { notConfiguredWords, reconnectSetup } from "../reconnect/setup";
import { requestReconnectSchema, startCampaignSchema } from "../schemas/reconnect";
import { upstream } from "../upstream";
import { ActionRefused, actionClient } from "./safe-action";

/**
 * Asks a link's end user to reconnect (support and up): a relink session for the link, handed to the product's back
 * end and, where configured, emailed. The same click sent again (its request key) answers with the request as it
 * stands and does nothing new.
 */
export const requestReconnect = actionClient
  .metadata({ action: "link.request_reconnect", permission: "requestReconnect" })
  .inputSchema(requestReconnectSchema)
  .action(async ({ parsedInput, ctx }) => {
    ctx.note({ targetType: "link", targetId: parsedInput.linkId, linkId: parsedInput.linkId });
    try {
      const outcome = await askToReconnect(parsedInput, {
        db: (await getDb()).db,
        api: upstream(),
        setup: reconnectSetup(),
        staff: ctx.staff,
        correlationId: ctx.correlationId,
        report: ctx.note,
      });
      const { request } = outcome;
      // The same click again: its audit row says which request it found, and that nothing new was done.
      if (outcome.replay) ctx.note({ after: { replayOf: request.id, state: request.state } });
      return {
        requestId: request.id,
        state: request.state,
        replay: outcome.replay,
        channels: outcome.channels,
        requestedAt: request.requestedAt.toISOString(),
        requestedBy: request.requestedByEmail,
      };
    } catch (error) {
      if (isReconnectRefused(error)) throw new ActionRefused(error.message);
      throw error;
    }
  });

/**
 * Starts a reconnect campaign over a links-list view (ops and up): planned again here from the read model, whatever
 * the page showed, and started as a job of one request per link whose error needs its user.
 */
export const startReconnectCampaign = actionClient
  .metadata({ action: "reconnect.campaign_start", permission: "reconnectCampaign" })
  .inputSchema(startCampaignSchema)
  .action(async ({ parsedInput, ctx }) => {
    const { view, askedWithinDays, expectedLinks } = parsedInput;
    ctx.note({ targetType: "view", targetId: view || "(every link)", input: { view, askedWithinDays, expectedLinks } });
    const setup = reconnectSetup();
    if (setup.missing.length > 0) throw new ActionRefused(notConfiguredWords(setup.missing));
    const { params, dropped } = parseLinkListParams(new URLSearchParams(view));
    if (dropped.length > 0)
      throw new ActionRefused(
        `The view's filters are not all understood (${dropped.map((d) => d.param).join(", ")}): open the campaign from the links list again. Nothing was sent.`,
      );
    const { db } = await getDb();
    const plan = await planCampaign(db, params, { askedWithinDays, budget: await getBudget() });
    if (plan.tooMany)
      throw new ActionRefused(
        "The view holds more than 20,000 links: narrow it (an institution, an error code) and start again. Nothing was sent.",
      );
    if (plan.targets.length === 0)
      throw new ActionRefused(
        "No link of this view needs its end user now (reconnected, asked already, or no customer known): nothing to send.",
      );
    if (plan.targets.length > expectedLinks)
      throw new ActionRefused(
        `The view now holds ${plan.targets.length.toLocaleString("en-US")} links to ask, more than the ${expectedLinks.toLocaleString("en-US")} you confirmed: review the preview again. Nothing was sent.`,
      );
    const job = await startCampaign(
      db,
      { id: ctx.staff.id, email: ctx.staff.email, role: ctx.staff.role },
      params,
      plan,
      askedWithinDays,
    );
    ctx.note({ targetType: "job", targetId: job.id, after: { jobId: job.id, links: plan.targets.length } });
    wakeJobRunner();
    return { jobId: job.id, links: plan.targets.length };
  });
