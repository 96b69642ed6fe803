import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  type ExtraConfigColumn,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { ROLES } from "../auth/roles";

// The one PostgreSQL schema, shared by PGlite and a real server. Change it here, then run
// `node_modules/.bin/drizzle-kit generate` and check in the new file under lib/db/migrations.

export const authSources = ["password", "oidc"] as const;
export type AuthSource = (typeof authSources)[number];

export const auditOutcomes = ["ok", "refused", "invalid", "upstream_error", "error"] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

const quotedList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(", "));
// Millisecond precision, like a JS Date, so a timestamp read back makes an exact keyset cursor: with PostgreSQL's
// default microseconds, `(at, id) < (cursor)` would skip rows that share the cursor's millisecond.
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

/** Emails are unique case-insensitively because they are stored lower-cased; the database refuses any other form. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const staff = pgTable(
  "staff",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull().unique(),
    name: text("name"),
    /** One of ROLES (lib/auth/roles.ts): after changing that list, `drizzle-kit generate` writes the new check. */
    role: text("role", { enum: ROLES }).notNull(),
    /** Null for single-sign-on users. */
    passwordHash: text("password_hash"),
    authSource: text("auth_source", { enum: authSources }).notNull().default("password"),
    disabledAt: timestamptz("disabled_at"),
    /** Sessions that began at or before this moment are over (sign-out ends them on the server, not only the cookie). */
    sessionsValidAfter: timestamptz("sessions_valid_after"),
    /**
     * The password was set by someone else (an admin, `npm run staff`): it serves once, to sign in and choose one's
     * own. Until then nothing else is allowed. Demo accounts never have it.
     */
    passwordChangeRequired: boolean("password_change_required").notNull().default(false),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    updatedAt: timestamptz("updated_at")
      .notNull()
      .defaultNow()
      .$onUpdate(() => new Date()),
  },
  (t) => [
    check("staff_role_check", sql`${t.role} in (${quotedList(ROLES)})`),
    check("staff_auth_source_check", sql`${t.authSource} in (${quotedList(authSources)})`),
    check("staff_email_lower_case_check", sql`${t.email} = lower(${t.email})`),
  ],
);

export type Staff = typeof staff.$inferSelect;

/**
 * A person's own settings, by name (the links table's columns and density, say): they follow the person from browser
 * to browser and render on the server as chosen. The value is validated on every read (lib/preferences).
 */
export const staffPreferences = pgTable(
  "staff_preferences",
  {
    staffId: uuid("staff_id")
      .notNull()
      .references(() => staff.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    value: jsonb("value").notNull(),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.staffId, t.name] })],
);
export type NewStaff = typeof staff.$inferInsert;

/** One row per sign-in try, by email and by IP, for slowing down and locking out guessing. */
export const signInAttempts = pgTable(
  "sign_in_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** 'email:a@b.c' or 'ip:1.2.3.4'. */
    subject: text("subject").notNull(),
    at: timestamptz("at").notNull().defaultNow(),
    /**
     * Null while its password is being checked: counted against the lock, so attempts sent at once cannot outrun it
     * (lib/auth/sign-in-attempts.ts). One left null by a crash counts as a failure once it is old.
     */
    succeeded: boolean("succeeded"),
  },
  (t) => [index("sign_in_attempts_subject_at_idx").on(t.subject, t.at.desc().nullsFirst())],
);

export type SignInAttempt = typeof signInAttempts.$inferSelect;
export type NewSignInAttempt = typeof signInAttempts.$inferInsert;

// drizzle-kit writes a bare .desc() as DESC NULLS LAST, but `ORDER BY at DESC` means NULLS FIRST, and PostgreSQL will
// not read a NULLS LAST index for it (it sorts the whole table instead), NOT NULL columns notwithstanding.
const newestFirst = (t: { at: ExtraConfigColumn; id: ExtraConfigColumn }) =>
  [t.at.desc().nullsFirst(), t.id.desc().nullsFirst()] as const;

