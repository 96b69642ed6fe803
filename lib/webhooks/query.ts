import "server-only";
import { and, asc, count, desc, eq, gt, gte, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import {
  type WebhookEvent,
  type WebhookOutcome,
  type WebhookVerification,
  webhookEvents,
  webhookOutcomes,
  webhookVerifications,
} from "../db/schema";
import { csvRecord } from "../http/csv";
import { type DroppedParam, type RawParams, parseFieldByField, searchParamsToRecord } from "../http/url-params";
import { type BodyFields, bodyFields } from "./body-fields";
import { WEBHOOK_SINCE_SPANS, type WebhookSinceSpan } from "./labels";

// Reading the webhook_events table for people: the Webhooks page (filters in the URL, keyset pages, a summary strip),
// its CSV export, a link's recent events, and setting an event to be processed again. Pages follow
// webhook_events_received_idx (received_at desc, id): no OFFSET, no count of the whole table.

const DAY_MS = 24 * 60 * 60 * 1000;
// Dates outside this span are typos, and PostgreSQL cannot read the ISO form JavaScript writes for years past 9999.
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 0, 1);

const isSinceSpan = (text: string): text is WebhookSinceSpan => Object.hasOwn(WEBHOOK_SINCE_SPANS, text);

/** "Received since": a span back from now (1h, 24h, 7d, 30d), a day (YYYY-MM-DD, from its start in UTC) or an instant. */
function sinceField(now: Date) {
  return z
    .string()
    .trim()
    .transform((text, ctx) => {
      if (isSinceSpan(text)) return { text, at: new Date(now.getTime() - WEBHOOK_SINCE_SPANS[text].ms) };
      const parsed = z.union([z.iso.date(), z.iso.datetime({ offset: true })]).safeParse(text);
      const time = Date.parse(text);
      if (!parsed.success)
        ctx.addIssue({
          code: "custom",
          message: "not a span (1h, 24h, 7d, 30d), a date (YYYY-MM-DD) or an ISO date-time",
        });
      else if (!(time >= EARLIEST && time < LATEST)) ctx.addIssue({ code: "custom", message: "outside 1970–9998" });
      else return { text, at: new Date(time) };
      return z.NEVER;
    });
}

function webhookFilterFields(now: Date) {
  return z.object({
    /** webhook_event as sent, matched exactly: a known kind or any other name the upstream used. */
    kind: z
      .string()
      .trim()
      .max(100, "too long")
      .regex(/^[\x21-\x7e]+$/, "not an event kind"),
    verification: z.enum(webhookVerifications, { error: "not verified, late or refused" }),
    outcome: z.enum(webhookOutcomes, { error: "not a known outcome" }),
    link: z
      .string()
      .trim()
      .max(200, "too long")
      .regex(/^[\x21-\x7e]+$/, "not a link id"),
    since: sinceField(now),
    /** The last event of the page before: the next page starts after it. */
    cursor: z.uuid({ error: "not a page position from Linkdesk" }),
  });
}

type FilterFields = ReturnType<typeof webhookFilterFields>;
export type WebhookFilterParam = keyof FilterFields["shape"];
export const WEBHOOK_FILTER_PARAMS = [
  "kind",
  "verification",
  "outcome",
  "link",
  "since",
  "cursor",
] as const satisfies readonly WebhookFilterParam[];
export type WebhookFilters = Partial<z.output<FilterFields>>;
export type DroppedWebhookFilter = DroppedParam<WebhookFilterParam>;

/**
 * The URL's search parameters to filters, forgivingly: a bad value is dropped and reported, never thrown, so a
 * hand-edited or stale link still shows a page. Blank values mean "no filter"; unknown parameters are ignored.
 * A span ("24h") is counted back from `now`.
 */
