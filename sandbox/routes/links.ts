// GET /links, GET /links/{id}, DELETE /links/{id}, and GET /users/{id}/links (upstream-facts §2; not in the spec).
import type { Route } from "../context";
import { apiErrors, issue } from "../http";
import { decodeCursor } from "../store";
import { toWireLink } from "../types";
import { requireLink } from "./link-access";

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
      if (rawCursor && !cursor) throw apiErrors.validation([issue(["query", "cursor"], "unknown cursor", "value_error")]);
      return { status: 200, body: world.store.listLinks(cursor, limit, world.settings.linksListing) };
    },
  },
  {
    method: "GET",
    template: "/links/{id}",
    async handle({ params, world }) {
      // A deleted link stays readable with state "deleted" (the upstream purges it 90 days later; the sandbox keeps it).
      return { status: 200, body: toWireLink(requireLink(world.store, params.id ?? "", { allowDeleted: true })) };
    },
  },
  {
    method: "DELETE",
    template: "/links/{id}",
    async handle({ params, world }) {
      world.store.markDeleted(requireLink(world.store, params.id ?? ""));
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
      const links = world.store.linksOfUser(params.id ?? "");
      return { status: 200, body: { links: Object.fromEntries(links.map((link) => [link.link_id, toWireLink(link)])) } };
    },
  },
];
