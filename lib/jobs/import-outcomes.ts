import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { importFileRows } from "../db/schema";
import {
  type ReconciliationOutcome,
  type ReconciliationRow,
  RECONCILIATION_HEADER,
  reconciliationRecord,
} from "../import/reconcile";
import { csvRecord } from "../http/csv";
import { linkPath } from "../import/positions";
import type { ImportResult } from "./import-items";

// What each link of an import job's file became, for the job's page, its CSV (the reconciliation report) and its
// totals: the rows planning wrote (import-start.ts) joined with the outcome of their items.

/** Per link of an import job's file: where it is, the link it made, and what matches it back to the old system. */
export interface ImportLinkOutcome extends ReconciliationRow {
  position: number;
  /** Of the link's calls: waiting, importing, done, failed, skipped, cancelled; "–" for a link not planned. */
  state: string;
  linkState: string | null;
  errorCode: string | null;
  calls: number;
  callsDone: number;
  transactions: number;
}

type GroupRow = {
  position: number;
  line: number | null;
  column: number | null;
  format: string | null;
  identity_key: string | null;
  customer_user_id: string | null;
  tags: string[] | null;
  planned: string | null;
  known_link_id: string | null;
  row_reason: string | null;
  first_state: string | null;
  link_id: string | null;
  result: ImportResult | null;
  replaced_link_id: string | null;
  calls: number | null;
  calls_done: number | null;
  failed: number | null;
  active: number | null;
  transactions: number | null;
  reason: string | null;
  deleted_by: string | null;
  deleted_at: Date | string | null;
  link_state_now: string | null;
};

/** Planning's decisions for links the upstream held (import-start.ts): the reconciliation's outcome for each. */
const NOT_PLANNED: Record<string, ReconciliationOutcome> = {
  invalid: "invalid",
  duplicate: "duplicate",
  already_imported: "already_imported",
  at_upstream: "at_upstream",
  possible_match: "possible_match",
  ambiguous: "ambiguous",
  deleted_upstream: "deleted_upstream",
  unchecked: "unchecked",
};

/**
 * Whether a link the import created or updated was deleted since: by an undo (who, when), or seen deleted at the
 * upstream by the read model (deleted outside Linkdesk).
 */
const DELETED_SINCE = sql`
  left join lateral (
    select j.created_by_email as deleted_by, ui.finished_at as deleted_at from job_items ui join jobs j on j.id = ui.job_id
    where j.kind = 'import-undo' and ui.link_id = coalesce(g.link_id, r.link_id) and ui.state = 'done'
    order by ui.finished_at desc limit 1
  ) u on true
  left join links l on l.link_id = coalesce(g.link_id, r.link_id)`;

// The link's own calls (the import and its batches) decide its outcome; the optional category phase after them does not.
// A replaced link's deletion, first in the group, counts as one of its calls; the link is the import call's.
const GROUP_COLUMNS = sql`
  (array_agg(i.state order by i.seq) filter (where i.input->>'step' <> 'retire'))[1] as first_state,
  max(i.link_id) filter (where i.input->>'step' <> 'retire') as link_id,
  (array_agg(i.result order by i.seq) filter (where i.input->>'step' <> 'retire'))[1] as result,
  max(i.input->>'linkId') filter (where i.input->>'step' = 'retire') as replaced_link_id,
  count(i.*) filter (where i.input->>'step' <> 'category')::int as calls,
  count(*) filter (where i.state = 'done' and i.input->>'step' <> 'category')::int as calls_done,
  count(*) filter (where i.state = 'failed' and i.input->>'step' <> 'category')::int as failed,
  count(*) filter (where i.state in ('pending', 'sent') and i.input->>'step' <> 'category')::int as active,
  coalesce(sum((i.result->>'transactions')::int) filter (where i.state = 'done'), 0)::int as transactions,
  (array_agg(i.reason order by i.seq) filter (where i.state in ('failed', 'skipped', 'cancelled')))[1] as reason`;

/**
 * Every link of an import job's file, in file order: the rows planning wrote (lib/db/schema.ts importFileRows) with
 * the outcome of the planned ones from their items. Jobs planned before those rows existed list their items' groups.
 */
