import type { Open, WireAccount, WireTransaction } from "../upstream/schemas";
import type { Category, Subcategory } from "../upstream/taxonomy";

// A transaction as the correction desk shows it: the app's own shape, built from the wire object on the server, so the
// browser gets only what it shows (a thousand rows travel to it) and never an upstream field it should not use.
// Pure: the table, its filters and the server read it alike.

export interface TransactionRow {
  id: string;
  date: string;
  datetime: string | null;
  /** The cleaned description, or the raw one when the upstream gave no other. */
  description: string;
  /** What the bank sent, shown on hover and in the expanded row. */
  rawDescription: string | null;
  merchant: { name: string; logo: string | null; website: string | null } | null;
  /** Unsigned, as the upstream sends it; `direction` says which way the money went. */
  amount: number;
  direction: "credit" | "debit";
  currency: string;
  accountId: string;
  accountName: string | null;
  pending: boolean;
  /** As the upstream sent it: a category of today's taxonomy, one from before its revision, or one added since. */
  category: Open<Category> | null;
  subcategory: Open<Subcategory> | null;
  categoryConfidence: number | null;
  subcategoryConfidence: number | null;
  recurrence: { frequency: string | null; next: string | null } | null;
}

export interface AccountOption {
  id: string;
  /** "Everyday Checking ••1234" */
  label: string;
}

export function accountLabel(account: WireAccount): string {
  const name = account.nickname || account.name || account.account_type || account.account_id;
  return account.account_mask ? `${name} ••${account.account_mask}` : name;
}

export function toTransactionRow(t: WireTransaction, accounts: ReadonlyMap<string, WireAccount>): TransactionRow {
  const e = t.enrichment;
  const merchant = e?.merchant;
  const merchantName = merchant?.display_name || merchant?.name;
  const account = accounts.get(t.account_id);
  const category = e?.category.value;
  const subcategory = e?.subcategory?.value;
  return {
    id: t.transaction_id,
    date: t.date,
    datetime: t.datetime ?? null,
    description: t.description || t.raw_description || "",
    rawDescription: t.raw_description ?? null,
    merchant: merchantName
      ? { name: merchantName, logo: merchant?.logo ?? null, website: merchant?.website ?? null }
      : null,
    amount: Math.abs(t.amount),
    direction: t.type === "credit" ? "credit" : "debit",
    currency: t.currency,
    accountId: t.account_id,
    accountName: account ? accountLabel(account) : null,
    pending: t.pending,
    category: category || null,
    subcategory: subcategory || null,
    categoryConfidence: e?.category.confidence ?? null,
    subcategoryConfidence: e?.subcategory?.confidence ?? null,
    recurrence: e?.recurrence
      ? { frequency: e.recurrence.frequency ?? null, next: e.recurrence.next_predicted_date ?? null }
      : null,
  };
}

/** The lower of the two confidences the upstream gave, or null when it gave none. */
export function confidenceOf(row: Pick<TransactionRow, "categoryConfidence" | "subcategoryConfidence">): number | null {
  const values = [row.categoryConfidence, row.subcategoryConfidence].filter((v): v is number => typeof v === "number");
  return values.length === 0 ? null : Math.min(...values);
}

/** Confidence below this is flagged for support staff to check. */
export const LOW_CONFIDENCE = 60;

/** "−$12.30" for money out, "+$1,250.00" for money in, in the transaction's currency. */
export function formatAmount(row: Pick<TransactionRow, "amount" | "direction" | "currency">): string {
  let text: string;
  try {
    text = new Intl.NumberFormat("en-US", { style: "currency", currency: row.currency }).format(row.amount);
  } catch {
    // A currency code Intl does not know: the number and the code as given.
    text = `${row.amount.toFixed(2)} ${row.currency}`;
  }
  return `${row.direction === "credit" ? "+" : "−"}${text}`;
}

/** Whether a row already has a category (a pair without subcategory means the category's own, none chosen). */
export function isInCategory(
  row: { category: string | null; subcategory: string | null },
  target: { category: string; subcategory?: string },
): boolean {
  return row.category === target.category && row.subcategory === (target.subcategory ?? null);
}

/**
 * Correct Enrichment's answer, split: the corrected transaction (found by its id: the upstream does not promise it
 * comes first) and the similar ones, with how many of those are not in the target category yet (what applying the
 * correction to them would change, and would cost).
 */
export function splitCorrectionAnswer<R extends { id: string; category: string | null; subcategory: string | null }>(
  rows: readonly R[],
  transactionId: string,
  target: { category: string; subcategory?: string },
): { updated: R | null; similar: R[]; toChange: number } {
  const similar = rows.filter((r) => r.id !== transactionId);
  return {
    updated: rows.find((r) => r.id === transactionId) ?? null,
    similar,
    toChange: similar.filter((r) => !isInCategory(r, target)).length,
  };
}
