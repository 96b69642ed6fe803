// GET /links/{id}/transactions, GET /links/{id}/transactions/sync and POST /links/{id}/transactions/{txn_id}/enrichment.
import { correctEnrichmentRequestSchema } from "../../lib/upstream/schemas";
import type { Route } from "../context";
import { applyCorrection, resolveCorrection, similarPastTransactions } from "../enrich";
import { apiErrors, issue, parseWith, type ValidationIssue } from "../http";
import { accountIdsParam, dateParam, integerParam, isValidDate } from "../query-params";
import { decodeSyncCursor, syncPage } from "../sync-log";
import { toWireLink, toWireTransaction, type AccountRecord, type TransactionRecord } from "../types";
import { requireLink, requireProduct, requireReadyLink } from "./link-access";

const DAY_MS = 86_400_000;
/** Upstream default window: the 90 days up to today; `start_date=1900-01-01` asks for everything. */
const DEFAULT_WINDOW_DAYS = 90;

function accountsOf(accounts: AccountRecord[], transactions: TransactionRecord[]): AccountRecord[] {
  const used = new Set(transactions.map((transaction) => transaction.account_id));
  return accounts.filter((account) => used.has(account.account_id));
}

export const transactionRoutes: Route[] = [
  {
    method: "GET",
    template: "/links/{id}/transactions",
    async handle({ params, query, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "transactions");
      const problems: ValidationIssue[] = [];
      const page = integerParam(query.get("page"), "page", 1, 1, Infinity, problems);
      const size = integerParam(query.get("size"), "size", 50, 1, 1000, problems);
      const today = new Date(world.options.now()).toISOString().slice(0, 10);
      const endDate = dateParam(query.get("end_date"), "end_date", today, problems);
      const defaultStart = isValidDate(endDate)
        ? new Date(new Date(`${endDate}T00:00:00Z`).getTime() - DEFAULT_WINDOW_DAYS * DAY_MS).toISOString().slice(0, 10)
        : today;
      const startDate = dateParam(query.get("start_date"), "start_date", defaultStart, problems);
      if (problems.length === 0 && startDate > endDate) {
        problems.push(issue(["query", "start_date"], "start_date must not be after end_date", "value_error"));
      }
      if (problems.length > 0) throw apiErrors.validation(problems);

      const accountIds = accountIdsParam(query);
      const data = world.store.dataOf(link);
      const matching = data.transactions.filter(
        (transaction) =>
          transaction.date >= startDate &&
          transaction.date <= endDate &&
          (accountIds.size === 0 || accountIds.has(transaction.account_id)),
      );
      const transactions = matching.slice((page - 1) * size, page * size);
      // The accounts in scope of the query, even for an empty page, so a client can always label its rows.
      const accounts = data.accounts.filter((account) => accountIds.size === 0 || accountIds.has(account.account_id));
      // `size` is the number of transactions in this batch, as the upstream reports it.
      const asStrings = world.options.amountsAsStrings;
      return {
        status: 200,
        body: {
          total: matching.length,
          page,
          size: transactions.length,
          transactions: transactions.map((transaction) => toWireTransaction(transaction, asStrings)),
          accounts,
          link: toWireLink(link),
        },
      };
    },
  },
  {
    // Changes since a cursor (upstream-facts §4.2); no cursor = the whole history, as created. sync-log.ts.
    method: "GET",
    template: "/links/{id}/transactions/sync",
    async handle({ params, query, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "transactions");
      const problems: ValidationIssue[] = [];
      const size = integerParam(query.get("size"), "size", 50, 1, 500, problems);
      const rawCursor = query.get("cursor");
      const cursor = rawCursor ? decodeSyncCursor(rawCursor) : null;
      if (rawCursor && !cursor)
        problems.push(
          issue(["query", "cursor"], "unknown cursor; use cursor.next of an earlier answer", "value_error"),
        );
      if (problems.length > 0) throw apiErrors.validation(problems);
      const data = world.store.dataOf(link);
      const page = syncPage(data.transactions, world.store.syncLogOf(link.link_id), cursor, size);
      const asStrings = world.options.amountsAsStrings;
      return {
        status: 200,
        body: {
          transactions: {
            created: page.created.map((transaction) => toWireTransaction(transaction, asStrings)),
            updated: page.updated.map((transaction) => toWireTransaction(transaction, asStrings)),
            removed: [],
          },
          accounts: data.accounts,
          cursor: { next: page.next },
          has_more: page.hasMore,
          link: toWireLink(link),
        },
      };
    },
  },
  {
    method: "POST",
    template: "/links/{id}/transactions/{txn_id}/enrichment",
    async handle(ctx) {
      const body = parseWith(correctEnrichmentRequestSchema, await ctx.json());
      const link = requireLink(ctx.world.store, ctx.params.id ?? "");
      if (link.state === "connecting" || link.state === "awaiting_token_exchange") {
        throw apiErrors.badState(
          "link_not_ready",
          `The link is in state ${link.state}; it has no transactions to correct.`,
        );
      }
      requireProduct(link, "transactions");
      const data = ctx.world.store.dataOf(link, { forUpdate: true });
      const transaction = data.transactions.find((candidate) => candidate.transaction_id === ctx.params.txn_id);
      if (!transaction) throw apiErrors.transactionNotFound();

      const correction = resolveCorrection(transaction, body.category, body.subcategory);
      applyCorrection(transaction, correction);
      ctx.world.store.corrections.remember(transaction, correction);
      // Sync reports the corrected transaction as updated; no webhook, as the change is the client's own.
      ctx.world.store.noteTransactionsUpdated(link, [transaction.transaction_id]);
      // Similar past transactions come back as they are: the client decides whether to correct them too.
      const transactions = [transaction, ...similarPastTransactions(data, transaction)];
      return {
        status: 200,
        body: {
          transactions: transactions.map((t) => toWireTransaction(t, ctx.world.options.amountsAsStrings)),
          accounts: accountsOf(data.accounts, transactions),
          link: toWireLink(link),
          cursor: { next: "" },
        },
      };
    },
  },
];
