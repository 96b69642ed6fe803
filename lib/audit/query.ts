import "server-only";
import { csvRecord } from "../http/csv";
import { and, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { type AuditEntry, auditLog, auditOutcomes } from "../db/schema";
import { AUDIT_ACTION_KEYS } from "./actions";
import { type DroppedParam, type RawParams, parseFieldByField, searchParamsToRecord } from "../http/url-params";

// Reading the audit trail: the Audit page's filters (kept in the URL), its pages and its CSV export. Every query pages
// by keyset on (at desc, id desc), which each audit_log index ends in, so the cost of a page does not grow with the
// table: no OFFSET, no count of the whole table.

/** Where a page ends: the last row shown. Opaque to the browser (base64url JSON). */
export interface AuditCursor {
  at: Date;
  id: number;
}

export function encodeAuditCursor(cursor: AuditCursor): string {
  return Buffer.from(JSON.stringify({ at: cursor.at.toISOString(), id: cursor.id })).toString("base64url");
}

const cursorPayloadSchema = z.object({
  at: z.iso.datetime(),
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

function decodeAuditCursor(text: string): AuditCursor | undefined {
  try {
    const parsed = cursorPayloadSchema.safeParse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
    return parsed.success ? { at: new Date(parsed.data.at), id: parsed.data.id } : undefined;
  } catch {
    return undefined;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;
// Dates outside this span are typos, and PostgreSQL cannot read the ISO form JavaScript writes for years past 9999.
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 0, 1);

/** A day (YYYY-MM-DD, a UTC day) or an instant (ISO 8601 with Z or an offset), as typed in the URL. */
const timeText = z
  .string()
  .trim()
  .pipe(
    z.union([z.iso.date(), z.iso.datetime({ offset: true })], { error: "not a date (YYYY-MM-DD) or an ISO date-time" }),
  )
  .refine((text) => {
    const time = Date.parse(text);
    return time >= EARLIEST && time < LATEST;
  }, "outside 1970–9998");

const isDay = (text: string) => text.length === 10;

/** One schema per URL parameter, strict: a value either means exactly one thing or is refused. */
export const auditFilterFields = z.object({
  /** An actor's email, matched exactly; emails are stored lower-cased. */
  person: z
    .string()
    .trim()
    .toLowerCase()
    .max(320, "too long")
    .regex(/^[^\s@]+@[^\s@]+$/, "not an email address"),
  action: z.enum(AUDIT_ACTION_KEYS, { error: "not a known action" }),
  link: z
    .string()
    .trim()
    .max(200, "too long")
    .regex(/^[\x21-\x7e]+$/, "not a link id"),
  outcome: z.enum(auditOutcomes, { error: "not a known outcome" }),
  /** One call's row(s): the id a job item, a log line or a correction's answer names. */
  correlation: z.uuid({ error: "not a correlation id" }),
  /** Inclusive: from the start of that day, or from that instant. */
  from: timeText.transform((text) => ({ text, at: new Date(text) })),
  /** Inclusive: to the end of that day, or to that instant. Kept as the exclusive bound `before`. */
  to: timeText.transform((text) => ({ text, before: new Date(Date.parse(text) + (isDay(text) ? DAY_MS : 1)) })),
  cursor: z
    .string()
    .max(200)
    .transform(
      (text, ctx) =>
        decodeAuditCursor(text) ??
        (ctx.addIssue({ code: "custom", message: "not a page position from Linkdesk" }), z.NEVER),
    ),
});

export type AuditFilterParam = keyof typeof auditFilterFields.shape;
export const AUDIT_FILTER_PARAMS = Object.keys(auditFilterFields.shape) as AuditFilterParam[];
export type AuditFilters = Partial<z.output<typeof auditFilterFields>>;

/** A URL parameter that was ignored, with the value as given (show it as text only) and why. */
export type DroppedFilter = DroppedParam<AuditFilterParam>;

/**
 * The URL's search parameters to filters, forgivingly: a bad value is dropped and reported, never thrown, so a
 * hand-edited or stale link still shows a page. Blank values (as a GET form sends for empty fields) mean "no filter";
 * unknown parameters are ignored.
 */
export const auditFiltersSchema = z
  .custom<RawParams>((value) => typeof value === "object" && value !== null)
  .transform((params) => {
    const { values, dropped } = parseFieldByField(auditFilterFields.shape, AUDIT_FILTER_PARAMS, params);
    const filters = values as AuditFilters;
    if (filters.from && filters.to && filters.from.at >= filters.to.before) {
      dropped.push({ param: "from", value: filters.from.text, reason: "after the end of the range" });
      dropped.push({ param: "to", value: filters.to.text, reason: "before the start of the range" });
      delete filters.from;
      delete filters.to;
    }
    return { filters, dropped };
  });

export function parseAuditFilters(params: RawParams | URLSearchParams): {
  filters: AuditFilters;
  dropped: DroppedFilter[];
} {
  return auditFiltersSchema.parse(params instanceof URLSearchParams ? searchParamsToRecord(params) : params);
}

/** The filters back to URL parameters, in a fixed order; the cursor only when asked for (the next page's link). */
export function auditFiltersToSearchParams(filters: AuditFilters, cursor?: AuditCursor | null): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.person) params.set("person", filters.person);
  if (filters.action) params.set("action", filters.action);
  if (filters.link) params.set("link", filters.link);
  if (filters.outcome) params.set("outcome", filters.outcome);
  if (filters.correlation) params.set("correlation", filters.correlation);
  if (filters.from) params.set("from", filters.from.text);
  if (filters.to) params.set("to", filters.to.text);
  if (cursor) params.set("cursor", encodeAuditCursor(cursor));
  return params;
}

function filterConditions(filters: AuditFilters): SQL | undefined {
  const conditions: SQL[] = [];
  if (filters.person) conditions.push(eq(auditLog.actorEmail, filters.person));
  if (filters.action) conditions.push(eq(auditLog.action, filters.action));
  if (filters.link) conditions.push(eq(auditLog.linkId, filters.link));
  if (filters.outcome) conditions.push(eq(auditLog.outcome, filters.outcome));
  if (filters.correlation) conditions.push(eq(auditLog.correlationId, filters.correlation));
  if (filters.from) conditions.push(gte(auditLog.at, filters.from.at));
  if (filters.to) conditions.push(lt(auditLog.at, filters.to.before));
  return and(...conditions);
}

/** Rows strictly after the cursor in newest-first order; a row comparison, which the (…, at desc, id desc) indexes serve. */
const afterCursor = (cursor: AuditCursor): SQL =>
  sql`(${auditLog.at}, ${auditLog.id}) < (${cursor.at.toISOString()}::timestamptz, ${cursor.id}::bigint)`;

async function selectPage(
  db: Db,
  filters: AuditFilters,
  cursor: AuditCursor | undefined,
  limit: number,
): Promise<AuditEntry[]> {
  return db
    .select()
    .from(auditLog)
    .where(and(filterConditions(filters), cursor ? afterCursor(cursor) : undefined))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(limit);
}

const cursorOf = (row: AuditEntry): AuditCursor => ({ at: row.at, id: row.id });

/** One page, newest first, from `filters.cursor` on. `nextCursor` is null on the last page. */
export async function listAudit(
  db: Db,
  filters: AuditFilters,
  { limit = 50 }: { limit?: number } = {},
): Promise<{ rows: AuditEntry[]; nextCursor: AuditCursor | null }> {
  // One row more than shown tells whether a next page exists, without counting.
  const rows = await selectPage(db, filters, filters.cursor, limit + 1);
  if (rows.length <= limit) return { rows, nextCursor: null };
  const shown = rows.slice(0, limit);
  return { rows: shown, nextCursor: cursorOf(shown[shown.length - 1]!) };
}

/** The export's columns, in order, each with how a row fills it. */
const CSV_COLUMNS: readonly [string, (row: AuditEntry) => string | number | null][] = [
  ["at", (r) => r.at.toISOString()],
  ["actor_email", (r) => r.actorEmail],
  ["actor_role", (r) => r.actorRole],
  ["action", (r) => r.action],
  ["outcome", (r) => r.outcome],
  ["target_type", (r) => r.targetType],
  ["target_id", (r) => r.targetId],
  ["link_id", (r) => r.linkId],
  ["upstream_status", (r) => r.upstreamStatus],
  ["upstream_error_code", (r) => r.upstreamErrorCode],
  ["correlation_id", (r) => r.correlationId],
  ["ip", (r) => r.ip],
  ["input", (r) => jsonText(r.input)],
  ["before", (r) => jsonText(r.before)],
  ["after", (r) => jsonText(r.after)],
];

export const AUDIT_CSV_HEADER = CSV_COLUMNS.map(([name]) => name);

const jsonText = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/**
 * The whole filtered view as CSV text chunks (header first, then one chunk per batch), newest first like the page.
 * `filters.cursor` is ignored: an export is of the view, not of one page. Batches page by keyset, so memory stays
 * flat however many rows match. Rows appended while it runs are stamped newer than the first batch (`at` is the
 * appending transaction's start), so they are left out unless that transaction began before the export did.
 */
export async function* streamAuditCsv(
  db: Db,
  filters: AuditFilters,
  { batchSize = 1000 }: { batchSize?: number } = {},
): AsyncGenerator<string, void, undefined> {
  yield csvRecord(AUDIT_CSV_HEADER);
  let cursor: AuditCursor | undefined;
  for (;;) {
    const rows = await selectPage(db, filters, cursor, batchSize);
    if (rows.length > 0) yield rows.map((row) => csvRecord(CSV_COLUMNS.map(([, cell]) => cell(row)))).join("");
    if (rows.length < batchSize) return;
    cursor = cursorOf(rows[rows.length - 1]!);
  }
}
