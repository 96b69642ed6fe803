// POST /link-session, POST /link-session/exchange-token, and the sandbox's stand-in for the end user finishing the
// linking flow: POST /_sandbox/link-sessions/{token}/complete.
import { z } from "zod";
import { DEFAULT_SESSION_INSTITUTION_ID, findInstitution, INSTITUTIONS } from "../catalog";
import type { Route, SandboxWorld } from "../context";
import { ApiError, apiErrors, issue, parseWith } from "../http";
import { customerUserSchema } from "../request-shapes";
import type { LinkRecord } from "../types";
import { notify, notifyStateChanged, productRefreshEvent } from "../webhook-events";
import { PRODUCTS, type Product } from "../wire-vocabulary";
import { requireLink } from "./link-access";

/** CreateLinkSessionRequest (facts §7.1): the fields the sandbox uses; the others are taken and ignored. */
const linkSessionRequestSchema = z.object({
  customer_user: customerUserSchema,
  redirect_uri: z.string().min(1),
  existing_link_id: z.string().optional(),
  institution_id: z.string().optional(),
  webhook: z.string().optional(),
  link_tags: z.array(z.string()).optional(),
});

/** ExchangeTokenRequest (spec endpoint 2). */
const exchangeTokenRequestSchema = z.object({ exchangeable_token: z.string().min(1) });

/** What a new link session grants when the sandbox's end user says yes to everything asked by default. */
const SESSION_PRODUCTS: Product[] = ["accounts", "transactions", "enrichment"];

const completeRequestSchema = z
  .object({
    institution_id: z.string().min(1).optional(),
    outcome: z.enum(["success", "error"]).optional(),
  })
  .strict();

const iso = (ms: number) => new Date(ms).toISOString();

export const linkSessionRoutes: Route[] = [
  {
    method: "POST",
    template: "/link-session",
    async scopeKeys(ctx) {
      // The per-user and per-link rows need the body; an unreadable body only meets the per-app row.
      try {
        const body = (await ctx.json()) as { customer_user?: { id?: unknown }; existing_link_id?: unknown };
        return {
          user: typeof body.customer_user?.id === "string" ? body.customer_user.id : undefined,
          link: typeof body.existing_link_id === "string" ? body.existing_link_id : undefined,
        };
      } catch {
        return {};
      }
    },
    async handle(ctx) {
      const body = parseWith(linkSessionRequestSchema, await ctx.json());
      const { store, settings } = ctx.world;
      // The app's configuration is checked before the session's contents: an unregistered redirect is a 403.
      if (settings.redirectUris !== null && !settings.redirectUris.includes(body.redirect_uri)) {
        throw new ApiError(
          403,
          "link_session_error.forbidden_config",
          "The redirect_uri is not one of the redirect URIs registered for this app.",
        );
      }
      let products = SESSION_PRODUCTS;
      if (body.existing_link_id !== undefined) {
        const existing = requireLink(store, body.existing_link_id);
        products = PRODUCTS.filter((product) => existing.products[product]);
      } else if (body.institution_id !== undefined && !findInstitution(body.institution_id)) {
        throw apiErrors.validation([issue(["body", "institution_id"], "unknown institution", "value_error")]);
      }
      const session = store.createSession({
        customerUserId: body.customer_user.id,
        existingLinkId: body.existing_link_id ?? null,
        institutionId: body.institution_id ?? null,
        webhook: body.webhook ?? null,
        linkTags: body.link_tags ?? [],
        products,
      });
      return { status: 201, body: { link_session_token: session.token } };
    },
  },
  {
    method: "POST",
    template: "/link-session/exchange-token",
    async handle(ctx) {
      const body = parseWith(exchangeTokenRequestSchema, await ctx.json());
      const link = exchangeToken(ctx.world, body.exchangeable_token);
      return { status: 201, body: { link_id: link.link_id, link: ctx.world.wire.link(link) } };
    },
  },
  {
    method: "POST",
    template: "/_sandbox/link-sessions/{token}/complete",
    control: true,
    async handle(ctx) {
      const raw = await ctx.rawBody();
      const body = parseWith(completeRequestSchema, raw.length === 0 ? {} : await ctx.json());
      const { link, exchangeableToken } = completeSession(ctx.world, ctx.params.token ?? "", body);
      return { status: 200, body: { exchangeable_token: exchangeableToken, link_id: link.link_id } };
    },
  },
];

