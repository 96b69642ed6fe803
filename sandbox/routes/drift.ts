// The drift switch (drift.ts) at run time, and a way for tests and benchmarks to find drifted objects. Control routes:
// no auth, never faulted, rate limited or counted.
import type { Route, SandboxWorld } from "../context";
import { DRIFT_KINDS, driftSettingsSchema, isDriftKind, type DriftKind } from "../drift";
import { apiErrors, issue, parseWith, type ValidationIssue } from "../http";
import { integerParam } from "../query-params";
import type { LinkRecord } from "../types";

/** Kinds a link's transactions carry: a link "carries" one when at least one of its transactions does. */
const TRANSACTION_BORNE = new Set<DriftKind>([
  "old_category",
  "future_category",
  "string_amount",
  "unknown_transaction_type",
]);

function carries(world: SandboxWorld, link: LinkRecord, kind: DriftKind): boolean {
  if (!TRANSACTION_BORNE.has(kind)) return world.drift.kindOfLink(link) === kind;
  // Only transactions a client can read: not while connecting, not of a deleted link, not without the product.
  if (link.state === "connecting" || link.state === "awaiting_token_exchange" || link.state === "deleted") return false;
  if (!link.products.transactions) return false;
  return world.store
    .dataOf(link)
    .transactions.some((transaction) => world.drift.kindOfTransaction(transaction.transaction_id) === kind);
}

export const driftRoutes: Route[] = [
  {
    method: "GET",
    template: "/_sandbox/drift",
    control: true,
    async handle({ world }) {
      return { status: 200, body: world.drift.view() };
    },
  },
  {
    // Body {enabled?, kinds?, share?}: what it leaves out stays as it was.
    method: "POST",
    template: "/_sandbox/drift",
    control: true,
    async handle(ctx) {
      ctx.world.drift.set(parseWith(driftSettingsSchema, await ctx.json()));
      return { status: 200, body: ctx.world.drift.view() };
    },
  },
  {
    method: "DELETE",
    template: "/_sandbox/drift",
    control: true,
    async handle({ world }) {
      world.drift.set({ enabled: false });
      return { status: 200, body: world.drift.view() };
    },
  },
  {
    // ?kind=K (&limit=N): the seeded links that carry kind K under the current settings, newest first; none while
    // drift is off or K is not switched on. For a kind their transactions carry, the links with at least one.
    method: "GET",
    template: "/_sandbox/drift/links",
    control: true,
    async handle({ query, world }) {
      const problems: ValidationIssue[] = [];
      const kind = query.get("kind") ?? "";
      if (!isDriftKind(kind)) {
        problems.push(issue(["query", "kind"], `kind must be one of ${DRIFT_KINDS.join(", ")}`, "enum"));
      }
      const limit = integerParam(query.get("limit"), "limit", Infinity, 1, Infinity, problems);
      if (problems.length > 0 || !isDriftKind(kind)) throw apiErrors.validation(problems);
      const linkIds: string[] = [];
      if (world.drift.has(kind)) {
        for (const link of world.store.seededLinks()) {
          if (linkIds.length >= limit) break;
          if (carries(world, link, kind)) linkIds.push(link.link_id);
        }
      }
      return { status: 200, body: { link_ids: linkIds } };
    },
  },
];