export async function readImportOutcomes(
  db: Db,
  jobId: string,
  opts: { limit?: number; offset?: number } = {},
): Promise<ImportLinkOutcome[]> {
  const limit = opts.limit ?? 1000;
  const offset = opts.offset ?? 0;
  const [hasRows] = await db
    .select({ jobId: importFileRows.jobId })
    .from(importFileRows)
    .where(eq(importFileRows.jobId, jobId))
    .limit(1);
  const rows = hasRows
    ? await db.execute<GroupRow>(sql`
        select r.position, r.line, r.start_column as column, (select j.params->>'format' from jobs j where j.id = r.job_id) as format, r.identity_key, r.customer_user_id, r.tags, r.planned, r.link_id as known_link_id, r.reason as row_reason, g.*,
          u.deleted_by, u.deleted_at, l.state as link_state_now
        from import_file_rows r
        left join lateral (
          select ${GROUP_COLUMNS} from job_items i where i.job_id = r.job_id and i.group_key = 'link-' || r.position
        ) g on r.planned in ('planned', 'updating')
        ${DELETED_SINCE}
        where r.job_id = ${jobId}
        order by r.position
        limit ${limit} offset ${offset}
      `)
    : await db.execute<GroupRow>(sql`
        select min((i.input->>'position')::int) as position, null as line, null as column, null as format, null as identity_key, null as customer_user_id, null as tags,
          'planned' as planned, null as known_link_id, null as row_reason, ${GROUP_COLUMNS},
          null as deleted_by, null as deleted_at, null as link_state_now
        from job_items i where i.job_id = ${jobId}
        group by i.group_key
        order by min(i.seq)
        limit ${limit} offset ${offset}
      `);
  return rows.rows.map((r) => {
    const calls = Number(r.calls ?? 0);
    const done = Number(r.calls_done ?? 0);
    const state =
      (r.planned !== "planned" && r.planned !== "updating") || calls === 0
        ? "–"
        : Number(r.failed) > 0
          ? "failed"
          : Number(r.active) > 0
            ? done > 0
              ? "importing"
              : "waiting"
            : done === calls
              ? "done"
              : (r.first_state ?? "–");
    const deleted = state === "done" && (r.deleted_by !== null || r.link_state_now === "deleted");
    const outcome: ReconciliationOutcome =
      r.planned && NOT_PLANNED[r.planned]
        ? NOT_PLANNED[r.planned]!
        : deleted
          ? "deleted"
          : state === "done"
            ? r.planned === "updating"
              ? "updated"
              : r.replaced_link_id
                ? "replaced"
                : "created"
            : state === "failed"
              ? "failed"
              : state === "cancelled"
                ? "cancelled"
                : state === "skipped"
                  ? "already_imported"
                  : "pending";
    return {
      position: Number(r.position),
      line: Number(r.line ?? 0) || Number(r.position) + 1,
      column: Number(r.column ?? 0),
      path: linkPath(r.format, Number(r.position)),
      identityKey: r.identity_key,
      customerUserId: r.customer_user_id,
      tags: r.tags ?? [],
      outcome,
      state,
      linkId: r.link_id ?? r.known_link_id,
      linkState: r.result?.state ?? null,
      errorCode: r.result?.errorCode ?? null,
      calls,
      callsDone: done,
      transactions: Number(r.transactions ?? 0),
      reason: deleted ? deletedReason(r) : (r.reason ?? r.row_reason),
    };
  });
}

function deletedReason(r: GroupRow): string {
  const linkId = r.link_id ?? r.known_link_id;
  if (r.deleted_by !== null) {
    const when = r.deleted_at ? new Date(r.deleted_at).toISOString().slice(0, 16).replace("T", " ") : "";
    return `Link ${linkId} was deleted by ${r.deleted_by}${when ? ` on ${when} UTC` : ""} (undo of an import); a later file may import it again.`;
  }
  return `Link ${linkId} was deleted at the upstream since the import (outside Linkdesk); a later file may import it again by choice.`;
}

/** The reconciliation report of an import job as CSV: a row for every link of its file, a thousand at a time. */
export async function* streamImportOutcomesCsv(db: Db, jobId: string): AsyncGenerator<string, void, unknown> {
  yield csvRecord(RECONCILIATION_HEADER);
  for (let offset = 0; ; offset += 1000) {
    const page = await readImportOutcomes(db, jobId, { limit: 1000, offset });
    if (page.length === 0) return;
    yield page.map(reconciliationRecord).join("");
    if (page.length < 1000) return;
  }
}

/** Counts over a whole import's file (the page lists 500 rows at a time; its totals come from here). */
export interface ImportSummary {
  /** Links of the file, every row. */
  rows: number;
  planned: number;
  created: number;
  failed: number;
  cancelled: number;
  duplicates: number;
  alreadyImported: number;
  invalid: number;
  /** Links the upstream held already (with calls on them or none). */
  atUpstream: number;
  /** Links the upstream held that were updated (new transactions, tags, webhook). */
  updating: number;
  /** Links not imported until ops decide: possible matches, ambiguous, deleted upstream, customers not checked. */
  undecided: number;
}

export async function readImportSummary(db: Db, jobId: string): Promise<ImportSummary> {
  const result = await db.execute<{ planned: string; n: number }>(sql`
    select planned, count(*)::int as n from import_file_rows where job_id = ${jobId} group by planned
  `);
  const byPlan = Object.fromEntries(result.rows.map((r) => [r.planned, Number(r.n)]));
  const items = await db.execute<{ state: string; n: number }>(sql`
    select state, count(*)::int as n from job_items where job_id = ${jobId} and input->>'step' = 'link' group by state
  `);
  const byState = Object.fromEntries(items.rows.map((r) => [r.state, Number(r.n)]));
  const planned = Object.values(byState).reduce((a, b) => a + b, 0);
  const rows = Object.values(byPlan).reduce((a, b) => a + b, 0);
  return {
    rows: rows || planned,
    planned,
    created: byState.done ?? 0,
    failed: byState.failed ?? 0,
    cancelled: byState.cancelled ?? 0,
    duplicates: byPlan.duplicate ?? 0,
    alreadyImported: (byPlan.already_imported ?? 0) + (byState.skipped ?? 0),
    invalid: byPlan.invalid ?? 0,
    atUpstream: (byPlan.at_upstream ?? 0) + (byPlan.updating ?? 0),
    updating: byPlan.updating ?? 0,
    undecided:
      (byPlan.possible_match ?? 0) + (byPlan.ambiguous ?? 0) + (byPlan.deleted_upstream ?? 0) + (byPlan.unchecked ?? 0),
  };
}
