// What GET /links/{id}/transactions/sync needs (upstream-facts §4.2): which transactions changed since a cursor.
// Every change to a link's transactions (an import adding or replacing some, a correction) takes the link's next
// sequence number; generated transactions nobody touched are at 0. A cursor names the last (sequence, transaction id)
// served, so a page is "everything after it, in that order", and a client that stores the last cursor gets exactly
// what changed since. Transactions created after the cursor come as `created`, older ones changed since as `updated`.
// The sandbox never removes a transaction, so `removed` is always empty.
import type { TransactionRecord } from "./types";

interface Version {
  created: number;
  changed: number;
}

const UNTOUCHED: Version = { created: 0, changed: 0 };

export class SyncLog {
  private seq = 0;
  private readonly versions = new Map<string, Version>();

  created(transactionIds: string[]): void {
    if (transactionIds.length === 0) return;
    const seq = ++this.seq;
    for (const id of transactionIds) this.versions.set(id, { created: seq, changed: seq });
  }

  updated(transactionIds: string[]): void {
    if (transactionIds.length === 0) return;
    const seq = ++this.seq;
    for (const id of transactionIds)
      this.versions.set(id, { created: this.versions.get(id)?.created ?? 0, changed: seq });
  }

  versionOf(transactionId: string): Version {
    return this.versions.get(transactionId) ?? UNTOUCHED;
  }
}

export type SyncPosition = [seq: number, transactionId: string];

const START: SyncPosition = [-1, ""];

function compare(a: SyncPosition, b: SyncPosition): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

export function encodeSyncCursor(position: SyncPosition): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeSyncCursor(cursor: string): SyncPosition | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === "string") {
      return [value[0] as number, value[1]];
    }
  } catch {
    // fall through: an unreadable cursor is a validation error for the caller
  }
  return null;
}

export interface SyncPage {
  created: TransactionRecord[];
  updated: TransactionRecord[];
  next: string;
  hasMore: boolean;
}

/** One page of changes after `after` (null = from the beginning: every transaction, as created). */
export function syncPage(
  transactions: TransactionRecord[],
  log: SyncLog | undefined,
  after: SyncPosition | null,
  size: number,
): SyncPage {
  const from = after ?? START;
  const changed = transactions
    .map((transaction) => {
      const version = log?.versionOf(transaction.transaction_id) ?? UNTOUCHED;
      return {
        transaction,
        at: [version.changed, transaction.transaction_id] as SyncPosition,
        createdAt: [version.created, transaction.transaction_id] as SyncPosition,
      };
    })
    .filter((entry) => compare(entry.at, from) > 0)
    .sort((a, b) => compare(a.at, b.at));
  const page = changed.slice(0, size);
  const last = page[page.length - 1];
  return {
    // Pending transactions are only ever reported as created (the upstream drops and replaces them on each refresh).
    created: page
      .filter((entry) => entry.transaction.pending || compare(entry.createdAt, from) > 0)
      .map((entry) => entry.transaction),
    updated: page
      .filter((entry) => !entry.transaction.pending && compare(entry.createdAt, from) <= 0)
      .map((entry) => entry.transaction),
    next: encodeSyncCursor(last ? last.at : from),
    hasMore: changed.length > size,
  };
}