/**
 * Who did what, when, and what came of it. Append-only: a trigger (migration 0001) refuses UPDATE, DELETE and
 * TRUNCATE. Every index ends in (at desc, id desc) so each Audit page filter pages newest-first by keyset.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamptz("at").notNull().defaultNow(),
    actorId: uuid("actor_id"),
    actorEmail: text("actor_email"),
    actorRole: text("actor_role"),
    /** e.g. 'transaction.correct', 'auth.sign_in'. */
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    linkId: text("link_id"),
    /** A summary of the request, never secrets. */
    input: jsonb("input"),
    before: jsonb("before"),
    after: jsonb("after"),
    outcome: text("outcome", { enum: auditOutcomes }).notNull(),
    upstreamStatus: integer("upstream_status"),
    upstreamErrorCode: text("upstream_error_code"),
    correlationId: uuid("correlation_id").notNull(),
    ip: text("ip"),
  },
  (t) => [
    check("audit_log_outcome_check", sql`${t.outcome} in (${quotedList(auditOutcomes)})`),
    index("audit_log_at_id_idx").on(...newestFirst(t)),
    index("audit_log_actor_email_at_id_idx").on(t.actorEmail, ...newestFirst(t)),
    index("audit_log_action_at_id_idx").on(t.action, ...newestFirst(t)),
    index("audit_log_link_id_at_id_idx").on(t.linkId, ...newestFirst(t)),
    index("audit_log_outcome_at_id_idx").on(t.outcome, ...newestFirst(t)),
    // Undo finds the correction it reverses by the correlation id the correction action returned.
    index("audit_log_correlation_id_idx").on(t.correlationId),
  ],
);

export type AuditEntry = typeof auditLog.$inferSelect;
export type NewAuditEntry = typeof auditLog.$inferInsert;

/**
 * The rate budget shared by every dashboard instance (lib/budget/postgres-store.ts): one row per reserved upstream
 * call and key, kept while it is inside its key's window. `window_ms` lets the periodic sweep drop rows of keys that
 * are never reserved again; rows of keys in use are pruned by the reservation itself.
 */
export const budgetReservations = pgTable(
  "budget_reservations",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** `${endpoint}|${scope}|${scopeId}`, see lib/budget/keys.ts. */
    key: text("key").notNull(),
    /** The database's clock when reserved, so every instance counts on the same clock. */
    at: timestamptz("at").notNull(),
    windowMs: integer("window_ms").notNull(),
  },
  (t) => [index("budget_reservations_key_at_idx").on(t.key, t.at)],
);

/** Keys the upstream answered 429 on: no reservation until `until` (the database's clock). */
export const budgetClosures = pgTable("budget_closures", {
  key: text("key").primaryKey(),
  until: timestamptz("until").notNull(),
});

/** Each 429 the upstream answered, kept an hour for the Limits page. */
export const budgetEvents = pgTable(
  "budget_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamptz("at").notNull(),
    endpoint: text("endpoint").notNull(),
    /** As the upstream sent it: seconds or an HTTP-date. */
    retryAfter: text("retry_after"),
    scopeIds: jsonb("scope_ids").$type<Record<string, string>>().notNull(),
  },
  (t) => [index("budget_events_at_idx").on(t.at)],
);

export const jobStates = ["running", "paused", "cancelled", "done"] as const;
export type JobState = (typeof jobStates)[number];

/**
 * A durable job (lib/jobs): long upstream work that outlives the tab, the request and the instance that started it.
 * What it will do is its items; any instance works on any running job. A job is done when no item is left to work.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** A kind of lib/jobs/kind-registry.ts: what an item does and how its outcome is checked. */
    kind: text("kind").notNull(),
    state: text("state", { enum: jobStates }).notNull().default("running"),
    /** What the job does, in words, for lists. */
    title: text("title").notNull(),
    /** The link every item works on, for per-link jobs (a correction); null for jobs over many links (an import). */
    linkId: text("link_id"),
    /** Kind-specific facts shared by the items (e.g. the file an import came from). */
    params: jsonb("params")
      .notNull()
      .default(sql`'{}'::jsonb`),
    /** Items of one job this instance works on at once (the rate budget still paces the calls). */
    concurrency: integer("concurrency").notNull().default(1),
    /** The person who started it: every item's audit row is theirs. */
    createdBy: uuid("created_by").notNull(),
    createdByEmail: text("created_by_email").notNull(),
    createdByRole: text("created_by_role").notNull(),
    /** The job this one undoes. */
    undoesJobId: uuid("undoes_job_id"),
    /** Recognises the same work asked for twice (an import file's content hash); unique per kind. */
    dedupeKey: text("dedupe_key"),
    total: integer("total").notNull(),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    finishedAt: timestamptz("finished_at"),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    check("jobs_state_check", sql`${t.state} in (${quotedList(jobStates)})`),
    index("jobs_created_at_idx").on(t.createdAt.desc().nullsFirst(), t.id),
    index("jobs_state_idx").on(t.state),
    index("jobs_link_id_idx").on(t.linkId, t.createdAt),
    uniqueIndex("jobs_kind_dedupe_key_idx").on(t.kind, t.dedupeKey),
  ],
);