export function parseWebhookFilters(
  params: RawParams | URLSearchParams,
  now = new Date(),
): { filters: WebhookFilters; dropped: DroppedWebhookFilter[] } {
  const raw = params instanceof URLSearchParams ? searchParamsToRecord(params) : params;
  const { values, dropped } = parseFieldByField(webhookFilterFields(now).shape, WEBHOOK_FILTER_PARAMS, raw);
  return { filters: values as WebhookFilters, dropped };
}

/** The filters back to URL parameters in a fixed order; the cursor only when given (the next page's link). */
export function webhookFiltersToSearchParams(filters: WebhookFilters, cursor?: string | null): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.kind) params.set("kind", filters.kind);
  if (filters.verification) params.set("verification", filters.verification);
  if (filters.outcome) params.set("outcome", filters.outcome);
  if (filters.link) params.set("link", filters.link);
  if (filters.since) params.set("since", filters.since.text);
  if (cursor) params.set("cursor", cursor);
  return params;
}

function filterConditions(filters: WebhookFilters): SQL | undefined {
  const conditions: SQL[] = [];
  if (filters.kind) conditions.push(eq(webhookEvents.event, filters.kind));
  if (filters.verification) conditions.push(eq(webhookEvents.verification, filters.verification));
  if (filters.outcome) conditions.push(eq(webhookEvents.outcome, filters.outcome));
  if (filters.link) conditions.push(eq(webhookEvents.linkId, filters.link));
  if (filters.since) conditions.push(gte(webhookEvents.receivedAt, filters.since.at));
  return and(...conditions);
}

/**
 * Rows after the cursor's row in (received_at desc, id) order, the index's. The URL carries only the row's id; its time
 * is read from the row. Not a row comparison: the index's two columns run in opposite directions.
 */
function afterCursor(cursorId: string): SQL {
  const at = sql`(select ${webhookEvents.receivedAt} from ${webhookEvents} where ${webhookEvents.id} = ${cursorId})`;
  return or(lt(webhookEvents.receivedAt, at), and(eq(webhookEvents.receivedAt, at), gt(webhookEvents.id, cursorId)))!;
}

async function selectPage(
  db: Db,
  filters: WebhookFilters,
  cursor: string | undefined,
  limit: number,
): Promise<WebhookEvent[]> {
  return db
    .select()
    .from(webhookEvents)
    .where(and(filterConditions(filters), cursor ? afterCursor(cursor) : undefined))
    .orderBy(desc(webhookEvents.receivedAt), asc(webhookEvents.id))
    .limit(limit);
}

/** One event as the page shows it: the row without its raw body, and the body's fields as text. */
export type WebhookEventView = Omit<WebhookEvent, "body"> & { body: BodyFields };

const toView = ({ body, ...row }: WebhookEvent): WebhookEventView => ({ ...row, body: bodyFields(body) });

/** One page, newest first, from `filters.cursor` on. `nextCursor` is null on the last page. */
export async function listWebhookEvents(
  db: Db,
  filters: WebhookFilters,
  { limit = 50 }: { limit?: number } = {},
): Promise<{ rows: WebhookEventView[]; nextCursor: string | null }> {
  // One row more than shown tells whether a next page exists, without counting.
  const rows = await selectPage(db, filters, filters.cursor, limit + 1);
  const shown = rows.slice(0, limit).map(toView);
  return { rows: shown, nextCursor: rows.length > limit ? shown[shown.length - 1]!.id : null };
}

export interface WebhookSummary {
  /** The start of the last 24 hours the counts below cover. */
  since: Date;
  received: number;
  verified: number;
  /** Signed by the upstream outside the window: not applied, their links read again. */
  late: number;
  refused: number;
  /** The refusals of the last 24 hours by their reason (the receiver's words), most frequent first. */
  refusalsByReason: { reason: string; count: number }[];
  /** Refusals whose reason is not among the ones listed. */
  otherRefusals: number;
  /** Waiting to be processed now, however old. */
  pending: number;
  /** Given up on, waiting for a person, however old. */
  failed: number;
  /** The newest request of any kind, and the newest verified event: how long the upstream has been quiet. */
  newestReceivedAt: Date | null;
  newestVerifiedAt: Date | null;
}

