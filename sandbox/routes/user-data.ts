// GET /users/{id}/accounts (upstream-facts §9) and GET /users/{id}/transactions (§4.3): one customer user's accounts
// and transactions across all their links; not in the spec. They gather from the links whose data the link-scoped
// reads would serve (not deleted, not connecting or awaiting the token exchange, granted the product), each item
// written as those reads write it, so drift shows the same way. Like GET /users/{id}/links, the upstream answers only
// 401 as an error here, so an unknown user has no data rather than a 404; the spec's Limits table has no row for
// either route: they are not rate limited.
import type { Route, SandboxWorld } from "../context";
import { accountIdsParam, transactionsPageParams } from "../query-params";
import { compareTransactionsNewestFirst, type LinkData, type LinkRecord, type TransactionRecord } from "../types";
import type { Product } from "../wire-vocabulary";
import { servesDataOf } from "./link-access";

function linksWithData(world: SandboxWorld, userId: string, product: Product): LinkRecord[] {
  return world.store.linksOfUser(userId).filter((link) => servesDataOf(link, product));
}

interface Found {
  link: LinkRecord;
  data: LinkData;
  transaction: TransactionRecord;
}

export const userDataRoutes: Route[] = [
  {
    // {links: {<link_id>: {accounts, last_synced_at}}}. `institution_ids` is deprecated upstream and ignored. With an
    // `account_ids` filter, a link none of whose accounts is asked for is left out.
    method: "GET",
    template: "/users/{id}/accounts",
    async handle({ params, query, world }) {
      const userId = params.id ?? "";
      const wanted = accountIdsParam(query);
      const links: Record<string, { accounts: unknown[]; last_synced_at: string | null }> = {};
      for (const link of linksWithData(world, userId, "accounts")) {
        const accounts = world.store
          .dataOf(link)
          .accounts.filter((account) => wanted.size === 0 || wanted.has(account.account_id));
        if (wanted.size > 0 && accounts.length === 0) continue;
        links[link.link_id] = { accounts: world.wire.accounts(accounts), last_synced_at: link.last_synced_at };
      }
      return { status: 200, body: world.wire.pageEnvelope({ links }, `user-accounts:${userId}`) };
    },
  },
  {
    // A page of every link's transactions, newest first across links (the per-link order: date, time, then id), with
    // `accounts` naming the account of each transaction on the page (BasicAccountDetails: name, last_synced_at,
    // link_id). The filter is `account_id` here, not `account_ids`; the deprecated `transaction_type`, `category` and
    // `institution_id` are ignored.
    method: "GET",
    template: "/users/{id}/transactions",
    async handle({ params, query, world }) {
      const userId = params.id ?? "";
      const today = new Date(world.options.now()).toISOString().slice(0, 10);
      const { page, size, startDate, endDate } = transactionsPageParams(query, today);
      const wanted = accountIdsParam(query, "account_id");

      const matching: Found[] = [];
      for (const link of linksWithData(world, userId, "transactions")) {
        const data = world.store.dataOf(link);
        for (const transaction of data.transactions) {
          if (transaction.date < startDate || transaction.date > endDate) continue;
          if (wanted.size > 0 && !wanted.has(transaction.account_id)) continue;
          matching.push({ link, data, transaction });
        }
      }
      matching.sort((a, b) => compareTransactionsNewestFirst(a.transaction, b.transaction));
      const onPage = matching.slice((page - 1) * size, page * size);

      // Written link by link, with each link's whole list, so a malformed_item link's unreadable transaction is the
      // same one its own listing serves.
      const byLink = new Map<LinkRecord, { data: LinkData; transactions: TransactionRecord[] }>();
      for (const { link, data, transaction } of onPage) {
        const group = byLink.get(link) ?? { data, transactions: [] };
        group.transactions.push(transaction);
        byLink.set(link, group);
      }
      const written = new Map<TransactionRecord, unknown>();
      for (const [link, { data, transactions }] of byLink) {
        const wire = world.wire.transactions(link, transactions, data.transactions);
        transactions.forEach((transaction, index) => written.set(transaction, wire[index]));
      }

      const accounts: Record<string, { name: string; last_synced_at: string | null; link_id: string }> = {};
      for (const { link, data, transaction } of onPage) {
        const account = data.accounts.find((candidate) => candidate.account_id === transaction.account_id);
        if (account && !accounts[account.account_id]) {
          accounts[account.account_id] = {
            name: account.name,
            last_synced_at: link.last_synced_at,
            link_id: link.link_id,
          };
        }
      }
      // `size` is the number of transactions in this batch, as on GET /links/{id}/transactions.
      const body = {
        total: matching.length,
        page,
        size: onPage.length,
        transactions: onPage.map((found) => written.get(found.transaction)),
        accounts,
      };
      return { status: 200, body: world.wire.pageEnvelope(body, `user-transactions:${userId}`) };
    },
  },
];
