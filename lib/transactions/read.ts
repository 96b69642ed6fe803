import "server-only";
import type { CallOptions, UpstreamApi } from "../upstream";
import type { WireAccount, WireLink, WireTransaction } from "../upstream/schemas";

// Reading a link's transactions through GET /links/{id}/transactions, which pages by number (up to 1000 a page) and
// filters only by date and account. Linkdesk reads whole date ranges and looks transactions up by id itself.

/** The largest page the upstream serves. */
export const TRANSACTIONS_PAGE_SIZE = 1000;

/** Every transaction of a link in a date range (the whole history by default), newest first as the upstream sends them. */
export async function readAllTransactions(
  api: UpstreamApi,
  linkId: string,
  range: { startDate?: string; endDate?: string } = {},
  opts: CallOptions = {},
): Promise<WireTransaction[]> {
  return (await readTransactionHistory(api, linkId, range, opts)).transactions;
}

export interface TransactionHistory {
  transactions: WireTransaction[];
  /** The accounts the pages named, each once. */
  accounts: WireAccount[];
  /** The link as the last page carried it. */
  link: WireLink;
}

/** Like readAllTransactions, with the accounts and the link the pages carry (the correction desk labels rows with them). */
export async function readTransactionHistory(
  api: UpstreamApi,
  linkId: string,
  range: { startDate?: string; endDate?: string } = {},
  opts: CallOptions = {},
): Promise<TransactionHistory> {
  const transactions: WireTransaction[] = [];
  const accounts = new Map<string, WireAccount>();
  for (let page = 1; ; page++) {
    const result = await api.getTransactions(linkId, { page, size: TRANSACTIONS_PAGE_SIZE, ...range }, opts);
    transactions.push(...result.transactions);
    for (const account of result.accounts) accounts.set(account.account_id, account);
    if (result.transactions.length < TRANSACTIONS_PAGE_SIZE || transactions.length >= result.total) {
      return { transactions, accounts: [...accounts.values()], link: result.link };
    }
  }
}

/**
 * The link's transactions with these ids, as the upstream has them now. A date narrows the read to that day (one
 * call); without one, or when the transaction is not on that day, the whole history is read.
 */
export async function findTransactions(
  api: UpstreamApi,
  linkId: string,
  wanted: { transactionId: string; date?: string }[],
  opts: CallOptions = {},
): Promise<Map<string, WireTransaction>> {
  const found = new Map<string, WireTransaction>();
  const ids = new Set(wanted.map((w) => w.transactionId));
  const dates = new Set(wanted.map((w) => w.date));
  if (dates.size === 1 && [...dates][0] !== undefined) {
    const date = [...dates][0]!;
    for (const t of await readAllTransactions(api, linkId, { startDate: date, endDate: date }, opts))
      if (ids.has(t.transaction_id)) found.set(t.transaction_id, t);
    if (found.size === ids.size) return found;
  }
  for (const t of await readAllTransactions(api, linkId, {}, opts))
    if (ids.has(t.transaction_id)) found.set(t.transaction_id, t);
  return found;
}
