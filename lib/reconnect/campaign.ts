import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Budget } from "../budget/budget";
import { callHeadroom, describeDuration, estimateCost } from "../budget/headroom";
import type { Db } from "../db/client";
import { type Job, importedLinks, linkCustomers, reconnectRequests } from "../db/schema";
import { type Actor, insertJob } from "../jobs/store";
import { LINK_SESSION_ENDPOINT, RECONNECT_KIND, type ReconnectItem, reconnectKind } from "../jobs/reconnect";
import { linkViewBatches } from "../links/list-query";
import { linkErrorLabel } from "../links/error-codes";
import { linkListSearchParams } from "../links/list-params";
import { describeLinkView } from "../links/view-words";
import type { LinkListParams } from "../schemas/links";
import { REPEAT_AFTER_MS } from "./request";
import { OUTAGE_CODES, OUTAGE_HOLD_PREFIX, holdingWords, outagesAt } from "./outage";
import { whyNoReconnect } from "./reasons";

// A reconnect campaign: every link of a links-list view whose error needs its end user gets one reconnect request, as
// a durable job (lib/jobs/reconnect.ts). Planned from Linkdesk's read model (what the list shows), then each link is
// read fresh again right before its request. The plan says how many are asked, how many are skipped and why, and the
// calls and time within Linkdesk's share of the upstream's limits on POST /link-session (20 a minute per user, 1,200
// per app, 12 per link for relinks). A link in an outage, or at an institution (or through a provider) in one, is not
// asked during it: its item waits and is asked once the outage clears, if it still needs its user (./outage.ts).

/** Why a link of the view is not asked. */
export const CAMPAIGN_SKIPS = {
  not_user_error: "Not in error, or in an error the service must fix",
  deleted: "Deleted",
  not_read: "Its state is not read yet",
  no_customer: "No customer user known for it",
  asked_recently: "Asked already within the chosen days (and never twice within 10 minutes) and not back yet",
} as const;
export type CampaignSkip = keyof typeof CAMPAIGN_SKIPS;

/** The read each request makes of its link first. */
const LINK_READ_ENDPOINT = "GET /links/{id}";

/** At most this many links in one campaign: a view larger than that is narrowed first. */
export const CAMPAIGN_MAX_LINKS = 20_000;
export const DEFAULT_ASKED_WITHIN_DAYS = 7;

export interface CampaignTarget {
  linkId: string;
  customerUserId: string;
  errorCode: string;
  institution: string | null;
  /** Why it waits for an outage to clear before it is asked, in words; null when it is asked at once. */
  held: string | null;
}

export interface CampaignPlan {
  /** Links in the view. */
  links: number;
  targets: CampaignTarget[];
  /** Of the targets, those held until an outage clears. */
  waiting: number;
  skipped: Record<CampaignSkip, number>;
  /** Distinct end users asked. */
  users: number;
  /** By error code, the links asked. */
  byErrorCode: Record<string, number>;
  /** The view is larger than a campaign may be: nothing is planned. */
  tooMany: boolean;
  /** The calls and the time they take at the binding limit, in words. */
  calls: number;
  duration: string;
  /** The binding limit, in words ("1,200 a minute per app, Linkdesk's share 600"). */
  binding: string | null;
}

