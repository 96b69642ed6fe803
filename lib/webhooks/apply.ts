import "server-only";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { LINK_ERROR_INFO } from "../links/error-codes";
import { NOT_KNOWN_TO_LINKDESK } from "./labels";

// What a verified event changes in the read model (table links), at once, so the links list, a link's page and
// Health show it without waiting for the sync. Every change is guarded by the event's webhook_timestamp: an event
// older than one already applied, or than the link's last full read (seen_at), changes nothing, so events arriving out
// of order or redelivered never turn a link back. A link Linkdesk did not know is learned here (learned_from webhook)
// with what the event says; its full details come with the sync's next reads, which take never-read links first.
// What cannot be applied as an event is never lost: an event signed outside the window (late) or of a kind Linkdesk
// does not know asks for its link to be read again from the upstream (links.read_requested_at, read by the sync at its
// pace within the rate budget), unless Linkdesk's copy was read after the event already. A value outside today's lists
// (a state, an error code, a product) is applied as sent: the read model stores strings, and pages mark it.

export type ApplyResult = {
  outcome: "processed" | "unknown_kind" | "read_again";
  detail: string;
  linkId: string;
  transactionsChanged?: true;
};

export const KNOWN_EVENTS = ["link.state_changed", "link.product_refresh", "transactions.updates_available"] as const;

// Values are read as any string (bounded): the upstream's lists grow (facts §3.3, §15), and a value this version does
// not know is applied and shown as itself, never refused.
const value = z.string().min(1).max(100);

const stateChangedSchema = z.looseObject({
  state: value,
  error: value.nullish(),
});

const productRefreshSchema = z.looseObject({
  product: value,
  state: value,
  state_changed_at: z.string().refine((v) => !Number.isNaN(Date.parse(v)), "is not a date and time"),
  error_message: z.string().max(2000).nullish(),
});

const PRODUCTS = ["accounts", "account_numbers", "identity", "transactions", "investments", "enrichment"];
const PRODUCT_STATES = ["pending", "in_progress", "completed", "failed"];

/** Raised for an event whose fields do not fit its kind: processing fails in words, and may be retried by a person. */
export class EventNotUnderstood extends Error {}

const STATE_WORDS: Record<string, string> = {
  connecting: "connecting",
  awaiting_token_exchange: "awaiting token exchange",
  connected: "connected",
  deleted: "deleted",
  error: "in error",
};

const notKnown = (what: string, sent: string) => `${what} "${sent}" (${NOT_KNOWN_TO_LINKDESK})`;

const stateWords = (state: string) =>
  Object.hasOwn(STATE_WORDS, state) ? STATE_WORDS[state]! : `in ${notKnown("state", state)}`;

const errorLabel = (code: string) =>
  Object.hasOwn(LINK_ERROR_INFO, code)
    ? LINK_ERROR_INFO[code as keyof typeof LINK_ERROR_INFO].label.toLowerCase()
    : notKnown("error code", code);

const productWords = (product: string) =>
  PRODUCTS.includes(product) ? product.replace("_", " ") : notKnown("product", product);

const productStateWords = (state: string) =>
  PRODUCT_STATES.includes(state) ? state.replace("_", " ") : notKnown("state", state);

interface EventRow {
  id: string;
  /** Only a verified event is applied as an event; a late one has its link read again (verify.ts). */
  verification: "verified" | "late" | "refused";
  event: string | null;
  linkId: string | null;
  eventAt: Date | null;
  signedAt: Date | null;
  receivedAt: Date;
  body: unknown;
}

/** An event checked against its kind, ready to apply. */
export type PreparedEvent = { id: string; linkId: string; tags: string[] } & (
  | { kind: "link.state_changed"; eventAt: string; state: string; errorCode: string | null }
  | { kind: "link.product_refresh"; product: string; productState: string; at: string; patch: Record<string, unknown> }
  | { kind: "transactions.updates_available"; eventAt: string }
  | { kind: "unknown"; event: string | null; eventAt: string }
  | { kind: "late"; event: string | null; eventAt: string; late: string }
);