export type Job = typeof jobs.$inferSelect;

export const jobItemStates = ["pending", "sent", "done", "failed", "skipped", "cancelled"] as const;
export type JobItemState = (typeof jobItemStates)[number];

/**
 * One planned upstream call of a job. `sent` means the call may have reached the upstream and no answer is recorded:
 * before anything is resent, the outcome is checked against the upstream. Claims are leases (lease_owner until
 * lease_until, renewed by heartbeats); a lapsed lease is taken over by any instance.
 */
export const jobItems = pgTable(
  "job_items",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    jobId: uuid("job_id")
      .notNull()
      .references(() => jobs.id, { onDelete: "cascade" }),
    /** Order within the job. */
    seq: integer("seq").notNull(),
    /** Items of one group run one after another in seq order (an imported link, then its transaction batches). */
    groupKey: text("group_key"),
    linkId: text("link_id"),
    /** What the call is about: a transaction id, an import position. */
    targetId: text("target_id"),
    input: jsonb("input").notNull(),
    state: text("state", { enum: jobItemStates }).notNull().default("pending"),
    /** Calls sent for this item. */
    attempts: integer("attempts").notNull().default(0),
    /** Not to be worked before this (backing off after a failure or a 429). */
    notBefore: timestamptz("not_before"),
    /** The instance holding the item's lease, or, once settled, the one that settled it. */
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamptz("lease_until"),
    /** Of the last call: the same id is on its audit row and its log line. */
    correlationId: uuid("correlation_id"),
    upstreamStatus: integer("upstream_status"),
    upstreamErrorCode: text("upstream_error_code"),
    /** Why it failed or was skipped, in words. */
    reason: text("reason"),
    result: jsonb("result"),
    sentAt: timestamptz("sent_at"),
    finishedAt: timestamptz("finished_at"),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    check("job_items_state_check", sql`${t.state} in (${quotedList(jobItemStates)})`),
    uniqueIndex("job_items_job_seq_idx").on(t.jobId, t.seq),
    index("job_items_job_state_seq_idx").on(t.jobId, t.state, t.seq),
    index("job_items_job_group_seq_idx").on(t.jobId, t.groupKey, t.seq),
    index("job_items_lease_owner_idx").on(t.leaseOwner),
    index("job_items_job_finished_idx").on(t.jobId, t.finishedAt),
  ],
);

export type JobItem = typeof jobItems.$inferSelect;

/** Where Linkdesk learns of a link (lib/links/discovery.ts). */
export const linkSources = ["listing", "upstream_answer", "webhook", "customer_lookup", "registration"] as const;
export type LinkSource = (typeof linkSources)[number];

/**
 * The read model of links: what GET /links/{id} last answered for each link, plus what Linkdesk derives for filtering
 * (product error codes, last refresh). Written by the sync and by every upstream response that carries a Link.
 */
