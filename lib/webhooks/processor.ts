import "server-only";
import { and, asc, eq, isNull, lte, or, sql } from "drizzle-orm";
import { type Db, getDb } from "../db/client";
import { noteReadModelChange } from "../links/read-model-version";
import { type WebhookVerification, webhookEvents } from "../db/schema";
import { logger } from "../logger";
import { isShuttingDown, onShutdown } from "../shutdown";
import { forgetTransactionHistory } from "../transactions/history";
import {
  type ApplyResult,
  EventNotUnderstood,
  type PreparedEvent,
  applyWebhookEvents,
  prepareWebhookEvent,
} from "./apply";

// Processing of stored webhook events, apart from receiving them: the receiver answers as soon as an event is stored,
// and every instance's processor takes pending events in batches. A batch is one transaction that locks its events
// (FOR UPDATE SKIP LOCKED: two instances never take the same one), applies each in a savepoint and marks it processed,
// so an event's change to the read model and its "processed" commit together or not at all: processed exactly once,
// whatever the number of instances or a crash half-way. A failed event is tried again with a growing wait, then left
// as failed for a person to reprocess from the Webhooks page.

/** Events per batch: one transaction, one round of row locks. */
export const PROCESS_BATCH = 200;
/** Tries before an event is left as failed. */
export const MAX_PROCESS_ATTEMPTS = 6;
/** How often an idle processor looks for events another instance stored. */
export const PROCESS_POLL_MS = 1_000;
/** How long a kicked processor gathers events before it takes a batch: part of the lag, a fraction of its cost. */
export const PROCESS_GATHER_MS = 50;

export interface ProcessedBatch {
  claimed: number;
  processed: number;
  failed: number;
  results: (ApplyResult & { id: string })[];
}

function retryDelayMs(attempt: number): number {
  return Math.min(5 * 60_000, 1000 * 2 ** (attempt - 1));
}

type DueEvent = {
  id: string;
  verification: WebhookVerification;
  event: string | null;
  linkId: string | null;
  eventAt: Date | null;
  signedAt: Date | null;
  receivedAt: Date;
  body: unknown;
  processAttempts: number;
};
type Outcome = {
  id: string;
  outcome: ApplyResult["outcome"] | "failed" | "pending";
  detail: string;
  attempts: number;
  nextAttemptAt: Date | null;
  processedAt: Date | null;
};

/** A database error in a batch taken whole: it is rolled back and taken again, each event in its own savepoint. */
class BatchNeedsSavepoints extends Error {}

/**
 * Takes one batch of due events and processes it; returns what it did (claimed 0: nothing was due). A batch costs a
 * few statements whatever its size: the events are applied together (apply.ts: one statement per kind, a link's
 * events in order) and their outcomes written by one UPDATE, in one transaction. Should a statement fail in the
 * database (which aborts the transaction), the batch is rolled back and taken again with each event in a savepoint,
 * so that one event's failure is its own.
 */
export async function processWebhookBatch(
  db: Db,
  { batchSize = PROCESS_BATCH, now = () => new Date() }: { batchSize?: number; now?: () => Date } = {},
): Promise<ProcessedBatch> {
  let batch: ProcessedBatch;
  try {
    batch = await takeBatch(db, batchSize, now(), false);
  } catch (error) {
    if (!(error instanceof BatchNeedsSavepoints)) throw error;
    batch = await takeBatch(db, batchSize, now(), true);
  }
  // Committed: kept views of the read model from before the batch are not used again.
  if (batch.processed > 0) noteReadModelChange();
  return batch;
}

async function takeBatch(db: Db, batchSize: number, at: Date, savepoints: boolean): Promise<ProcessedBatch> {
  return db.transaction(async (tx) => {
    const due: DueEvent[] = await tx
      .select({
        id: webhookEvents.id,
        verification: webhookEvents.verification,
        event: webhookEvents.event,
        linkId: webhookEvents.linkId,
        eventAt: webhookEvents.eventAt,
        signedAt: webhookEvents.signedAt,
        receivedAt: webhookEvents.receivedAt,
        body: webhookEvents.body,
        processAttempts: webhookEvents.processAttempts,
      })
      .from(webhookEvents)
      .where(
        and(
          eq(webhookEvents.outcome, "pending"),
          or(isNull(webhookEvents.nextAttemptAt), lte(webhookEvents.nextAttemptAt, at)),
        ),
      )
      .orderBy(asc(webhookEvents.eventAt), asc(webhookEvents.receivedAt))
      .limit(batchSize)
      .for("update", { skipLocked: true });
    const batch: ProcessedBatch = { claimed: due.length, processed: 0, failed: 0, results: [] };
    // A link's events oldest first (applyWebhookEvents locks the links' rows in link-id order).
    due.sort(
      (a, b) =>
        (a.linkId ?? "").localeCompare(b.linkId ?? "") || (a.eventAt?.getTime() ?? 0) - (b.eventAt?.getTime() ?? 0),
    );
    const outcomes: Outcome[] = [];
    const fail = (row: DueEvent, error: unknown) => {
      const attempts = row.processAttempts + 1;
      const understood = error instanceof EventNotUnderstood;
      // An event that does not fit its kind will not fit better later: it fails at once, for a person to look at.
      const giveUp = understood || attempts >= MAX_PROCESS_ATTEMPTS;
      const reason = understood ? error.message : "Processing failed (see the server log).";
      if (!understood)
        logger()
          .child({ component: "webhooks" })
          .warn({ err: error, eventId: row.id, attempts }, "processing a webhook event failed");
      outcomes.push({
        id: row.id,
        outcome: giveUp ? "failed" : "pending",
        detail: giveUp ? reason : `${reason} Tried ${attempts} time${attempts === 1 ? "" : "s"}; trying again.`,
        attempts,
        nextAttemptAt: giveUp ? null : new Date(at.getTime() + retryDelayMs(attempts)),
        processedAt: null,
      });
      batch.failed++;
    };
    // An event that does not fit its kind is refused here, before any statement runs.
    const prepared: { row: DueEvent; event: PreparedEvent }[] = [];
    for (const row of due) {
      try {
        prepared.push({ row, event: prepareWebhookEvent(row, at) });
      } catch (error) {
        if (!(error instanceof EventNotUnderstood)) throw error;
        fail(row, error);
      }
    }
    const applied = new Map<string, ApplyResult>();
    if (!savepoints) {
      try {
        for (const [id, result] of await applyWebhookEvents(
          tx,
          prepared.map((p) => p.event),
          at,
        ))
          applied.set(id, result);
      } catch (error) {
        throw new BatchNeedsSavepoints("a statement failed", { cause: error });
      }
    } else {
      for (const { row, event } of prepared) {
        try {
          const [result] = (await tx.transaction((savepoint) => applyWebhookEvents(savepoint, [event], at))).values();
          if (result) applied.set(row.id, result);
        } catch (error) {
          fail(row, error);
        }
      }
    }
    for (const { row } of prepared) {
      const result = applied.get(row.id);
      if (!result) continue;
      outcomes.push({
        id: row.id,
        outcome: result.outcome,
        detail: result.detail,
        attempts: row.processAttempts + 1,
        nextAttemptAt: null,
        processedAt: at,
      });
      batch.processed++;
      batch.results.push({ ...result, id: row.id });
    }
    if (outcomes.length > 0) await recordOutcomes(tx, outcomes);
    return batch;
  });
}

