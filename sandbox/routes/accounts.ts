// GET /links/{id}/accounts, GET /links/{id}/accounts/numbers, GET /links/{id}/accounts/{account_id} and
// GET /links/{id}/identity (shapes: upstream-facts §9). Link-scoped: the same checks, in the same order, as the link's
// transactions (404, 410, 422 while connecting, 403 without the product the call reads).
import type { Route } from "../context";
import { accountNumbersOf, ownersOf } from "../account-details";
import { apiErrors } from "../http";
import { accountIdsParam } from "../query-params";
import { requireProduct, requireReadyLink } from "./link-access";

export const accountRoutes: Route[] = [
  {
    method: "GET",
    template: "/links/{id}/accounts",
    async handle({ params, query, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "accounts");
      const wanted = accountIdsParam(query);
      const accounts = world.store
        .dataOf(link)
        .accounts.filter((account) => wanted.size === 0 || wanted.has(account.account_id));
      const body = { accounts: world.wire.accounts(accounts), link: world.wire.link(link) };
      return { status: 200, body: world.wire.envelope(body, link) };
    },
  },
  {
    // Before /accounts/{account_id}: "numbers" is a literal segment, not an account id.
    method: "GET",
    template: "/links/{id}/accounts/numbers",
    async handle({ params, query, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "account_numbers");
      const wanted = accountIdsParam(query);
      const accounts = world.store
        .dataOf(link)
        .accounts.filter((account) => wanted.size === 0 || wanted.has(account.account_id))
        .map((account) => ({ ...world.wire.account(account), numbers: accountNumbersOf(account) }));
      return { status: 200, body: world.wire.envelope({ accounts, link: world.wire.link(link) }, link) };
    },
  },
  {
    method: "GET",
    template: "/links/{id}/accounts/{account_id}",
    async handle({ params, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "accounts");
      const account = world.store.dataOf(link).accounts.find((candidate) => candidate.account_id === params.account_id);
      if (!account) throw apiErrors.accountNotFound();
      const body = { account: world.wire.account(account), link: world.wire.link(link) };
      return { status: 200, body: world.wire.envelope(body, link) };
    },
  },
  {
    method: "GET",
    template: "/links/{id}/identity",
    async handle({ params, query, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "identity");
      const wanted = accountIdsParam(query);
      const all = world.store.dataOf(link).accounts;
      const owners = ownersOf(link, all);
      const accounts = all
        .filter((account) => wanted.size === 0 || wanted.has(account.account_id))
        .map((account) => ({ ...world.wire.account(account), owners: structuredClone(owners) }));
      return { status: 200, body: world.wire.envelope({ accounts, link: world.wire.link(link) }, link) };
    },
  },
];