export const links = pgTable(
  "links",
  {
    linkId: text("link_id").primaryKey(),
    /** From GET /links; null for a link first seen elsewhere (an exchange, an import). */
    createdAt: timestamptz("created_at"),
    institutionId: text("institution_id"),
    institutionName: text("institution_name"),
    institutionAvatar: text("institution_avatar"),
    state: text("state"),
    errorCode: text("error_code"),
    provider: text("provider"),
    linkTags: text("link_tags")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** The whole Link object as last read (deprecated fields included, for the detail page). */
    raw: jsonb("raw"),
    /** Error codes of the link's products, for the product-error filter. */
    productErrorCodes: text("product_error_codes")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Latest refreshed_at over the link's products. */
    lastRefreshedAt: timestamptz("last_refreshed_at"),
    /** When Linkdesk last read the link's details (null: listed, details not fetched yet). */
    seenAt: timestamptz("seen_at"),
    /** When the link was last listed by GET /links (a deleted link stops being listed). */
    listedAt: timestamptz("listed_at"),
    /** First time Linkdesk saw the link in state deleted: it is removed upstream 90 days later. */
    deletedSeenAt: timestamptz("deleted_seen_at"),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
    /** Where Linkdesk first learned of the link (lib/links/discovery.ts): the listing, an upstream answer, a webhook... */
    learnedFrom: text("learned_from", { enum: linkSources }),
    /** When Linkdesk first learned of it from that source. */
    learnedAt: timestamptz("learned_at"),
    /** The webhook_timestamp of the newest webhook event applied to the row: an older event arriving late changes nothing. */
    eventAt: timestamptz("event_at"),
    /** When a webhook last said the link's transactions changed: the link page's cached reads older than this are dropped. */
    transactionsChangedAt: timestamptz("transactions_changed_at"),
    /**
     * A webhook that could not be applied as an event (signed outside the window, or of a kind Linkdesk does not know)
     * asked for the link to be read again: the sync reads it while its last read (seen_at) is older than this.
     */
    readRequestedAt: timestamptz("read_requested_at"),
  },
  (t) => [
    index("links_state_idx").on(t.state, t.linkId),
    index("links_error_code_idx").on(t.errorCode, t.linkId),
    index("links_institution_idx").on(t.institutionId, t.linkId),
    index("links_provider_idx").on(t.provider, t.linkId),
    index("links_created_at_idx").on(t.createdAt.desc().nullsFirst(), t.linkId),
    index("links_last_refreshed_idx").on(t.lastRefreshedAt, t.linkId),
    // "State + not refreshed in N days" counts tens of thousands of rows: an index-only range per state.
    index("links_state_refreshed_idx").on(t.state, t.lastRefreshedAt),
    index("links_seen_at_idx").on(t.seenAt),
    index("links_tags_idx").using("gin", t.linkTags),
    index("links_product_errors_idx").using("gin", t.productErrorCodes),
    // Only the links still waiting for a read a webhook asked for: a row leaves the index once it is read.
    index("links_read_requested_idx")
      .on(t.readRequestedAt)
      .where(sql`${t.readRequestedAt} is not null and (${t.seenAt} is null or ${t.seenAt} < ${t.readRequestedAt})`),
  ],
);

export type LinkRow = typeof links.$inferSelect;

/**
 * verified: signed by the upstream within WEBHOOK_MAX_AGE_S, applied as an event. late: signed by the upstream (known
 * key, ES256, body hash) but outside that window (a retry after the upstream's back-off, or a replay): never applied
 * as an event; the link it names is read again instead. refused: not the upstream's, or not a webhook; no body kept.
 */
export const webhookVerifications = ["verified", "late", "refused"] as const;
export type WebhookVerification = (typeof webhookVerifications)[number];
export const webhookOutcomes = ["pending", "processed", "read_again", "failed", "unknown_kind", "refused"] as const;
export type WebhookOutcome = (typeof webhookOutcomes)[number];

/**
 * Every request the webhook receiver answered (lib/webhooks): verified events, stored before the 2xx and processed
 * once (deduplicated by the upstream's idempotency key), and refused ones, with the reason in words and never a body.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    receivedAt: timestamptz("received_at").notNull().defaultNow(),
    /** The last time the same event (same idempotency key) was received again: the upstream's redeliveries. */
    lastReceivedAt: timestamptz("last_received_at").notNull().defaultNow(),
    verification: text("verification", { enum: webhookVerifications }).notNull(),
    /** Why a request was refused, in words. */
    refusal: text("refusal"),
    /** The address the request came from (after TRUSTED_PROXY_HOPS). */
    sourceAddress: text("source_address"),
    idempotencyKey: text("idempotency_key"),
    deliveryToken: text("delivery_token"),
    deliveryAttempt: integer("delivery_attempt"),
    /** The signing key's id from the signature's header. */
    kid: text("kid"),
    /** The signature's iat: when the upstream signed this delivery (a retry keeps the first one's, facts §11). */
    signedAt: timestamptz("signed_at"),
    /** webhook_event: link.state_changed, link.product_refresh, transactions.updates_available, or one unknown. */
    event: text("event"),
    linkId: text("link_id"),
    /** webhook_timestamp: when the upstream made the event (the same on every redelivery). */
    eventAt: timestamptz("event_at"),
    /** The verified body, parsed (refused requests keep none). */
    body: jsonb("body"),
    /** Receipts of the same event after the first (redeliveries): answered 2xx, never processed again. */
    redeliveries: integer("redeliveries").notNull().default(0),
    outcome: text("outcome", { enum: webhookOutcomes }).notNull(),
    processAttempts: integer("process_attempts").notNull().default(0),
    /** When processing may be tried again after a failure. */
    nextAttemptAt: timestamptz("next_attempt_at"),
    processedAt: timestamptz("processed_at"),
    /** What processing did, or why it failed, in words. */
    detail: text("detail"),
  },
  (t) => [
    check("webhook_events_verification_check", sql`${t.verification} in (${quotedList(webhookVerifications)})`),
    check("webhook_events_outcome_check", sql`${t.outcome} in (${quotedList(webhookOutcomes)})`),
    uniqueIndex("webhook_events_idempotency_key_idx").on(t.idempotencyKey),
    index("webhook_events_received_idx").on(t.receivedAt.desc(), t.id),
    index("webhook_events_pending_idx").on(t.outcome, t.nextAttemptAt),
    index("webhook_events_link_idx").on(t.linkId, t.receivedAt.desc()),
  ],
);

