import "server-only";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { type AuditEntry, auditLog } from "../db/schema";
import { type ObservedPair, asCategoryPair, observedPairSchema } from "./categories";
import { type TransactionFilters, TRANSACTIONS_VIEW_PAGE_SIZE, filterTransactions, pageOf } from "./filters";
import type { UnreadableItem } from "../upstream/schemas";
import { LEGACY_SUBCATEGORIES, isCategory, isSubcategory } from "../upstream/taxonomy";

export type { UnreadableItem };
import type { CachedHistory } from "./history";
import { type AccountOption, type TransactionRow, accountLabel, toTransactionRow } from "./rows";

// One page of the correction desk: a link's cached history as rows, filtered and paged, with the mark of every
// transaction corrected before (who, when, which audit row) from the audit trail.

/** What the audit trail says last happened to a transaction's category through Linkdesk. */
export interface CorrectionMark {
  kind: "corrected" | "undone";
  by: string;
  at: string;
  /** Names the audit row: /audit?correlation=… */
  correlationId: string;
  /** The job that made it, for a correction made in bulk. */
  jobId: string | null;
  before: ObservedPair | null;
  after: ObservedPair | null;
  /** A correction whose previous category was recorded, and is one the upstream still takes, can be put back. */
  undoable: boolean;
}

export interface TransactionsPage {
  linkId: string;
  rows: TransactionRow[];
  /** Transactions in the link's whole history. */
  total: number;
  /** Transactions passing the filters, over all pages. */
  matching: number;
  page: number;
  pageCount: number;
  pageSize: number;
  accounts: AccountOption[];
  /** When the history was read from the upstream (ms). */
  readAt: number;
  marks: Record<string, CorrectionMark>;
  /** Transactions the upstream sent that Linkdesk could not read: their ids and why, in words (never dropped silently). */
  unreadable: UnreadableItem[];
  /** Categories and subcategories in the link's history outside the taxonomy (added since), for the filters. */
  otherCategories: string[];
  otherSubcategories: string[];
}

export function historyRows(history: Pick<CachedHistory, "transactions" | "accounts">): TransactionRow[] {
  const accounts = new Map(history.accounts.map((a) => [a.account_id, a]));
  return history.transactions.map((t) => toTransactionRow(t, accounts));
}

/** The filtered rows of one page (or every matching row with `all`, for a bulk correction of the whole filter). */
export async function transactionsPage(
  db: Db,
  linkId: string,
  history: CachedHistory,
  view: { filters: TransactionFilters; page: number },
  opts: { all?: boolean; pageSize?: number } = {},
): Promise<TransactionsPage> {
  const all = historyRows(history);
  const matching = filterTransactions(all, view.filters);
  const pageSize = opts.all ? Math.max(1, matching.length) : (opts.pageSize ?? TRANSACTIONS_VIEW_PAGE_SIZE);
  const { rows, page, pageCount } = pageOf(matching, opts.all ? 1 : view.page, pageSize);
  return {
    linkId,
    rows,
    total: history.transactions.length,
    matching: matching.length,
    page,
    pageCount,
    pageSize,
    accounts: history.accounts.map((a) => ({ id: a.account_id, label: accountLabel(a) })),
    readAt: history.readAt,
    unreadable: history.unreadable ?? [],
    ...categoriesNotKnown(all),
    marks: await correctionMarks(
      db,
      linkId,
      rows.map((r) => r.id),
    ),
  };
}

const pair = (value: unknown): ObservedPair | null => {
  const parsed = observedPairSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
};

export function markOf(
  entry: Pick<AuditEntry, "action" | "actorEmail" | "at" | "correlationId" | "input" | "before" | "after">,
): CorrectionMark {
  const input = (entry.input ?? {}) as { job?: unknown };
  const before = pair(entry.before);
  const kind = entry.action === "transaction.correct" ? "corrected" : "undone";
  return {
    kind,
    by: entry.actorEmail ?? "someone",
    at: entry.at.toISOString(),
    correlationId: entry.correlationId,
    jobId: typeof input.job === "string" ? input.job : null,
    before,
    after: pair(entry.after),
    undoable: kind === "corrected" && before !== null && asCategoryPair(before) !== null,
  };
}

/** The newest successful correction or undo of each of these transactions of the link, by transaction id. */
export async function correctionMarks(
  db: Db,
  linkId: string,
  transactionIds: string[],
): Promise<Record<string, CorrectionMark>> {
  const marks: Record<string, CorrectionMark> = {};
  if (transactionIds.length === 0) return marks;
  const rows = await db
    .select({
      targetId: auditLog.targetId,
      action: auditLog.action,
      actorEmail: auditLog.actorEmail,
      at: auditLog.at,
      correlationId: auditLog.correlationId,
      input: auditLog.input,
      before: auditLog.before,
      after: auditLog.after,
    })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.linkId, linkId),
        eq(auditLog.outcome, "ok"),
        eq(auditLog.targetType, "transaction"),
        inArray(auditLog.action, ["transaction.correct", "transaction.undo_correction"]),
        inArray(auditLog.targetId, transactionIds),
      ),
    )
    .orderBy(desc(auditLog.at), desc(auditLog.id));
  for (const row of rows) {
    if (row.targetId && !marks[row.targetId]) marks[row.targetId] = markOf(row);
  }
  return marks;
}

/** Values the link's transactions carry that neither today's taxonomy nor its history before 2025-01-13 holds. */
function categoriesNotKnown(rows: readonly TransactionRow[]): {
  otherCategories: string[];
  otherSubcategories: string[];
} {
  const categories = new Set<string>();
  const subcategories = new Set<string>();
  for (const row of rows) {
    if (row.category && !isCategory(row.category)) categories.add(row.category);
    if (row.subcategory && !isSubcategory(row.subcategory) && !Object.hasOwn(LEGACY_SUBCATEGORIES, row.subcategory))
      subcategories.add(row.subcategory);
  }
  return { otherCategories: [...categories].sort(), otherSubcategories: [...subcategories].sort() };
}
