// GET /links/{id}/transactions, GET /links/{id}/transactions/sync and POST /links/{id}/transactions/{txn_id}/enrichment.
import { z } from "zod";
import type { Route } from "../context";
import { applyCorrection, resolveCorrection, similarPastTransactions } from "../enrich";
import { apiErrors, issue, parseWith, type ValidationIssue } from "../http";
import { accountIdsParam, integerParam, transactionsPageParams } from "../query-params";
import { decodeSyncCursor, syncPage } from "../sync-log";
import type { AccountRecord, TransactionRecord } from "../types";
import { categoryOf, CATEGORIES, SUBCATEGORIES } from "../wire-vocabulary";
import { requireLink, requireProduct, requireReadyLink } from "./link-access";

/**
 * Correct Enrichment's body (spec endpoint 1; facts §6 BudCategory): a category of today's taxonomy and optionally a
 * subcategory. The spec does not say whether the subcategory must belong to the category; the sandbox refuses one of
 * another category, so a correction never stores a pair no screen can show. Pre-2025 values are refused like any
 * other value outside the taxonomy: transactions keep them, corrections cannot set them.
 */
const correctEnrichmentRequestSchema = z
  .object({ category: z.enum(CATEGORIES), subcategory: z.enum(SUBCATEGORIES).optional() })
  .refine((body) => body.subcategory === undefined || categoryOf(body.subcategory) === body.category, {
    message: "subcategory does not belong to category",
    path: ["subcategory"],
  });

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
      const today = new Date(world.options.now()).toISOString().slice(0, 10);
      const { page, size, startDate, endDate } = transactionsPageParams(query, today);

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
      const body = {
        total: matching.length,
        page,
        size: transactions.length,
        transactions: world.wire.transactions(link, transactions, data.transactions),
        accounts: world.wire.accounts(accounts),
        link: world.wire.link(link),
      };
      return { status: 200, body: world.wire.envelope(body, link) };
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
      const body = {
        transactions: {
          created: world.wire.transactions(link, page.created, data.transactions),
          updated: world.wire.transactions(link, page.updated, data.transactions),
          removed: [],
        },
        accounts: world.wire.accounts(data.accounts),
        cursor: { next: page.next },
        has_more: page.hasMore,
        link: world.wire.link(link),
      };
      return { status: 200, body: world.wire.envelope(body, link) };
    },
  },
  {
    method: "POST",
    template: "/links/{id}/transactions/{txn_id}/enrichment",
    async handle(ctx) {
      const asked = parseWith(correctEnrichmentRequestSchema, await ctx.json());
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

      const correction = resolveCorrection(transaction, asked.category, asked.subcategory);
      applyCorrection(transaction, correction);
      ctx.world.store.corrections.remember(transaction, correction);
      // Sync reports the corrected transaction as updated; no webhook, as the change is the client's own.
      ctx.world.store.noteTransactionsUpdated(link, [transaction.transaction_id]);
      // Similar past transactions come back as they are: the client decides whether to correct them too.
      const transactions = [transaction, ...similarPastTransactions(data, transaction)];
      const { wire } = ctx.world;
      const body = {
        transactions: wire.transactions(link, transactions, data.transactions),
        accounts: wire.accounts(accountsOf(data.accounts, transactions)),
        link: wire.link(link),
        cursor: { next: "" },
      };
      return { status: 200, body: wire.envelope(body, link) };
    },
  },
];