export type WebhookEvent = typeof webhookEvents.$inferSelect;

export const linkSnapshotSources = ["sync", "start", "demo"] as const;
export type LinkSnapshotSource = (typeof linkSnapshotSources)[number];

/** Counts of links by state and by error code, taken after each sync and at start, for the Health trends. */
export const linkSnapshots = pgTable(
  "link_snapshots",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamptz("at").notNull().defaultNow(),
    total: integer("total").notNull(),
    byState: jsonb("by_state").$type<Record<string, number>>().notNull(),
    byErrorCode: jsonb("by_error_code").$type<Record<string, number>>().notNull(),
    /** What took it: "sync" (after a run), "start" (at a dashboard's start), "demo" (made-up history, demo mode only). */
    source: text("source", { enum: linkSnapshotSources }).notNull().default("sync"),
  },
  (t) => [
    index("link_snapshots_at_idx").on(t.at),
    check("link_snapshots_source_check", sql`${t.source} in (${quotedList(linkSnapshotSources)})`),
  ],
);

/**
 * The sync's state: one row ("current"). Holding it (owner + fresh heartbeat) makes an instance the only one
 * syncing; the cursor and the run's start let a restarted sync resume where it stopped.
 */
export const syncState = pgTable("sync_state", {
  id: text("id").primaryKey(),
  owner: text("owner"),
  heartbeatAt: timestamptz("heartbeat_at"),
  runStartedAt: timestamptz("run_started_at"),
  runFinishedAt: timestamptz("run_finished_at"),
  /** "listing" (walking GET /links) or "details" (fetching GET /links/{id}) or "idle". */
  phase: text("phase").notNull().default("idle"),
  listCursor: text("list_cursor"),
  total: integer("total").notNull().default(0),
  done: integer("done").notNull().default(0),
  lastError: text("last_error"),
  requestedAt: timestamptz("requested_at"),
  /** While the sync's reads fail (lib/sync/backoff.ts): since the first failure of the streak; null once one succeeds. */
  failingSince: timestamptz("failing_since"),
  /** The last failure in Linkdesk's words while failing ("the upstream answers 503"). */
  failure: text("failure"),
  /** The wait between the sync's tries while failing, in milliseconds. */
  retryMs: integer("retry_ms"),
});

export const importedLinkStates = ["reserved", "created", "released", "deleted"] as const;
export type ImportedLinkState = (typeof importedLinkStates)[number];

/**
 * Every link Linkdesk ever imported, or is importing, by its identity key (lib/import/identity.ts): how a link in any
 * later file, whatever its bytes, is known as already imported. A row is taken (reserved) in the same transaction
 * that plans the job, so two imports of overlapping files at once, in two tabs or on two instances, plan each link
 * once. A reservation whose import call was never applied is released by a trigger when its item fails, is cancelled
 * or skipped (migration 0013), and is then free to take again; so is a link deleted since (an undone import). Whether
 * a row is free is decided by its own columns only, so a take is one row-locked statement on PGlite and PostgreSQL.
 */