/** Checks an event's fields against its kind; raises EventNotUnderstood for one that does not fit (no statement runs). */
export function prepareWebhookEvent(row: EventRow, now: Date): PreparedEvent {
  const linkId = row.linkId ?? "";
  const eventAt = (row.eventAt ?? now).toISOString();
  const body = (row.body ?? {}) as Record<string, unknown>;
  const tags = Array.isArray(body.link_tags) ? body.link_tags.filter((t): t is string => typeof t === "string") : [];
  const base = { id: row.id, linkId, tags };
  // Whatever it says, a late delivery is never applied as an event: it may be an old one replayed.
  if (row.verification !== "verified")
    return { ...base, kind: "late", event: row.event, eventAt, late: lateWords(row) };
  switch (row.event) {
    case "link.state_changed": {
      const parsed = stateChangedSchema.safeParse(body);
      if (!parsed.success)
        throw new EventNotUnderstood(
          `A link.state_changed event without a valid state (${parsed.error.issues[0]?.path.join(".")}).`,
        );
      const { state, error } = parsed.data;
      // An error code belongs to state error (facts §11); with a state this version does not know, it is kept as sent.
      const errorCode =
        state === "error" ? (error ?? "system_error") : Object.hasOwn(STATE_WORDS, state) ? null : error;
      return { ...base, kind: row.event, eventAt, state, errorCode: errorCode ?? null };
    }
    case "link.product_refresh": {
      const parsed = productRefreshSchema.safeParse(body);
      if (!parsed.success)
        throw new EventNotUnderstood(
          `A link.product_refresh event without a valid ${parsed.error.issues[0]?.path.join(".") ?? "field"}.`,
        );
      const { product, state } = parsed.data;
      const at = new Date(parsed.data.state_changed_at).toISOString();
      // The product's status object, as the spec describes it: an attempt always, a success on completion.
      const patch: Record<string, unknown> = { last_attempted_at: at };
      if (state === "completed") Object.assign(patch, { refreshed_at: at, error_code: null, error_message: null });
      if (state === "failed")
        Object.assign(patch, { error_message: parsed.data.error_message ?? "The refresh failed." });
      return { ...base, kind: row.event, product, productState: state, at, patch };
    }
    case "transactions.updates_available":
      return { ...base, kind: row.event, eventAt };
    default:
      return { ...base, kind: "unknown", event: row.event, eventAt };
  }
}

/** "Signed 412 s before it arrived": why a late delivery was not applied. */
function lateWords(row: Pick<EventRow, "signedAt" | "receivedAt">): string {
  if (!row.signedAt) return "Signed outside the window.";
  const seconds = Math.round((row.receivedAt.getTime() - row.signedAt.getTime()) / 1000);
  return seconds >= 0
    ? `Signed ${seconds} s before it arrived (a retry after the upstream's back-off, or a replay).`
    : `Signed ${-seconds} s ahead of Linkdesk's clock.`;
}

/** The rows of one statement, as a jsonb array the statement reads with jsonb_to_recordset. */
const rowsOf = (rows: Record<string, unknown>[]) => JSON.stringify(rows);

/**
 * Applies prepared events in order: a link's events one after another, as if each were applied alone; the links of a
 * batch side by side, one statement per kind for all of them (a statement costs more than the rows it writes,
 * PGlite's most of all). So the events go in waves: the first event of every link, then the second, and so on.
 * Rows are locked in link-id order first, as every instance's batches do, so two batches wait instead of deadlocking.
 */
export async function applyWebhookEvents(
  tx: Db,
  events: PreparedEvent[],
  now: Date,
): Promise<Map<string, ApplyResult>> {
  const results = new Map<string, ApplyResult>();
  const byLink = new Map<string, PreparedEvent[]>();
  for (const event of events) {
    const queue = byLink.get(event.linkId);
    if (queue) queue.push(event);
    else byLink.set(event.linkId, [event]);
  }
  if (byLink.size === 0) return results;
  const linkIds = [...byLink.keys()].sort();
  await tx.execute(
    sql`select 1 from links where link_id in (select jsonb_array_elements_text(${JSON.stringify(linkIds)}::jsonb)) order by link_id for update`,
  );
  const nowIso = now.toISOString();
  for (let wave = 0; ; wave++) {
    const current = linkIds.flatMap((linkId) => byLink.get(linkId)![wave] ?? []);
    if (current.length === 0) break;
    const ofKind = <K extends PreparedEvent["kind"]>(kind: K) =>
      current.filter((e): e is Extract<PreparedEvent, { kind: K }> => e.kind === kind);
    await applyStateChanges(tx, ofKind("link.state_changed"), nowIso, results);
    await applyProductRefreshes(tx, ofKind("link.product_refresh"), nowIso, results);
    await applyTransactionChanges(tx, ofKind("transactions.updates_available"), nowIso, results);
    await requestLinkReads(tx, [...ofKind("unknown"), ...ofKind("late")], nowIso, results);
  }
  return results;
}

