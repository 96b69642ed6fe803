import "server-only";
import type { CallOptions, UpstreamApi } from "../upstream";
import type {
  UnreadableItem,
  WireAccount,
  WireBasicAccountDetails,
  WireLink,
  WireTransaction,
} from "../upstream/schemas";

// Reading a link's transactions through GET /links/{id}/transactions, which pages by number (up to 1000 a page) and
// filters only by date and account. Linkdesk reads whole date ranges and looks transactions up by id itself. A
// customer user's transactions across their links page the same way (GET /users/{id}/transactions).

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
  /** Transactions the pages carried that Linkdesk could not read: their ids and why, shown apart from the rest. */
  unreadable: UnreadableItem[];
  /** The accounts the pages named, each once. */
  accounts: WireAccount[];
  /** The link as the last page carried it (null if it could not be read there). */
  link: WireLink | null;
}

/** Like readAllTransactions, with the accounts and the link the pages carry (the correction desk labels rows with them). */
export async function readTransactionHistory(
  api: UpstreamApi,
  linkId: string,
  range: { startDate?: string; endDate?: string } = {},
  opts: CallOptions = {},
): Promise<TransactionHistory> {
  const transactions: WireTransaction[] = [];
  const unreadable: UnreadableItem[] = [];
  const accounts = new Map<string, WireAccount>();
  for (let page = 1; ; page++) {
    const result = await api.getTransactions(linkId, { page, size: TRANSACTIONS_PAGE_SIZE, ...range }, opts);
    transactions.push(...result.transactions);
    unreadable.push(...result.unreadableTransactions);
    for (const account of result.accounts) accounts.set(account.account_id, account);
    // A page is counted by what it carried, readable or not: an item set aside still took its place in the page.
    const carried = result.transactions.length + result.unreadableTransactions.length;
    if (carried < TRANSACTIONS_PAGE_SIZE || transactions.length + unreadable.length >= result.total) {
      return { transactions, unreadable, accounts: [...accounts.values()], link: result.link };
    }
  }
}

export interface UserTransactionHistory {
  transactions: WireTransaction[];
  /** Transactions the pages carried that Linkdesk could not read: their ids and why, shown apart from the rest. */
  unreadable: UnreadableItem[];
  /** The accounts the pages named, by account id: each one's name and link. */
  accounts: Record<string, WireBasicAccountDetails>;
}

/**
 * Every transaction of one customer user across their links in a date range (the whole history by default), newest
 * first as the upstream sends them, with the accounts the pages name. Only links the upstream has data of count.
 */
export async function readAllUserTransactions(
  api: UpstreamApi,
  customerUserId: string,
  range: { startDate?: string; endDate?: string } = {},
  opts: CallOptions = {},
): Promise<UserTransactionHistory> {
  const transactions: WireTransaction[] = [];
  const unreadable: UnreadableItem[] = [];
  const accounts: Record<string, WireBasicAccountDetails> = {};
  for (let page = 1; ; page++) {
    const result = await api.getUserTransactions(
      customerUserId,
      { page, size: TRANSACTIONS_PAGE_SIZE, ...range },
      opts,
    );
    transactions.push(...result.transactions);
    unreadable.push(...result.unreadableTransactions);
    Object.assign(accounts, result.accounts);
    // As for a link's pages: an item set aside still took its place in the page.
    const carried = result.transactions.length + result.unreadableTransactions.length;
    if (carried < TRANSACTIONS_PAGE_SIZE || transactions.length + unreadable.length >= result.total) {
      return { transactions, unreadable, accounts };
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
