// POST /links/{id}/products (upstream-facts §3.5): refresh products of a link in the background. 202 with the link
// as it is when the refresh starts; the link's webhook hears link.product_refresh pending, then completed
// (product-refresh.ts). The spec's refresh rule: a product refreshed too recently (one hour for accounts, one day for
// every other product) is 429 with Retry-After saying when all of the asked products may be refreshed. The sandbox
// has no institution with refresh windows, the spec's other reason for 429.
import { z } from "zod";
import type { Route } from "../context";
import { apiErrors, parseWith } from "../http";
import { refreshWaitMs, startRefresh } from "../product-refresh";
import { PRODUCTS } from "../wire-vocabulary";
import { requireLink, requireProduct } from "./link-access";

/** RefreshProductsRequest (facts §3.5): at least one product. */
const refreshProductsRequestSchema = z.object({ products: z.array(z.enum(PRODUCTS)).min(1) });

export const productRoutes: Route[] = [
  {
    method: "POST",
    template: "/links/{id}/products",
    async handle(ctx) {
      const body = parseWith(refreshProductsRequestSchema, await ctx.json());
      const { store, options } = ctx.world;
      const link = requireLink(store, ctx.params.id ?? "");
      if (link.state === "connecting" || link.state === "awaiting_token_exchange") {
        throw apiErrors.badState(
          "link_not_ready",
          `The link is in state ${link.state}; it has nothing to refresh yet.`,
        );
      }
      // A link in error cannot reach its institution: it must be reconnected first. The link's own error code says why.
      if (link.state === "error") {
        throw apiErrors.badState(
          link.error_code ?? "system_error",
          `The link is in state error (${link.error_code ?? "unknown"}); reconnect it before refreshing.`,
        );
      }
      const products = [...new Set(body.products)];
      for (const product of products) requireProduct(link, product);
      const nowMs = options.now();
      const waits = products
        .map((product) => ({
          product,
          waitMs: refreshWaitMs(
            link.products[product] ?? { refreshed_at: null, last_attempted_at: null },
            product,
            nowMs,
          ),
        }))
        .filter((entry) => entry.waitMs > 0);
      if (waits.length > 0) {
        const longest = Math.max(...waits.map((entry) => entry.waitMs));
        const names = waits
          .map((entry) => `${entry.product} (again from ${new Date(nowMs + entry.waitMs).toISOString()})`)
          .join(", ");
        throw apiErrors.refreshTooSoon(`Refreshed too recently: ${names}.`, Math.ceil(longest / 1000));
      }
      startRefresh(ctx.world, link, products);
      return { status: 202, body: ctx.world.wire.link(link) };
    },
  },
];