type Of<K extends PreparedEvent["kind"]> = Extract<PreparedEvent, { kind: K }>;

/**
 * State and error code, guarded by the event's webhook_timestamp: an event older than one already applied, or than
 * the link's last full read (seen_at), changes nothing.
 */
async function applyStateChanges(
  tx: Db,
  events: Of<"link.state_changed">[],
  now: string,
  results: Map<string, ApplyResult>,
): Promise<void> {
  if (events.length === 0) return;
  const values = rowsOf(
    events.map((e) => ({
      link_id: e.linkId,
      state: e.state,
      error_code: e.errorCode,
      tags: e.tags,
      event_at: e.eventAt,
    })),
  );
  const { rows } = await tx.execute<{ link_id: string; inserted: boolean }>(sql`
    insert into links (link_id, state, error_code, link_tags, learned_from, learned_at, event_at, deleted_seen_at, updated_at)
    select v.link_id, v.state, v.error_code, array(select jsonb_array_elements_text(v.tags)), 'webhook', ${now}::timestamptz, v.event_at,
      case when v.state = 'deleted' then v.event_at end, ${now}::timestamptz
    from jsonb_to_recordset(${values}::jsonb) as v(link_id text, state text, error_code text, tags jsonb, event_at timestamptz)
    order by v.link_id
    on conflict (link_id) do update set
      state = excluded.state,
      error_code = excluded.error_code,
      raw = case when links.raw is null then null
        else jsonb_set(jsonb_set(links.raw, '{state}', to_jsonb(excluded.state)), '{error_code}', coalesce(to_jsonb(excluded.error_code), 'null'::jsonb)) end,
      deleted_seen_at = case when excluded.state = 'deleted' then coalesce(links.deleted_seen_at, excluded.event_at) else null end,
      event_at = excluded.event_at,
      updated_at = excluded.updated_at
    where (links.event_at is null or links.event_at < excluded.event_at) and (links.seen_at is null or links.seen_at <= excluded.event_at)
    returning link_id, (xmax = 0) as inserted
  `);
  const applied = new Map(rows.map((row) => [row.link_id, row.inserted]));
  for (const e of events) {
    const words = !e.errorCode
      ? stateWords(e.state)
      : Object.hasOwn(LINK_ERROR_INFO, e.errorCode)
        ? `${stateWords(e.state)} (${errorLabel(e.errorCode)})`
        : `${stateWords(e.state)}, with ${errorLabel(e.errorCode)}`;
    const inserted = applied.get(e.linkId);
    const detail =
      inserted === undefined
        ? `Link ${words}: older than what Linkdesk already knew, nothing changed.`
        : inserted
          ? `New link learned, ${words}.`
          : `Link now ${words}.`;
    results.set(e.id, { outcome: "processed", linkId: e.linkId, detail });
  }
}

/** A product's status object patched, and the link's last refresh moved on by a completed one; a new link is learned. */
async function applyProductRefreshes(
  tx: Db,
  events: Of<"link.product_refresh">[],
  now: string,
  results: Map<string, ApplyResult>,
): Promise<void> {
  if (events.length === 0) return;
  const values = rowsOf(
    events.map((e) => ({
      link_id: e.linkId,
      tags: e.tags,
      product: e.product,
      completed: e.productState === "completed",
      at: e.at,
      patch: e.patch,
    })),
  );
  // Known links are updated; the others are learned with what the event says (nothing of the product: no raw yet).
  const { rows: updated } = await tx.execute<{ link_id: string }>(sql`
    update links set
      raw = case when links.raw is null or links.raw->'products'->v.product is null then links.raw
        else jsonb_set(links.raw, array['products', v.product]::text[], (links.raw->'products'->v.product) || v.patch) end,
      last_refreshed_at = case when v.completed then greatest(links.last_refreshed_at, v.at) else links.last_refreshed_at end,
      updated_at = ${now}::timestamptz
    from jsonb_to_recordset(${values}::jsonb) as v(link_id text, tags jsonb, product text, completed boolean, at timestamptz, patch jsonb)
    where links.link_id = v.link_id
    returning links.link_id
  `);
  const known = new Set(updated.map((row) => row.link_id));
  const unknown = events.filter((e) => !known.has(e.linkId));
  if (unknown.length > 0) {
    await tx.execute(sql`
      insert into links (link_id, link_tags, learned_from, learned_at, updated_at)
      select v.link_id, array(select jsonb_array_elements_text(v.tags)), 'webhook', ${now}::timestamptz, ${now}::timestamptz
      from jsonb_to_recordset(${rowsOf(unknown.map((e) => ({ link_id: e.linkId, tags: e.tags })))}::jsonb) as v(link_id text, tags jsonb)
      order by v.link_id
      on conflict (link_id) do update set updated_at = excluded.updated_at
    `);
  }
  for (const e of events) {
    const what = `${productWords(e.product)} refresh ${productStateWords(e.productState)}`;
    results.set(e.id, {
      outcome: "processed",
      linkId: e.linkId,
      detail: known.has(e.linkId) ? `${what[0]!.toUpperCase()}${what.slice(1)}.` : `New link learned (${what}).`,
    });
  }
}

