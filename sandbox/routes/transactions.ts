// GET /links/{id}/transactions and POST /links/{id}/transactions/{txn_id}/enrichment.
import { correctEnrichmentRequestSchema } from "../../lib/upstream/schemas";
import type { Route } from "../context";
import { applyCorrection, resolveCorrection, similarPastTransactions } from "../enrich";
import { apiErrors, issue, parseWith, type ValidationIssue } from "../http";
import { toWireLink, toWireTransaction, type AccountRecord, type TransactionRecord } from "../types";
import { requireLink, requireProduct, requireReadyLink } from "./link-access";

const DAY_MS = 86_400_000;
/** Upstream default window: the 90 days up to today; `start_date=1900-01-01` asks for everything. */
const DEFAULT_WINDOW_DAYS = 90;

function integerParam(value: string | null, name: string, fallback: number, min: number, max: number, problems: ValidationIssue[]): number {
  if (value === null || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    problems.push(issue(["query", name], `${name} must be an integer from ${min} to ${max === Infinity ? "up" : max}`, "range"));
    return fallback;
  }
  return parsed;
}

function dateParam(value: string | null, name: string, fallback: string, problems: ValidationIssue[]): string {
  if (value === null || value === "") return fallback;
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(value) && isValidDate(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
  if (!valid) {
    problems.push(issue(["query", name], `${name} must be a date as YYYY-MM-DD`, "date_from_datetime_parsing"));
    return fallback;
  }
  return value;
}

function isValidDate(value: string): boolean {
  return !Number.isNaN(new Date(`${value}T00:00:00Z`).getTime());
}

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

      // Repeated keys (the Python SDK) and comma-joined values (the older Node SDK) both name several accounts.
      const accountIds = new Set(query.getAll("account_ids").flatMap((value) => value.split(",")).filter(Boolean));
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
    method: "POST",
    template: "/links/{id}/transactions/{txn_id}/enrichment",
    async handle(ctx) {
      const body = parseWith(correctEnrichmentRequestSchema, await ctx.json());
      const link = requireLink(ctx.world.store, ctx.params.id ?? "");
      if (link.state === "connecting" || link.state === "awaiting_token_exchange") {
        throw apiErrors.badState("link_not_ready", `The link is in state ${link.state}; it has no transactions to correct.`);
      }
      requireProduct(link, "transactions");
      const data = ctx.world.store.dataOf(link, { forUpdate: true });
      const transaction = data.transactions.find((candidate) => candidate.transaction_id === ctx.params.txn_id);
      if (!transaction) throw apiErrors.transactionNotFound();

      const correction = resolveCorrection(transaction, body.category, body.subcategory);
      applyCorrection(transaction, correction);
      ctx.world.store.corrections.remember(transaction, correction);
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