/** The end user finishing a link session (a relink keeps the link's id), as the control route and the demo do it. */
export function completeSession(
  world: SandboxWorld,
  token: string,
  body: z.infer<typeof completeRequestSchema>,
): { link: LinkRecord; exchangeableToken: string } {
  const { store, options } = world;
  const session = store.sessions.get(token);
  if (!session) throw new ApiError(404, "link_session_error.not_found", "Link session not found.");
  if (session.completed) {
    throw new ApiError(409, "link_session_error.already_completed", "This link session was already completed.");
  }
  const institutionId = body.institution_id ?? session.institutionId ?? DEFAULT_SESSION_INSTITUTION_ID;
  const institution = findInstitution(institutionId);
  if (!institution) {
    throw apiErrors.validation([
      issue(
        ["body", "institution_id"],
        `unknown institution; one of ${INSTITUTIONS.map((i) => i.institution_id).join(", ")}`,
        "value_error",
      ),
    ]);
  }
  const nowMs = options.now();
  let link: LinkRecord;
  if (session.existingLinkId) {
    // Relink: same link, possibly another provider; webhook and tags are replaced by the session's (upstream rule).
    link = requireLink(store, session.existingLinkId);
    link.provider = link.provider === "moneykit" ? "plaid" : "moneykit";
    link.webhook = session.webhook;
    link.link_tags = session.linkTags;
    delete link.tags;
  } else {
    link = {
      link_id: store.newLinkId(),
      institution_id: institution.institution_id,
      institution_name: institution.name,
      institution_avatar: institution.avatar,
      state: "connecting",
      error_code: null,
      last_synced_at: null,
      auth_expired_at: null,
      provider: "moneykit",
      link_tags: session.linkTags,
      webhook: session.webhook,
      products: Object.fromEntries(session.products.map((p) => [p, { refreshed_at: null, last_attempted_at: null }])),
      available_products: PRODUCTS.filter((product) => !session.products.includes(product)),
      createdAtMs: nowMs,
      deletedAtMs: null,
      origin: "session",
      dataSeed: store.newDataSeed(),
      customerUserId: session.customerUserId,
    };
    store.addLink(link, null);
  }
  session.completed = true;
  // outcome "error": the user gave up. The link lands in state error, and its token cannot be exchanged (400).
  if (body.outcome === "error") {
    link.state = "error";
    link.error_code = "user_error";
  } else {
    link.state = "awaiting_token_exchange";
    link.error_code = null;
  }
  notifyStateChanged(world, link);
  const exchangeable = store.createExchangeToken(link.link_id);
  return { link, exchangeableToken: exchangeable.token };
}

/** The product exchanging a finished session's token: the link is connected and its products fetched. */
export function exchangeToken(world: SandboxWorld, token: string): LinkRecord {
  const { store, options } = world;
  const exchangeable = store.exchangeTokens.get(token);
  if (!exchangeable) throw apiErrors.invalidTokenExchange("unknown token");
  if (exchangeable.used) throw apiErrors.invalidTokenExchange("token already used");
  const link = store.getLink(exchangeable.linkId);
  if (!link || link.state !== "awaiting_token_exchange") {
    throw apiErrors.invalidTokenExchange(`link is in state ${link?.state ?? "unknown"}`);
  }
  exchangeable.used = true;
  const now = iso(options.now());
  link.state = "connected";
  link.error_code = null;
  link.auth_expired_at = null;
  link.last_synced_at = now;
  for (const product of Object.keys(link.products) as Product[]) {
    link.products[product] = {
      refreshed_at: now,
      last_attempted_at: now,
      ...(product === "transactions" ? { last_enriched: now } : {}),
    };
  }
  // The link is connected and its products fetched: the webhook hears the new state, then each product's refresh.
  notifyStateChanged(world, link);
  for (const product of Object.keys(link.products) as Product[])
    notify(world, link, productRefreshEvent(world, link, product, "completed"));
  return link;
}