/** Reasons listed one by one in the summary; the rest are summed. */
export const SUMMARY_REASONS = 5;

/** Counts for the page's summary strip (each of them served by one of the table's indexes). */
export async function webhookSummary(db: Db, { now = new Date() }: { now?: Date } = {}): Promise<WebhookSummary> {
  const since = new Date(now.getTime() - DAY_MS);
  const counted = (condition: SQL) => sql<number>`count(*) filter (where ${condition})`.mapWith(Number);
  const [[day], reasons, [open], [newest], [newestVerified]] = await Promise.all([
    db
      .select({
        received: count(),
        verified: counted(eq(webhookEvents.verification, "verified")),
        late: counted(eq(webhookEvents.verification, "late")),
        refused: counted(eq(webhookEvents.verification, "refused")),
      })
      .from(webhookEvents)
      .where(gte(webhookEvents.receivedAt, since)),
    db
      .select({ reason: webhookEvents.refusal, count: count() })
      .from(webhookEvents)
      .where(and(gte(webhookEvents.receivedAt, since), eq(webhookEvents.verification, "refused")))
      .groupBy(webhookEvents.refusal)
      .orderBy(desc(count()), asc(webhookEvents.refusal))
      .limit(SUMMARY_REASONS),
    db
      .select({
        pending: counted(eq(webhookEvents.outcome, "pending")),
        failed: counted(eq(webhookEvents.outcome, "failed")),
      })
      .from(webhookEvents)
      .where(inArray(webhookEvents.outcome, ["pending", "failed"])),
    db.select({ at: webhookEvents.receivedAt }).from(webhookEvents).orderBy(desc(webhookEvents.receivedAt)).limit(1),
    db
      .select({ at: webhookEvents.receivedAt })
      .from(webhookEvents)
      .where(eq(webhookEvents.verification, "verified"))
      .orderBy(desc(webhookEvents.receivedAt))
      .limit(1),
  ]);
  const refusalsByReason = reasons.map((r) => ({ reason: r.reason ?? "No reason recorded", count: r.count }));
  const refused = day?.refused ?? 0;
  return {
    since,
    received: day?.received ?? 0,
    verified: day?.verified ?? 0,
    late: day?.late ?? 0,
    refused,
    refusalsByReason,
    otherRefusals: refused - refusalsByReason.reduce((sum, r) => sum + r.count, 0),
    pending: open?.pending ?? 0,
    failed: open?.failed ?? 0,
    newestReceivedAt: newest?.at ?? null,
    newestVerifiedAt: newestVerified?.at ?? null,
  };
}

export type LinkEvent = Pick<
  WebhookEvent,
  "id" | "event" | "receivedAt" | "eventAt" | "outcome" | "detail" | "processedAt"
>;

/** A link's newest events, newest first (webhook_events_link_idx). */
export async function listLinkEvents(db: Db, linkId: string, limit: number): Promise<LinkEvent[]> {
  return db
    .select({
      id: webhookEvents.id,
      event: webhookEvents.event,
      receivedAt: webhookEvents.receivedAt,
      eventAt: webhookEvents.eventAt,
      outcome: webhookEvents.outcome,
      detail: webhookEvents.detail,
      processedAt: webhookEvents.processedAt,
    })
    .from(webhookEvents)
    .where(eq(webhookEvents.linkId, linkId))
    .orderBy(desc(webhookEvents.receivedAt), asc(webhookEvents.id))
    .limit(limit);
}

export type RequeueResult =
  | { requeued: true; id: string; linkId: string | null; event: string | null; before: WebhookOutcome }
  | { requeued: false; reason: string; verification?: WebhookVerification };

