import "server-only";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { LINK_ERROR_INFO } from "../links/error-codes";

// What a verified event changes in the read model (table links), at once, so the links list, a link's page and
// Health show it without waiting for the sync. Every change is guarded by the event's webhook_timestamp: an event
// older than one already applied, or than the link's last full read (seen_at), changes nothing, so events arriving out
// of order or redelivered never turn a link back. A link Linkdesk did not know is learned here (learned_from webhook)
// with what the event says; its full details come with the sync's next reads, which take never-read links first.

export type ApplyResult = { outcome: "processed" | "unknown_kind"; detail: string; linkId: string; transactionsChanged?: true };

export const KNOWN_EVENTS = ["link.state_changed", "link.product_refresh", "transactions.updates_available"] as const;

const stateChangedSchema = z.looseObject({
  state: z.enum(["connecting", "awaiting_token_exchange", "connected", "deleted", "error"]),
  error: z.string().min(1).max(100).nullish(),
});

const PRODUCTS = ["accounts", "account_numbers", "identity", "transactions", "investments", "enrichment"] as const;
const productRefreshSchema = z.looseObject({
  product: z.enum(PRODUCTS),
  state: z.enum(["pending", "in_progress", "completed", "failed"]),
  state_changed_at: z.string().refine((v) => !Number.isNaN(Date.parse(v)), "is not a date and time"),
  error_message: z.string().max(2000).nullish(),
});

/** Raised for an event whose fields do not fit its kind: processing fails in words, and may be retried by a person. */
export class EventNotUnderstood extends Error {}

const STATE_WORDS: Record<string, string> = {
  connecting: "connecting",
  awaiting_token_exchange: "awaiting token exchange",
  connected: "connected",
  deleted: "deleted",
  error: "in error",
};

const errorLabel = (code: string) => (code in LINK_ERROR_INFO ? LINK_ERROR_INFO[code as keyof typeof LINK_ERROR_INFO].label.toLowerCase() : `error code ${code}`);

/** A text[] from the event's tags (a bare JS array would be spread into one parameter per element). */
const tagsArray = (tags: string[]) => sql`array(select jsonb_array_elements_text(${JSON.stringify(tags)}::jsonb))`;

interface EventRow {
  event: string | null;
  linkId: string | null;
  eventAt: Date | null;
  body: unknown;
}

export async function applyWebhookEvent(tx: Db, row: EventRow, now: Date): Promise<ApplyResult> {
  const linkId = row.linkId ?? "";
  const eventAt = row.eventAt ?? now;
  const body = (row.body ?? {}) as Record<string, unknown>;
  const tags = Array.isArray(body.link_tags) ? body.link_tags.filter((t): t is string => typeof t === "string") : [];
  switch (row.event) {
    case "link.state_changed": {
      const parsed = stateChangedSchema.safeParse(body);
      if (!parsed.success) throw new EventNotUnderstood(`A link.state_changed event without a valid state (${parsed.error.issues[0]?.path.join(".")}).`);
      const { state } = parsed.data;
      const errorCode = state === "error" ? (parsed.data.error ?? "system_error") : null;
      const result = await tx.execute<{ inserted: boolean }>(sql`
        insert into links (link_id, state, error_code, link_tags, learned_from, learned_at, event_at, deleted_seen_at, updated_at)
        values (${linkId}, ${state}, ${errorCode}, ${tagsArray(tags)}, 'webhook', ${now.toISOString()}::timestamptz, ${eventAt.toISOString()}::timestamptz,
          ${state === "deleted" ? eventAt.toISOString() : null}::timestamptz, ${now.toISOString()}::timestamptz)
        on conflict (link_id) do update set
          state = excluded.state,
          error_code = excluded.error_code,
          raw = case when links.raw is null then null
            else jsonb_set(jsonb_set(links.raw, '{state}', to_jsonb(excluded.state)), '{error_code}', coalesce(to_jsonb(excluded.error_code), 'null'::jsonb)) end,
          deleted_seen_at = case when excluded.state = 'deleted' then coalesce(links.deleted_seen_at, excluded.event_at) else null end,
          event_at = excluded.event_at,
          updated_at = excluded.updated_at
        where (links.event_at is null or links.event_at < excluded.event_at) and (links.seen_at is null or links.seen_at <= excluded.event_at)
        returning (xmax = 0) as inserted
      `);
      const applied = result.rows[0];
      const words = `${STATE_WORDS[state]}${errorCode ? ` (${errorLabel(errorCode)})` : ""}`;
      if (!applied) return { outcome: "processed", linkId, detail: `Link ${words}: older than what Linkdesk already knew, nothing changed.` };
      return { outcome: "processed", linkId, detail: applied.inserted ? `New link learned, ${words}.` : `Link now ${words}.` };
    }
    case "link.product_refresh": {
      const parsed = productRefreshSchema.safeParse(body);
      if (!parsed.success) throw new EventNotUnderstood(`A link.product_refresh event without a valid ${parsed.error.issues[0]?.path.join(".") ?? "field"}.`);
      const { product, state } = parsed.data;
      const at = new Date(parsed.data.state_changed_at).toISOString();
      // The product's status object, as the spec describes it: an attempt always, a success on completion.
      const patch: Record<string, unknown> = { last_attempted_at: at };
      if (state === "completed") Object.assign(patch, { refreshed_at: at, error_code: null, error_message: null });
      if (state === "failed") Object.assign(patch, { error_message: parsed.data.error_message ?? "The refresh failed." });
      const result = await tx.execute<{ inserted: boolean }>(sql`
        insert into links (link_id, link_tags, learned_from, learned_at, updated_at)
        values (${linkId}, ${tagsArray(tags)}, 'webhook', ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)
        on conflict (link_id) do update set
          raw = case when links.raw is null or links.raw->'products'->${product} is null then links.raw
            else jsonb_set(links.raw, ${sql`array['products', ${product}]::text[]`}, (links.raw->'products'->${product}) || ${JSON.stringify(patch)}::jsonb) end,
          last_refreshed_at = case when ${state} = 'completed' then greatest(links.last_refreshed_at, ${at}::timestamptz) else links.last_refreshed_at end,
          updated_at = excluded.updated_at
        returning (xmax = 0) as inserted
      `);
      const inserted = result.rows[0]?.inserted === true;
      const what = `${product.replace("_", " ")} refresh ${state.replace("_", " ")}`;
      return { outcome: "processed", linkId, detail: inserted ? `New link learned (${what}).` : `${what[0]!.toUpperCase()}${what.slice(1)}.` };
    }
    case "transactions.updates_available": {
      const result = await tx.execute<{ inserted: boolean }>(sql`
        insert into links (link_id, link_tags, learned_from, learned_at, transactions_changed_at, updated_at)
        values (${linkId}, ${tagsArray(tags)}, 'webhook', ${now.toISOString()}::timestamptz, ${eventAt.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)
        on conflict (link_id) do update set
          transactions_changed_at = greatest(links.transactions_changed_at, excluded.transactions_changed_at),
          updated_at = excluded.updated_at
        returning (xmax = 0) as inserted
      `);
      const inserted = result.rows[0]?.inserted === true;
      return {
        outcome: "processed",
        linkId,
        transactionsChanged: true,
        detail: inserted ? "New link learned; its transactions changed." : "Transactions changed: the link's pages read them again.",
      };
    }
    default:
      return { outcome: "unknown_kind", linkId, detail: `An event kind Linkdesk does not know (${row.event ?? "none"}): kept as received, nothing changed.` };
  }
}
