// GET /links/{id}/investments/holdings and GET /links/{id}/investments/transactions (shapes: the public SDKs'
// GetHoldingsResponse and GetInvestmentTransactionsResponse; data: investments.ts). Link-scoped checks as for
// accounts, with the investments product.
import type { Route } from "../context";
import { apiErrors, issue, type ValidationIssue } from "../http";
import { investmentDataOf } from "../investments";
import { accountIdsParam, dateParam, integerParam } from "../query-params";
import { requireProduct, requireReadyLink } from "./link-access";

export const investmentRoutes: Route[] = [
  {
    method: "GET",
    template: "/links/{id}/investments/holdings",
    async handle({ params, query, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "investments");
      const wanted = accountIdsParam(query);
      const data = investmentDataOf(link, world.store.anchorMs);
      const holdings = data.holdings.filter((holding) => wanted.size === 0 || wanted.has(holding.account_id));
      const held = new Set(holdings.map((holding) => holding.security_id));
      const body = {
        holdings,
        securities: data.securities.filter((security) => held.has(security.security_id)),
        accounts: world.wire.accounts(
          data.accounts.filter((account) => wanted.size === 0 || wanted.has(account.account_id)),
        ),
        link: world.wire.link(link),
      };
      return { status: 200, body: world.wire.envelope(body, link) };
    },
  },
  {
    // Paged and newest first like the link's transactions; without dates, the whole (short) history.
    method: "GET",
    template: "/links/{id}/investments/transactions",
    async handle({ params, query, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "investments");
      const problems: ValidationIssue[] = [];
      const page = integerParam(query.get("page"), "page", 1, 1, Infinity, problems);
      const size = integerParam(query.get("size"), "size", 50, 1, 1000, problems);
      const startDate = dateParam(query.get("start_date"), "start_date", "0000-01-01", problems);
      const endDate = dateParam(query.get("end_date"), "end_date", "9999-12-31", problems);
      if (problems.length === 0 && startDate > endDate)
        problems.push(issue(["query", "start_date"], "start_date must not be after end_date", "value_error"));
      if (problems.length > 0) throw apiErrors.validation(problems);
      const wanted = accountIdsParam(query);
      const data = investmentDataOf(link, world.store.anchorMs);
      const matching = data.transactions.filter(
        (transaction) =>
          transaction.date >= startDate &&
          transaction.date <= endDate &&
          (wanted.size === 0 || wanted.has(transaction.account_id)),
      );
      const investmentTransactions = matching.slice((page - 1) * size, page * size);
      const involved = new Set(investmentTransactions.map((transaction) => transaction.security_id));
      const body = {
        total: matching.length,
        page,
        size: investmentTransactions.length,
        investment_transactions: investmentTransactions,
        securities: data.securities.filter((security) => involved.has(security.security_id)),
        accounts: world.wire.accounts(
          data.accounts.filter((account) => wanted.size === 0 || wanted.has(account.account_id)),
        ),
        link: world.wire.link(link),
      };
      return { status: 200, body: world.wire.envelope(body, link) };
    },
  },
];