/** The view's links, each asked or skipped for a reason; read from the read model, nothing sent. */
export async function planCampaign(
  db: Db,
  params: LinkListParams,
  opts: { askedWithinDays: number; budget?: Budget },
): Promise<CampaignPlan> {
  const skipped = Object.fromEntries(Object.keys(CAMPAIGN_SKIPS).map((k) => [k, 0])) as Record<CampaignSkip, number>;
  const candidates: {
    linkId: string;
    errorCode: string;
    institution: string | null;
    institutionId: string | null;
    provider: string | null;
  }[] = [];
  const outageCodes: readonly string[] = Object.values(OUTAGE_CODES);
  let links = 0;
  for await (const batch of linkViewBatches(db, params)) {
    for (const link of batch) {
      links++;
      if (links > CAMPAIGN_MAX_LINKS) break;
      if (link.state === null) skipped.not_read++;
      else if (link.state === "deleted") skipped.deleted++;
      else if (
        whyNoReconnect({ state: link.state, error_code: link.errorCode }) &&
        !(link.state === "error" && outageCodes.includes(link.errorCode ?? ""))
      )
        skipped.not_user_error++;
      else
        candidates.push({
          linkId: link.linkId,
          errorCode: link.errorCode!,
          institution: link.institutionName ?? link.institutionId,
          institutionId: link.institutionId,
          provider: link.provider,
        });
    }
    if (links > CAMPAIGN_MAX_LINKS) break;
  }
  const empty: CampaignPlan = {
    links,
    targets: [],
    waiting: 0,
    skipped,
    users: 0,
    byErrorCode: {},
    tooMany: links > CAMPAIGN_MAX_LINKS,
    calls: 0,
    duration: "no calls",
    binding: null,
  };
  if (links > CAMPAIGN_MAX_LINKS) return empty;

  const customers = await customersOf(
    db,
    candidates.map((c) => c.linkId),
  );
  const asked = await askedSince(
    db,
    candidates.map((c) => c.linkId),
    opts.askedWithinDays,
  );
  const outages = await outagesAt(db, {
    institutionIds: candidates.flatMap((c) => (c.institutionId ? [c.institutionId] : [])),
    providers: candidates.flatMap((c) => (c.provider ? [c.provider] : [])),
  });
  const targets: CampaignTarget[] = [];
  for (const { institutionId, provider, ...c } of candidates) {
    const customerUserId = customers.get(c.linkId);
    if (!customerUserId) skipped.no_customer++;
    else if (asked.has(c.linkId)) skipped.asked_recently++;
    else {
      const held = holdingWords(
        { institutionId, institutionName: c.institution, provider, errorCode: c.errorCode, state: "error" },
        outages,
      );
      targets.push({ ...c, customerUserId, held });
    }
  }
  if (targets.length === 0) return { ...empty, skipped };

  const byErrorCode: Record<string, number> = {};
  const perUser = new Map<string, number>();
  for (const t of targets) {
    byErrorCode[t.errorCode] = (byErrorCode[t.errorCode] ?? 0) + 1;
    perUser.set(t.customerUserId, (perUser.get(t.customerUserId) ?? 0) + 1);
  }
  let seconds = 0;
  let binding: string | null = null;
  if (opts.budget) {
    const headroom = await callHeadroom(opts.budget, LINK_SESSION_ENDPOINT, {
      userId: "·",
      linkId: "·",
      relink: true,
    });
    const app = estimateCost(
      targets.length,
      headroom.filter((h) => h.key.scope === "app"),
    );
    const user = estimateCost(
      Math.max(...perUser.values()),
      headroom.filter((h) => h.key.scope === "user"),
    );
    // Each request reads its link fresh first (GET /links/{id}): at 1,000 a minute per app that read, not the session's
    // 1,200, binds a large campaign.
    const readHeadroom = await callHeadroom(opts.budget, LINK_READ_ENDPOINT, { linkId: "·" });
    const read = estimateCost(
      targets.length,
      readHeadroom.filter((h) => h.key.scope === "app"),
    );
    const worst = [
      app && { ...app, endpoint: LINK_SESSION_ENDPOINT },
      user && { ...user, endpoint: LINK_SESSION_ENDPOINT },
      read && { ...read, endpoint: LINK_READ_ENDPOINT },
    ]
      .filter((e) => e !== null)
      .reduce<(NonNullable<typeof app> & { endpoint: string }) | null>(
        (a, b) => (a === null || b.seconds > a.seconds ? b : a),
        null,
      );
    if (worst) {
      seconds = worst.seconds;
      binding = `${worst.endpoint}'s ${worst.limit.toLocaleString("en-US")} a minute per ${worst.scope} at Linkdesk's share`;
    }
  }
  return {
    links,
    targets,
    waiting: targets.filter((t) => t.held !== null).length,
    skipped,
    users: perUser.size,
    byErrorCode,
    tooMany: false,
    calls: targets.length,
    duration: seconds === 0 ? "at once, within the limits' room now" : describeDuration(seconds),
    binding,
  };
}

/** Whose link each is, where Linkdesk knows: its import, a customer lookup, a link session it made. */
async function customersOf(db: Db, linkIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < linkIds.length; i += 1_000) {
    const chunk = linkIds.slice(i, i + 1_000);
    const imported = await db
      .select({ linkId: importedLinks.linkId, customerUserId: importedLinks.customerUserId })
      .from(importedLinks)
      .where(and(inArray(importedLinks.linkId, chunk), eq(importedLinks.state, "created")));
    for (const r of imported) if (r.linkId) out.set(r.linkId, r.customerUserId);
    const learned = await db
      .select({ linkId: linkCustomers.linkId, customerUserId: linkCustomers.customerUserId })
      .from(linkCustomers)
      .where(inArray(linkCustomers.linkId, chunk));
    for (const r of learned) if (!out.has(r.linkId)) out.set(r.linkId, r.customerUserId);
  }
  return out;
}

/**
 * Links asked within `days` whose request did not fail and that have not come back since. Never less than the time
 * within which a request is refused as a repeat (request.ts): the preview counts what would be sent.
 */
async function askedSince(db: Db, linkIds: string[], days: number): Promise<Set<string>> {
  const out = new Set<string>();
  const seconds = Math.max(days * 86_400, REPEAT_AFTER_MS / 1000);
  for (let i = 0; i < linkIds.length; i += 1_000) {
    const rows = await db
      .selectDistinct({ linkId: reconnectRequests.linkId })
      .from(reconnectRequests)
      .where(
        and(
          inArray(reconnectRequests.linkId, linkIds.slice(i, i + 1_000)),
          sql`${reconnectRequests.state} <> 'failed'`,
          sql`${reconnectRequests.reconnectedAt} is null`,
          sql`${reconnectRequests.requestedAt} > now() - make_interval(secs => ${seconds})`,
        ),
      );
    for (const r of rows) out.add(r.linkId);
  }
  return out;
}