export const importedLinks = pgTable(
  "imported_links",
  {
    identityKey: text("identity_key").primaryKey(),
    /** Written to the link as a tag: a lost answer finds the link under its customer's links by it. */
    tag: text("tag").notNull(),
    customerUserId: text("customer_user_id").notNull(),
    institutionId: text("institution_id"),
    /** The import job, and the link's position in its file, that holds the key. */
    jobId: uuid("job_id").notNull(),
    position: integer("position").notNull(),
    line: integer("line").notNull().default(0),
    linkId: text("link_id"),
    state: text("state", { enum: importedLinkStates }).notNull().default("reserved"),
    /** The link's state and error code as the import call answered: an undo keeps links that changed since. */
    importedState: text("imported_state"),
    importedErrorCode: text("imported_error_code"),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    check("imported_links_state_check", sql`${t.state} in (${quotedList(importedLinkStates)})`),
    index("imported_links_job_position_idx").on(t.jobId, t.position),
    index("imported_links_link_id_idx").on(t.linkId),
  ],
);

export type ImportedLink = typeof importedLinks.$inferSelect;

export const importRowOutcomes = [
  "planned",
  "duplicate",
  "already_imported",
  "invalid",
  // Matched with the upstream's copy (lib/import/upstream-match.ts): the same link, with nothing to change or with its
  // new transactions, tags or webhook planned as calls on it (`updating`); a possible match ops did not take; a link
  // two upstream links answer to; a link deleted at the upstream ops did not import again; a customer the upstream
  // could not be asked about.
  "at_upstream",
  "updating",
  "possible_match",
  "ambiguous",
  "deleted_upstream",
  "unchecked",
] as const;
export type ImportRowOutcome = (typeof importRowOutcomes)[number];

/**
 * One row per link of an import job's file, whatever became of it: what planning decided (imported by this job, a
 * duplicate of an earlier line, already imported, invalid) with the facts that match it back to the old system. The
 * reconciliation report joins it with the job's items for the outcome of the planned ones.
 */
export const importFileRows = pgTable(
  "import_file_rows",
  {
    jobId: uuid("job_id")
      .notNull()
      .references(() => jobs.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    line: integer("line").notNull(),
    /** Where the link starts on its line, when the line holds more than one link (a minified file). */
    column: integer("start_column"),
    identityKey: text("identity_key"),
    customerUserId: text("customer_user_id"),
    institutionId: text("institution_id"),
    tags: text("tags")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    planned: text("planned", { enum: importRowOutcomes }).notNull(),
    /** The link that already has this identity (already imported). */
    linkId: text("link_id"),
    reason: text("reason"),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.position] }),
    check("import_file_rows_planned_check", sql`${t.planned} in (${quotedList(importRowOutcomes)})`),
  ],
);

export const readNoticeKinds = ["unknown_value", "unreadable"] as const;

/**
 * What reading the upstream's answers noticed (lib/upstream/reading.ts), one row per kind, field and value: a value
 * outside the lists this version of Linkdesk knows, or something it could not read and set aside. Counted for the
 * Status page; the rows are few (one per distinct odd value), and each instance writes a row when it first sees it and
 * then at most once a minute.
 */
export const upstreamReadNotices = pgTable(
  "upstream_read_notices",
  {
    kind: text("kind", { enum: readNoticeKinds }).notNull(),
    /** Where in the object, with list positions left out: `link.error_code`, `transaction.enrichment.category`. */
    field: text("field").notNull(),
    /** The value as sent (unknown_value); what could not be read, in words (unreadable). */
    value: text("value").notNull(),
    /** The endpoint of the answer it was first seen in, as the spec names it. */
    endpoint: text("endpoint").notNull(),
    firstSeenAt: timestamptz("first_seen_at").notNull().defaultNow(),
    lastSeenAt: timestamptz("last_seen_at").notNull().defaultNow(),
    /** Answers it was seen in, summed over instances (each adds what it saw since its last write). */
    answers: integer("answers").notNull().default(1),
    /** One object that carried it (a link or transaction id) and the call that brought it (its correlation id). */
    exampleItemId: text("example_item_id"),
    exampleCorrelationId: text("example_correlation_id"),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.field, t.value] }),
    check("upstream_read_notices_kind_check", sql`${t.kind} in (${quotedList(readNoticeKinds)})`),
  ],
);

export const outboundChannels = ["webhook", "email"] as const;
export type OutboundChannel = (typeof outboundChannels)[number];
export const outboundStates = ["pending", "delivered", "failed"] as const;
export type OutboundState = (typeof outboundStates)[number];

/**
 * What Linkdesk sends out of its own accord (lib/outbound): one row per message and channel, sent by whichever
 * instance's worker leases it first and tried again with a growing wait until it is delivered or the tries run out.
 * The message id is the Standard Webhooks `webhook-id`, the same on every try: a message is queued once per channel
 * (the unique index), and a receiver that keeps each id once takes it once however often it arrives.
 */