/** A marker that the link's transactions changed (its pages read them again); a new link is learned. */
async function applyTransactionChanges(
  tx: Db,
  events: Of<"transactions.updates_available">[],
  now: string,
  results: Map<string, ApplyResult>,
): Promise<void> {
  if (events.length === 0) return;
  const values = rowsOf(events.map((e) => ({ link_id: e.linkId, tags: e.tags, event_at: e.eventAt })));
  const { rows } = await tx.execute<{ link_id: string; inserted: boolean }>(sql`
    insert into links (link_id, link_tags, learned_from, learned_at, transactions_changed_at, updated_at)
    select v.link_id, array(select jsonb_array_elements_text(v.tags)), 'webhook', ${now}::timestamptz, v.event_at, ${now}::timestamptz
    from jsonb_to_recordset(${values}::jsonb) as v(link_id text, tags jsonb, event_at timestamptz)
    order by v.link_id
    on conflict (link_id) do update set
      transactions_changed_at = greatest(links.transactions_changed_at, excluded.transactions_changed_at),
      updated_at = excluded.updated_at
    returning link_id, (xmax = 0) as inserted
  `);
  const inserted = new Set(rows.filter((row) => row.inserted).map((row) => row.link_id));
  for (const e of events) {
    results.set(e.id, {
      outcome: "processed",
      linkId: e.linkId,
      transactionsChanged: true,
      detail: inserted.has(e.linkId)
        ? "New link learned; its transactions changed."
        : "Transactions changed: the link's pages read them again.",
    });
  }
}

/**
 * The link of each event that cannot be applied (late, or of a kind Linkdesk does not know) is to be read again from
 * the upstream: links.read_requested_at, which the sync reads at its pace and within the rate budget
 * (lib/sync/queries.ts, requestedLinkIds). The request is the event's time (never later than now): a read made after
 * it already holds what the event said, so a flood of retries of one event costs one read at most, and none once the
 * link was read after it. A link Linkdesk did not know is learned (learned from: webhook) and read like any new one.
 */
async function requestLinkReads(
  tx: Db,
  events: (Of<"unknown"> | Of<"late">)[],
  now: string,
  results: Map<string, ApplyResult>,
): Promise<void> {
  if (events.length === 0) return;
  const values = rowsOf(events.map((e) => ({ link_id: e.linkId, tags: e.tags, asked_at: e.eventAt })));
  const { rows } = await tx.execute<{ link_id: string; inserted: boolean }>(sql`
    insert into links (link_id, link_tags, learned_from, learned_at, read_requested_at, updated_at)
    select v.link_id, array(select jsonb_array_elements_text(v.tags)), 'webhook', ${now}::timestamptz,
      least(v.asked_at, ${now}::timestamptz), ${now}::timestamptz
    from jsonb_to_recordset(${values}::jsonb) as v(link_id text, tags jsonb, asked_at timestamptz)
    order by v.link_id
    on conflict (link_id) do update set read_requested_at = greatest(links.read_requested_at, excluded.read_requested_at)
    where links.seen_at is null or links.seen_at < excluded.read_requested_at
    returning link_id, (xmax = 0) as inserted
  `);
  const asked = new Map(rows.map((row) => [row.link_id, row.inserted]));
  for (const e of events) {
    const inserted = asked.get(e.linkId);
    const read =
      inserted === undefined
        ? "Linkdesk's copy of the link was read after the event, so there is nothing more to read"
        : inserted
          ? "new link learned; it is read from the upstream"
          : "the link is read again from the upstream";
    results.set(
      e.id,
      e.kind === "late"
        ? { outcome: "read_again", linkId: e.linkId, detail: `${e.late} Not applied as an event: ${read}.` }
        : {
            outcome: "unknown_kind",
            linkId: e.linkId,
            detail: `A kind ${NOT_KNOWN_TO_LINKDESK} (${e.event ?? "none"}): kept as received, nothing applied; ${read}.`,
          },
    );
  }
}