/**
 * Sets a verified event to be processed again, at once: outcome back to pending, its next try now. The processor
 * applies it as it would a new one (an event older than what the link already shows changes nothing); a late one has
 * its link read again, as the first time. A refused request cannot be: it was never verified and its body was not
 * kept, so there is nothing to process.
 */
export async function requeueWebhookEvent(
  db: Db,
  id: string,
  { now = new Date() }: { now?: Date } = {},
): Promise<RequeueResult> {
  const [row] = await db
    .select({
      verification: webhookEvents.verification,
      outcome: webhookEvents.outcome,
      refusal: webhookEvents.refusal,
    })
    .from(webhookEvents)
    .where(eq(webhookEvents.id, id));
  if (!row) return { requeued: false, reason: "There is no such webhook event." };
  if (row.verification === "refused") {
    return {
      requeued: false,
      verification: row.verification,
      reason: `This request was refused (${row.refusal ?? "no reason recorded"}): it was never verified and its body was not kept, so there is nothing to process. The upstream sends it again if it did not get a 2xx.`,
    };
  }
  const [updated] = await db
    .update(webhookEvents)
    .set({ outcome: "pending", nextAttemptAt: now, detail: "Set to be processed again." })
    .where(and(eq(webhookEvents.id, id), inArray(webhookEvents.verification, ["verified", "late"])))
    .returning({ id: webhookEvents.id, linkId: webhookEvents.linkId, event: webhookEvents.event });
  if (!updated) return { requeued: false, reason: "There is no such webhook event." };
  return { requeued: true, ...updated, before: row.outcome };
}

/** The export's columns, in order, each with how a row fills it. */
const CSV_COLUMNS: readonly [string, (row: WebhookEvent) => string | number | null][] = [
  ["received_at", (r) => r.receivedAt.toISOString()],
  ["verification", (r) => r.verification],
  ["refusal", (r) => r.refusal],
  ["event", (r) => r.event],
  ["link_id", (r) => r.linkId],
  ["event_at", (r) => r.eventAt?.toISOString() ?? null],
  ["outcome", (r) => r.outcome],
  ["detail", (r) => r.detail],
  ["delivery_attempt", (r) => r.deliveryAttempt],
  ["redeliveries", (r) => r.redeliveries],
  ["last_received_at", (r) => r.lastReceivedAt.toISOString()],
  ["process_attempts", (r) => r.processAttempts],
  ["processed_at", (r) => r.processedAt?.toISOString() ?? null],
  ["idempotency_key", (r) => r.idempotencyKey],
  ["delivery_token", (r) => r.deliveryToken],
  ["kid", (r) => r.kid],
  ["source_address", (r) => r.sourceAddress],
  ["id", (r) => r.id],
  ["body", (r) => (r.body === null || r.body === undefined ? null : JSON.stringify(r.body))],
  // Last, so the columns exports had before keep their places.
  ["signed_at", (r) => r.signedAt?.toISOString() ?? null],
];

export const WEBHOOK_CSV_HEADER = CSV_COLUMNS.map(([name]) => name);

/**
 * The whole filtered view as CSV text chunks (header first, then one chunk per batch), newest first like the page.
 * `filters.cursor` is ignored: an export is of the view, not of one page. Batches page by keyset, so memory stays flat.
 */
export async function* streamWebhookCsv(
  db: Db,
  filters: WebhookFilters,
  { batchSize = 1000 }: { batchSize?: number } = {},
): AsyncGenerator<string, void, undefined> {
  yield csvRecord(WEBHOOK_CSV_HEADER);
  let cursor: string | undefined;
  for (;;) {
    const rows = await selectPage(db, filters, cursor, batchSize);
    if (rows.length > 0) yield rows.map((row) => csvRecord(CSV_COLUMNS.map(([, cell]) => cell(row)))).join("");
    if (rows.length < batchSize) return;
    cursor = rows[rows.length - 1]!.id;
  }
}