export const outboundDeliveries = pgTable(
  "outbound_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** `msg_…`: sent as webhook-id, and as the email's Message-ID. */
    messageId: text("message_id").notNull(),
    channel: text("channel", { enum: outboundChannels }).notNull(),
    /** What the message is about, e.g. `link.reconnect_requested`. */
    type: text("type").notNull(),
    /** Where it went last: the webhook's address or the email's recipient. */
    recipient: text("recipient"),
    /** What is sent: the webhook's JSON body, or an email's {to, subject, text}. */
    body: jsonb("body").notNull(),
    /** Values withheld from `body` once the delivery is settled (a link session token): needed only to send. */
    withheld: text("withheld")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    state: text("state", { enum: outboundStates }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** Not tried before this. */
    nextAttemptAt: timestamptz("next_attempt_at").notNull().defaultNow(),
    /** The instance sending it now, until when; a lapsed lease is taken by any instance. */
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamptz("lease_until"),
    /** The last try's outcome in words. */
    lastOutcome: text("last_outcome"),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    settledAt: timestamptz("settled_at"),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    check("outbound_deliveries_channel_check", sql`${t.channel} in (${quotedList(outboundChannels)})`),
    check("outbound_deliveries_state_check", sql`${t.state} in (${quotedList(outboundStates)})`),
    uniqueIndex("outbound_deliveries_message_channel_idx").on(t.messageId, t.channel),
    // Only what is still to send: a row leaves the index once settled.
    index("outbound_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.state} = 'pending'`),
  ],
);

export type OutboundDelivery = typeof outboundDeliveries.$inferSelect;

export const outboundAttemptOutcomes = ["delivered", "retry", "failed"] as const;
export type OutboundAttemptOutcome = (typeof outboundAttemptOutcomes)[number];

/** Every try of a delivery: when, how long it took, what came back (a status, or why nothing did) in words. */
export const outboundAttempts = pgTable(
  "outbound_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => outboundDeliveries.id, { onDelete: "cascade" }),
    /** 1 for the first try. */
    attempt: integer("attempt").notNull(),
    at: timestamptz("at").notNull(),
    latencyMs: integer("latency_ms").notNull(),
    /** The HTTP status, or the mail server's reply code; null when no answer came. */
    status: integer("status"),
    outcome: text("outcome", { enum: outboundAttemptOutcomes }).notNull(),
    detail: text("detail").notNull(),
    /** The instance that made it. */
    owner: text("owner"),
  },
  (t) => [
    check("outbound_attempts_outcome_check", sql`${t.outcome} in (${quotedList(outboundAttemptOutcomes)})`),
    uniqueIndex("outbound_attempts_delivery_attempt_idx").on(t.deliveryId, t.attempt),
  ],
);

export type OutboundAttempt = typeof outboundAttempts.$inferSelect;

export const linkCustomerSources = ["customer_lookup", "link_session", "registration"] as const;
export type LinkCustomerSource = (typeof linkCustomerSources)[number];

/**
 * Which customer user a link belongs to, where Linkdesk learned it other than by importing it (imported links have
 * theirs in imported_links): a customer lookup (GET /users/{id}/links lists that customer's links) or a link session
 * Linkdesk made. The upstream's Link carries no customer, and a link's customer never changes (upstream-facts §7.1).
 */
export const linkCustomers = pgTable(
  "link_customers",
  {
    linkId: text("link_id").primaryKey(),
    customerUserId: text("customer_user_id").notNull(),
    learnedFrom: text("learned_from", { enum: linkCustomerSources }).notNull(),
    learnedAt: timestamptz("learned_at").notNull().defaultNow(),
  },
  (t) => [check("link_customers_learned_from_check", sql`${t.learnedFrom} in (${quotedList(linkCustomerSources)})`)],
);

export const reconnectRequestStates = ["creating", "sent", "failed"] as const;
export type ReconnectRequestState = (typeof reconnectRequestStates)[number];

/**
 * Each time staff asked an end user to reconnect a link (lib/reconnect): who asked, when, the relink session it made
 * and the message that carries it (its delivery is in outbound_deliveries, by message id), or why it went no further.
 * `creating`: the session is being created; `sent`: created and its message queued; `failed`: no session, or none
 * that reached a message. `reconnected_at` is set by a trigger (migration 0021) when the read model first sees the
 * link connected again, whoever told it (a webhook, the sync, a page's read).
 */
