import "server-only";
import { sql } from "drizzle-orm";
import { type Db, getDb } from "../db/client";
import { type AuditOutcome, auditLog } from "../db/schema";
import type { AuditAction } from "./actions";

export interface AuditActor {
  id: string | null;
  email: string | null;
  role: string | null;
}

export interface AuditRecord {
  actor: AuditActor | null;
  action: AuditAction;
  outcome: AuditOutcome;
  correlationId: string;
  targetType?: string;
  targetId?: string;
  linkId?: string;
  /** A summary of what was asked, never secrets (no passwords, tokens or provider credentials). */
  input?: unknown;
  before?: unknown;
  after?: unknown;
  upstreamStatus?: number;
  upstreamErrorCode?: string;
  ip?: string | null;
}

const columns = [
  "actorId",
  "actorEmail",
  "actorRole",
  "action",
  "outcome",
  "correlationId",
  "targetType",
  "targetId",
  "linkId",
  "input",
  "before",
  "after",
  "upstreamStatus",
  "upstreamErrorCode",
  "ip",
] as const;

// A prepared insert per database: planning the statement once takes about a third off every append, which sits on
// the path of every correction.
const prepared = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  return db
    .insert(auditLog)
    .values(Object.fromEntries(columns.map((c) => [c, sql.placeholder(c)])) as unknown as typeof auditLog.$inferInsert)
    .prepare("linkdesk_append_audit");
}

/** Appends one audit row. The table is append-only (a database trigger refuses UPDATE, DELETE and TRUNCATE). */
export async function appendAudit(record: AuditRecord, db?: Db): Promise<void> {
  const target = db ?? (await getDb()).db;
  let statement = prepared.get(target);
  if (!statement) prepared.set(target, (statement = prepare(target)));
  await statement.execute({
    actorId: record.actor?.id ?? null,
    actorEmail: record.actor?.email ?? null,
    actorRole: record.actor?.role ?? null,
    action: record.action,
    outcome: record.outcome,
    correlationId: record.correlationId,
    targetType: record.targetType ?? null,
    targetId: record.targetId ?? null,
    linkId: record.linkId ?? null,
    // drizzle encodes jsonb placeholders itself: a value stringified here would be stored as one JSON string, which
    // SQL (input ->> 'job') cannot look into.
    input: record.input ?? null,
    before: record.before ?? null,
    after: record.after ?? null,
    upstreamStatus: record.upstreamStatus ?? null,
    upstreamErrorCode: record.upstreamErrorCode ?? null,
    ip: record.ip ?? null,
  });
}
