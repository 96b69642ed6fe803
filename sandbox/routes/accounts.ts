// GET /links/{id}/accounts and GET /links/{id}/accounts/{account_id} (shapes: upstream-facts §9). Link-scoped: the
// same checks, in the same order, as the link's transactions (404, 410, 422 while connecting, 403 without the
// accounts product).
import type { Route } from "../context";
import { apiErrors } from "../http";
import { toWireLink } from "../types";
import { requireProduct, requireReadyLink } from "./link-access";

export const accountRoutes: Route[] = [
  {
    method: "GET",
    template: "/links/{id}/accounts",
    async handle({ params, query, world }) {
      const link = requireReadyLink(world.store, params.id ?? "");
      requireProduct(link, "accounts");
      // Repeated keys (the Python SDK) and comma-joined values (the older Node SDK) both name several accounts.
      const wanted = new Set(query.getAll("account_ids").flatMap((value) => value.split(",")).filter(Boolean));
      const accounts = world.store.dataOf(link).accounts.filter((account) => wanted.size === 0 || wanted.has(account.account_id));
      return { status: 200, body: { accounts, link: toWireLink(link) } };
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
      return { status: 200, body: { account, link: toWireLink(link) } };
    },
  },
];