/** Every event's outcome in one UPDATE. */
async function recordOutcomes(tx: Db, outcomes: Outcome[]): Promise<void> {
  const values = JSON.stringify(
    outcomes.map((o) => ({
      id: o.id,
      outcome: o.outcome,
      detail: o.detail,
      attempts: o.attempts,
      next_attempt_at: o.nextAttemptAt?.toISOString() ?? null,
      processed_at: o.processedAt?.toISOString() ?? null,
    })),
  );
  await tx.execute(sql`
    update webhook_events w set
      outcome = v.outcome, detail = v.detail, process_attempts = v.attempts, next_attempt_at = v.next_attempt_at,
      processed_at = coalesce(v.processed_at, w.processed_at)
    from jsonb_to_recordset(${values}::jsonb) as v(id uuid, outcome text, detail text, attempts int, next_attempt_at timestamptz, processed_at timestamptz)
    where w.id = v.id
  `);
}

interface ProcessorState {
  timer?: ReturnType<typeof setInterval>;
  running?: Promise<void>;
  again?: boolean;
  gathering?: ReturnType<typeof setTimeout>;
  stopped?: boolean;
}

// On globalThis: Next.js may evaluate this module more than once in one process, and there must be one processor.
const shared: ProcessorState = ((globalThis as { [key: symbol]: ProcessorState })[
  Symbol.for("linkdesk.webhook-processor")
] ??= {});

async function drain(): Promise<void> {
  const { db } = await getDb();
  for (;;) {
    if (shared.stopped || isShuttingDown()) return;
    shared.again = false;
    const batch = await processWebhookBatch(db);
    // This instance's cached transaction reads of a changed link are dropped at once; other instances compare the
    // link's transactions_changed_at with their read's time when the page asks (lib/transactions/history.ts).
    for (const result of batch.results) if (result.transactionsChanged) forgetTransactionHistory(result.linkId);
    // A full batch: more are waiting now. Otherwise events that arrived meanwhile are gathered for the next one.
    if (batch.claimed < PROCESS_BATCH) return;
  }
}

function run(): void {
  if (shared.running) {
    shared.again = true;
    return;
  }
  shared.running = drain()
    .catch((error: unknown) =>
      logger()
        .child({ component: "webhooks" })
        .error({ err: error }, "the webhook processor failed; it looks again shortly"),
    )
    .finally(() => {
      shared.running = undefined;
      if (shared.again && !shared.stopped) gather();
    });
}

/**
 * Runs the processor after PROCESS_GATHER_MS, unless it is already due to. A batch costs a few statements whatever
 * its size, so events arriving many a second are processed a batch at a time rather than a batch each.
 */
function gather(): void {
  if (shared.gathering) return;
  shared.gathering = setTimeout(() => {
    shared.gathering = undefined;
    run();
  }, PROCESS_GATHER_MS);
}

/** Starts this instance's processor (once): it looks every PROCESS_POLL_MS, and shortly after it is kicked. */
export function startWebhookProcessor(): void {
  if (shared.timer || shared.stopped) return;
  shared.timer = setInterval(run, PROCESS_POLL_MS);
  shared.timer.unref();
  run();
  onShutdown(
    "webhook processor",
    async () => {
      shared.stopped = true;
      clearInterval(shared.timer);
      clearTimeout(shared.gathering);
      shared.timer = undefined;
      shared.gathering = undefined;
      await shared.running;
    },
    "stop-intake",
  );
}

/** Wakes this instance's webhook processor: an event was stored or set to be processed again. */
export function kickWebhookProcessor(): void {
  if (!shared.timer) return;
  if (shared.running) shared.again = true;
  else gather();
}