export const reconnectRequests = pgTable(
  "reconnect_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** The form's idempotency key: a double click, a resent POST or a retry of the same click is the same request. */
    requestKey: uuid("request_key").notNull().unique(),
    linkId: text("link_id").notNull(),
    customerUserId: text("customer_user_id").notNull(),
    /** Where Linkdesk knew the customer from: an import, a customer lookup, a link session it made. */
    customerSource: text("customer_source").notNull(),
    institutionId: text("institution_id"),
    institutionName: text("institution_name"),
    /** The link's error code when asked: why the user must act. */
    errorCode: text("error_code"),
    requestedBy: uuid("requested_by").notNull(),
    requestedByEmail: text("requested_by_email").notNull(),
    requestedByRole: text("requested_by_role").notNull(),
    requestedAt: timestamptz("requested_at").notNull().defaultNow(),
    state: text("state", { enum: reconnectRequestStates }).notNull().default("creating"),
    /** Why it failed, in words. */
    reason: text("reason"),
    /** The message carrying the session (webhook-id); its deliveries say whether it arrived. */
    messageId: text("message_id").unique(),
    /** The session token's last characters, to match the product's log; the token itself is only in the message. */
    sessionTokenHint: text("session_token_hint"),
    /** What the session carried over, so the relink keeps them (it replaces both, upstream-facts §7.1). */
    keptWebhook: text("kept_webhook"),
    keptTags: text("kept_tags").array(),
    correlationId: uuid("correlation_id").notNull(),
    reconnectedAt: timestamptz("reconnected_at"),
    /** The campaign (a job of kind `reconnect`) that asked, or null for a request from the link's page. */
    jobId: uuid("job_id"),
  },
  (t) => [
    check("reconnect_requests_state_check", sql`${t.state} in (${quotedList(reconnectRequestStates)})`),
    index("reconnect_requests_link_idx").on(t.linkId, t.requestedAt.desc().nullsFirst()),
    index("reconnect_requests_job_idx").on(t.jobId),
  ],
);

export type ReconnectRequest = typeof reconnectRequests.$inferSelect;

export const alertStates = ["open", "resolved"] as const;
export type AlertState = (typeof alertStates)[number];
export const alertSeverities = ["critical", "warning", "info"] as const;
export type AlertSeverity = (typeof alertSeverities)[number];

/**
 * Alerts (lib/alerts): one row per time a rule's condition held for a subject (an institution, a provider, the whole
 * fleet), from when it opened to when it resolved, with its peak. At most one open row per rule and subject, whatever
 * the instances evaluating: the partial unique index makes a second opening a no-op. Kept 90 days after resolving.
 */
export const alerts = pgTable(
  "alerts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    rule: text("rule").notNull(),
    /** What it is about: an institution id, a provider, or "" for the fleet. */
    subject: text("subject").notNull().default(""),
    /** The subject as people know it (an institution's name). Upstream text: rendered as text only. */
    subjectLabel: text("subject_label"),
    severity: text("severity", { enum: alertSeverities }).notNull(),
    state: text("state", { enum: alertStates }).notNull().default("open"),
    /** What it says now (or said last), in words. */
    summary: text("summary").notNull(),
    /** The links it concerns: a links-list query string. */
    linksQuery: text("links_query").notNull().default(""),
    value: integer("value").notNull(),
    peak: integer("peak").notNull(),
    threshold: integer("threshold").notNull(),
    openedAt: timestamptz("opened_at").notNull().defaultNow(),
    lastSeenAt: timestamptz("last_seen_at").notNull().defaultNow(),
    resolvedAt: timestamptz("resolved_at"),
    acknowledgedByEmail: text("acknowledged_by_email"),
    acknowledgedAt: timestamptz("acknowledged_at"),
  },
  (t) => [
    check("alerts_state_check", sql`${t.state} in (${quotedList(alertStates)})`),
    check("alerts_severity_check", sql`${t.severity} in (${quotedList(alertSeverities)})`),
    uniqueIndex("alerts_open_idx")
      .on(t.rule, t.subject)
      .where(sql`${t.state} = 'open'`),
    index("alerts_opened_at_idx").on(t.openedAt.desc().nullsFirst()),
  ],
);

export type Alert = typeof alerts.$inferSelect;
