import "server-only";
import { createHash } from "node:crypto";
import { z } from "zod";
import { type ReconnectSetup, reconnectSetup } from "../reconnect/setup";
import { askToReconnect, isReconnectRefused, requestByKey, settleFailed } from "../reconnect/request";
import type { OutboundChannel } from "../db/schema";
import { OUTAGE_RECHECK_MS, OUTAGE_WAIT_MAX_MS, outageHolding } from "../reconnect/outage";
import { FailItem, type JobKind, SkipItem, type Verification, WaitItem } from "./kind-contract";

// A reconnect campaign as a job (lib/reconnect/campaign.ts plans it): one item per link of a view whose error needs its
// end user. Each item is the link page's own request (lib/reconnect/request.ts: the link read fresh, a relink session
// carrying its webhook and tags over, the token handed to the product and optionally emailed), made in queued mode
// through the rate budget. One session per link per campaign, whatever the retries, tabs or instances: the request's
// key is made from the campaign and the link, so a second try of an item finds the first's request instead of asking
// again, and a request recorded as being made when its holder died is settled as cut short, never made twice. While
// the link, its institution or its provider is in an outage, the item waits (nothing sent) and looks again each minute,
// for a week at most (lib/reconnect/outage.ts).

export const RECONNECT_KIND = "reconnect";
export const LINK_SESSION_ENDPOINT = "POST /link-session";

export const reconnectItemSchema = z.object({
  linkId: z.string().min(1),
  /** Why it is asked, in words, when planned ("Authorization expired at Chase"): the item's name on the job's page. */
  about: z.string().max(300).optional(),
});
export type ReconnectItem = z.infer<typeof reconnectItemSchema>;

export interface ReconnectItemResult {
  linkId: string;
  requestId: string;
  channels: OutboundChannel[];
}

/** The request key of a campaign's link: the same on every try of the item, unique to the campaign and the link. */
export function campaignRequestKey(jobId: string, linkId: string): string {
  const hex = createHash("sha256").update(`reconnect-campaign:${jobId}:${linkId}`).digest("hex");
  // Laid out as a UUID (version 5 and variant bits set), which is what the requests table keys by.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const CUT_SHORT =
  "Cut short: the dashboard asking stopped between the link session and its message, so a session may exist but nothing reached the user. Not asked again by this campaign; ask from the link's page if it is still broken.";

/** The kind, reading its configuration from the environment (tests pass their own). */
export function createReconnectKind(
  opts: { setup?: () => ReconnectSetup; outageRecheckMs?: number } = {},
): JobKind<ReconnectItem, ReconnectItemResult> {
  const setupOf = opts.setup ?? reconnectSetup;
  const recheckMs = opts.outageRecheckMs ?? OUTAGE_RECHECK_MS;
  return {
    kind: RECONNECT_KIND,
    label: "Reconnect campaign",
    permission: "reconnectCampaign",
    concurrency: 4,
    endpoint: LINK_SESSION_ENDPOINT,
    inputSchema: reconnectItemSchema,
    async execute(input, ctx) {
      const held = await outageHolding(ctx.db, input.linkId);
      if (held) {
        if (Date.now() - ctx.job.createdAt.getTime() > OUTAGE_WAIT_MAX_MS)
          throw new SkipItem(
            `Not asked: the outage lasted longer than the campaign waits (${OUTAGE_WAIT_MAX_MS / 86_400_000} days). ${held}`,
          );
        throw new WaitItem(held, recheckMs);
      }
      const requestKey = campaignRequestKey(ctx.job.id, input.linkId);
      const correlationId = ctx.callOptions.correlationId;
      try {
        const outcome = await askToReconnect(
          { linkId: input.linkId, requestKey },
          {
            db: ctx.db,
            api: ctx.api,
            setup: setupOf(),
            staff: { id: ctx.job.createdBy, email: ctx.job.createdByEmail, role: ctx.job.createdByRole },
            correlationId,
            calls: { read: { ...ctx.readOptions, correlationId }, session: ctx.callOptions },
            jobId: ctx.job.id,
          },
        );
        const { request } = outcome;
        if (request.state === "failed") throw new FailItem(request.reason ?? "No link session was made.");
        if (request.state === "creating") throw new FailItem(CUT_SHORT);
        return { linkId: input.linkId, requestId: request.id, channels: outcome.channels };
      } catch (error) {
        // Refused before anything was sent (the link no longer needs its user, no customer known, asked recently).
        if (isReconnectRefused(error)) throw new SkipItem(error.message);
        throw error;
      }
    },
    async verify(input, ctx): Promise<Verification<ReconnectItemResult>> {
      const request = await requestByKey(ctx.db, campaignRequestKey(ctx.job.id, input.linkId));
      // The request is recorded before its session is asked for: none recorded, no session asked for.
      if (!request) return { applied: false };
      if (request.state === "sent")
        return { applied: true, result: { linkId: input.linkId, requestId: request.id, channels: [] } };
      if (request.state === "creating") await settleFailed(ctx.db, request.id, CUT_SHORT);
      throw new FailItem(request.state === "failed" ? (request.reason ?? "No link session was made.") : CUT_SHORT);
    },
    audit(input, job) {
      return {
        action: "link.request_reconnect",
        targetType: "link",
        targetId: input.linkId,
        linkId: input.linkId,
        input: { campaign: job.id },
      };
    },
    describeResult(result) {
      return `${result.linkId}: session sent${result.channels.length > 0 ? ` by ${result.channels.join(" and ")}` : ""}`;
    },
  };
}

export const reconnectKind = createReconnectKind();
