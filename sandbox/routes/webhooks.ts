// Webhooks (upstream-facts §11): the upstream's test trigger (POST /webhooks/test/link/{id}) and signing keys
// (GET /.well-known/jwks.json), and the sandbox's controls: the deliveries made, a key rotation, and the events a test
// needs on demand (a link changing state, a product refresh step).
import { z } from "zod";
import type { Route } from "../context";
import { apiErrors, issue, parseWith } from "../http";
import { setProductState } from "../product-refresh";
import {
  linkStateChangedEvent,
  notify,
  notifyStateChanged,
  productRefreshEvent,
  transactionsUpdatesEvent,
  type WebhookPayload,
} from "../webhook-events";
import type { Delivery } from "../webhooks";
import { toWireLink } from "../wire";
import {
  LINK_ERROR_CODES,
  LINK_PRODUCT_STATES,
  LINK_STATES,
  PRODUCTS,
  TEST_WEBHOOK_EVENTS,
  type Product,
} from "../wire-vocabulary";
import { requireLink } from "./link-access";

const testWebhookRequestSchema = z.object({
  webhook_event: z.enum(TEST_WEBHOOK_EVENTS),
  webhook_idempotency_key: z.string().min(1),
});

const linkStateRequestSchema = z
  .object({ state: z.enum(LINK_STATES), error_code: z.enum(LINK_ERROR_CODES).optional() })
  .strict();

const productRefreshRequestSchema = z
  .object({
    state: z.enum(LINK_PRODUCT_STATES),
    error_code: z.string().min(1).optional(),
    error_message: z.string().min(1).optional(),
  })
  .strict();

/** A delivery as GET /_sandbox/webhooks shows it: its record, and the body sent both as bytes and as JSON. */
function deliveryView(delivery: Delivery): Record<string, unknown> {
  return { ...delivery, payload: JSON.parse(delivery.body) as unknown };
}

export const webhookRoutes: Route[] = [
  {
    // Sends the link's webhook an example of the event asked for, under the caller's idempotency key. Every sandbox
    // link is a sandbox link, so none is refused with 403 (the upstream's answer for live links).
    method: "POST",
    template: "/webhooks/test/link/{id}",
    async handle(ctx) {
      const body = parseWith(testWebhookRequestSchema, await ctx.json());
      const { world } = ctx;
      const link = requireLink(world.store, ctx.params.id ?? "");
      if (!link.webhook) throw apiErrors.badConfig("The link has no webhook; set one with PATCH /links/{id}.");
      const key = body.webhook_idempotency_key;
      let payload: WebhookPayload;
      if (body.webhook_event === "link.state_changed") {
        payload = linkStateChangedEvent(world, link, key);
      } else if (body.webhook_event === "transactions.updates_available") {
        payload = transactionsUpdatesEvent(world, link, key);
      } else {
        const product = PRODUCTS.find((candidate) => link.products[candidate]) ?? "transactions";
        payload = productRefreshEvent(world, link, product, "completed", {
          idempotencyKey: key,
          event: body.webhook_event,
        });
      }
      const delivery = notify(world, link, payload) as Delivery;
      return { status: 200, body: { delivery_token: delivery.delivery_token } };
    },
  },
  {
    method: "GET",
    template: "/.well-known/jwks.json",
    public: true,
    async handle({ world }) {
      return { status: 200, body: world.signingKeys.jwks(), headers: { "Cache-Control": "public, max-age=3600" } };
    },
  },
  {
    // Oldest first; `?link_id=` and `?event=` narrow the list. Kept: the last 1000.
    method: "GET",
    template: "/_sandbox/webhooks",
    control: true,
    async handle({ query, world }) {
      const deliveries = world.webhooks.list({
        linkId: query.get("link_id") ?? undefined,
        event: query.get("event") ?? undefined,
      });
      return {
        status: 200,
        body: { deliveries: deliveries.map(deliveryView), outstanding: world.webhooks.outstanding },
      };
    },
  },
  {
    method: "POST",
    template: "/_sandbox/webhooks/rotate-key",
    control: true,
    async handle({ world }) {
      return { status: 200, body: world.signingKeys.rotate() };
    },
  },
  {
    // Body {state, error_code?}: the link takes the state (error_code only with state error, system_error if none)
    // and its webhook hears link.state_changed. A deleted link may be brought back. Like every control route's, the
    // answer shows the link as stored, without drift: a test steering the sandbox sees what it set.
    method: "POST",
    template: "/_sandbox/links/{id}/state",
    control: true,
    async handle(ctx) {
      const body = parseWith(linkStateRequestSchema, await ctx.json());
      if (body.error_code && body.state !== "error") {
        throw apiErrors.validation([
          issue(["body", "error_code"], "error_code goes only with state error", "value_error"),
        ]);
      }
      const { world } = ctx;
      const link = requireLink(world.store, ctx.params.id ?? "", { allowDeleted: true });
      world.store.setState(link, body.state, body.state === "error" ? (body.error_code ?? "system_error") : null);
      const delivery = notifyStateChanged(world, link);
      return { status: 200, body: { link: toWireLink(link), delivery_token: delivery?.delivery_token ?? null } };
    },
  },
  {
    // Body {state, error_code?, error_message?}: one step of a product refresh, as product-refresh.ts applies it
    // (completed sets refreshed_at; failed sets the product's error), heard by the webhook as link.product_refresh.
    method: "POST",
    template: "/_sandbox/links/{id}/products/{product}/refresh",
    control: true,
    async handle(ctx) {
      const body = parseWith(productRefreshRequestSchema, await ctx.json());
      const product = z.enum(PRODUCTS).safeParse(ctx.params.product);
      if (!product.success)
        throw apiErrors.validation([
          issue(["path", "product"], `product must be one of ${PRODUCTS.join(", ")}`, "enum"),
        ]);
      const { world } = ctx;
      const link = requireLink(world.store, ctx.params.id ?? "");
      const name: Product = product.data;
      if (!link.products[name]) throw apiErrors.forbidden(`The link has no ${name} product.`);
      const delivery = setProductState(world, link, name, body.state, {
        errorCode: body.error_code,
        errorMessage: body.error_message,
      });
      return { status: 200, body: { link: toWireLink(link), delivery_token: delivery?.delivery_token ?? null } };
    },
  },
];
