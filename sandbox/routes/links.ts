// GET /links, GET /links/{id}, PATCH /links/{id}, DELETE /links/{id}, and GET /users/{id}/links (upstream-facts §2;
// not in the spec).
import { z } from "zod";
import type { Route } from "../context";
import { apiErrors, isWebAddress, issue, parseWith } from "../http";
import { decodeCursor } from "../store";
import { notifyStateChanged } from "../webhook-events";
import { requireLink } from "./link-access";

/** Tags are under 100 characters and start with a letter or digit (upstream-facts §3.5 UpdateLinkRequest). */
const linkTagSchema = z
  .string()
  .min(1, { abort: true })
  .max(99, { abort: true })
  .regex(/^[A-Za-z0-9]/, "a tag must start with a letter or digit");

/**
 * UpdateLinkRequest (upstream-facts §3.5). `webhook: null` removes the webhook. The upstream types the webhook as a
 * string of 1–65536 characters; the sandbox also wants an http(s) address, as it delivers to it. `tags` is the
 * deprecated name of `link_tags`, taken when `link_tags` is absent.
 */
const updateLinkRequestSchema = z.object({
  webhook: z
    .string()
    .min(1, { abort: true })
    .max(65_536, { abort: true })
    .refine(isWebAddress, "webhook must be an absolute http or https URL")
    .nullable()
    .optional(),
  link_tags: z.array(linkTagSchema).optional(),
  tags: z.array(linkTagSchema).optional(),
});

const LIMIT_MIN = 500;
const LIMIT_MAX = 5000;
const LIMIT_DEFAULT = 1000;

export const linkRoutes: Route[] = [
  {
    method: "GET",
    template: "/links",
    async handle({ query, world }) {
      const rawLimit = query.get("limit");
      const limit = rawLimit === null || rawLimit === "" ? LIMIT_DEFAULT : Number(rawLimit);
      if (!Number.isInteger(limit) || limit < LIMIT_MIN || limit > LIMIT_MAX) {
        throw apiErrors.validation([
          issue(["query", "limit"], `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`, "range"),
        ]);
      }
      const rawCursor = query.get("cursor");
      const cursor = rawCursor ? decodeCursor(rawCursor) : null;
      if (rawCursor && !cursor)
        throw apiErrors.validation([issue(["query", "cursor"], "unknown cursor", "value_error")]);
      const page = world.store.listLinks(cursor, limit, world.settings.linksListing);
      return { status: 200, body: world.wire.pageEnvelope({ ...page }, `links:${page.links[0]?.link_id ?? ""}`) };
    },
  },
  {
    method: "GET",
    template: "/links/{id}",
    async handle({ params, world }) {
      // A deleted link stays readable with state "deleted" (the upstream purges it 90 days later; the sandbox keeps it).
      return { status: 200, body: world.wire.link(requireLink(world.store, params.id ?? "", { allowDeleted: true })) };
    },
  },
  {
    method: "PATCH",
    template: "/links/{id}",
    async handle(ctx) {
      const body = parseWith(updateLinkRequestSchema, await ctx.json());
      const link = requireLink(ctx.world.store, ctx.params.id ?? "");
      if (body.webhook !== undefined) link.webhook = body.webhook;
      const tags = body.link_tags ?? body.tags;
      if (tags !== undefined) {
        link.link_tags = [...tags];
        // The deprecated alias, where a link shows it, says the same.
        if (link.tags !== undefined) link.tags = [...tags];
      }
      return { status: 200, body: ctx.world.wire.link(link) };
    },
  },
  {
    method: "DELETE",
    template: "/links/{id}",
    async handle({ params, world }) {
      const link = requireLink(world.store, params.id ?? "");
      world.store.markDeleted(link);
      notifyStateChanged(world, link);
      return { status: 204 };
    },
  },
  {
    // One customer user's links as a map by link id, in any state: deleted links stay until the upstream purges them
    // (90 days; the sandbox never does). The upstream answers only 401 as an error here, so an unknown user is an empty
    // map, not a 404. The spec's Limits table has no row for this route: it is not rate limited.
    method: "GET",
    template: "/users/{id}/links",
    async handle({ params, world }) {
      const userId = params.id ?? "";
      const links = world.store.linksOfUser(userId);
      const body = { links: Object.fromEntries(links.map((link) => [link.link_id, world.wire.link(link)])) };
      return { status: 200, body: world.wire.pageEnvelope(body, `user:${userId}`) };
    },
  },
];