export interface CampaignParams {
  /** The links list's view, as its query string. */
  view: string;
  askedWithinDays: number;
  links: number;
}

/** Starts the campaign the plan describes, as a job: one item per link asked, the view and the choice in its params. */
export async function startCampaign(
  db: Db,
  actor: Actor,
  params: LinkListParams,
  plan: CampaignPlan,
  askedWithinDays: number,
): Promise<Job> {
  const view = linkListSearchParams(params).toString();
  return insertJob(db, {
    kind: RECONNECT_KIND,
    title: `Reconnect campaign: ${plan.targets.length.toLocaleString("en-US")} link${plan.targets.length === 1 ? "" : "s"} (${describeLinkView(params)})`,
    params: { view, askedWithinDays, links: plan.targets.length } satisfies CampaignParams,
    concurrency: reconnectKind.concurrency,
    createdBy: actor,
    items: plan.targets.map((t) => ({
      linkId: t.linkId,
      targetId: t.linkId,
      input: {
        linkId: t.linkId,
        about: `${linkErrorLabel(t.errorCode)}${t.institution ? ` at ${t.institution}` : ""}`,
      } satisfies ReconnectItem,
    })),
  });
}

export interface CampaignSummary {
  requested: number;
  sent: number;
  failed: number;
  /** Messages the product (or the mail server) took. */
  delivered: number;
  deliveryFailed: number;
  reconnected: number;
  stillBroken: number;
  /** Not asked yet: held until an outage clears. */
  waiting: number;
  /** Why deliveries failed: each last outcome in words, most frequent first (at most five). */
  failures: { outcome: string; count: number }[];
  /**
   * Links reconnected by the end of each day since the campaign started (day 0 is its first 24 hours), up to now or
   * the 30th day: the share reconnected over days.
   */
  byDay: { day: number; reconnected: number }[];
}

/** What became of a campaign's requests: made, delivered, failed, and the links back since. */
export async function campaignSummary(db: Db, jobId: string): Promise<CampaignSummary> {
  const { rows } = await db.execute<{
    requested: number;
    sent: number;
    failed: number;
    delivered: number;
    delivery_failed: number;
    reconnected: number;
  }>(sql`
    select count(*)::int as requested,
      count(*) filter (where r.state = 'sent')::int as sent,
      count(*) filter (where r.state = 'failed')::int as failed,
      count(*) filter (where exists (select 1 from outbound_deliveries d where d.message_id = r.message_id and d.state = 'delivered'))::int as delivered,
      count(*) filter (where r.state = 'sent' and not exists (select 1 from outbound_deliveries d where d.message_id = r.message_id and d.state <> 'failed'))::int as delivery_failed,
      count(*) filter (where r.reconnected_at is not null)::int as reconnected
    from reconnect_requests r where r.job_id = ${jobId}
  `);
  const r = rows[0]!;
  const { rows: held } = await db.execute<{ waiting: number }>(sql`
    select count(*)::int as waiting from job_items
    where job_id = ${jobId} and state = 'pending' and reason like ${`${OUTAGE_HOLD_PREFIX}%`}
  `);
  const { rows: failures } = await db.execute<{ outcome: string | null; count: number }>(sql`
    select d.last_outcome as outcome, count(*)::int as count
    from reconnect_requests r join outbound_deliveries d on d.message_id = r.message_id
    where r.job_id = ${jobId} and d.state = 'failed'
    group by d.last_outcome order by count(*) desc, d.last_outcome limit 5
  `);
  const { rows: days } = await db.execute<{ day: number; count: number; today: number }>(sql`
    select floor(extract(epoch from (r.reconnected_at - j.created_at)) / 86400)::int as day, count(*)::int as count,
      floor(extract(epoch from (now() - j.created_at)) / 86400)::int as today
    from reconnect_requests r join jobs j on j.id = r.job_id
    where r.job_id = ${jobId} and r.reconnected_at is not null
    group by 1, 3 order by 1
  `);
  const today = Math.min(30, Math.max(0, ...days.map((d) => Number(d.today))));
  const byDay: CampaignSummary["byDay"] = [];
  let reconnectedSoFar = 0;
  for (let day = 0; day <= today && days.length > 0; day++) {
    reconnectedSoFar += days.filter((d) => Math.max(0, Number(d.day)) === day).reduce((n, d) => n + Number(d.count), 0);
    byDay.push({ day, reconnected: reconnectedSoFar });
  }
  return {
    failures: failures.map((f) => ({ outcome: f.outcome ?? "No outcome recorded", count: Number(f.count) })),
    byDay,
    waiting: Number(held[0]?.waiting ?? 0),
    requested: Number(r.requested),
    sent: Number(r.sent),
    failed: Number(r.failed),
    delivered: Number(r.delivered),
    deliveryFailed: Number(r.delivery_failed),
    reconnected: Number(r.reconnected),
    stillBroken: Number(r.sent) - Number(r.reconnected),
  };
}
