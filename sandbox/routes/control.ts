// Sandbox-only routes under /_sandbox (and the error docs the envelopes link to). Never authenticated, faulted,
// rate limited or counted: tests must be able to steer the sandbox while it misbehaves on purpose.
import type { Route } from "../context";
import { faultSettingsSchema } from "../faults";
import { ERROR_CATALOG, parseWith } from "../http";

export const controlRoutes: Route[] = [
  {
    method: "GET",
    template: "/_sandbox/stats",
    control: true,
    async handle({ world }) {
      return { status: 200, body: world.stats.snapshot() };
    },
  },
  {
    method: "GET",
    template: "/_sandbox/rate-limits",
    control: true,
    async handle({ world }) {
      return { status: 200, body: { enabled: world.options.rateLimits, counters: world.limiter.counters() } };
    },
  },
  {
    method: "POST",
    template: "/_sandbox/reset",
    control: true,
    async handle({ world }) {
      // Access tokens survive a reset on purpose: a test's client keeps working across it.
      world.store.reset();
      world.faults.clear();
      world.limiter.reset();
      world.stats.reset();
      return { status: 200, body: { reset: true, links: world.store.linkCount } };
    },
  },
  {
    method: "GET",
    template: "/_sandbox/faults",
    control: true,
    async handle({ world }) {
      return { status: 200, body: world.faults.view() };
    },
  },
  {
    method: "POST",
    template: "/_sandbox/faults",
    control: true,
    async handle(ctx) {
      ctx.world.faults.set(parseWith(faultSettingsSchema, await ctx.json()));
      return { status: 200, body: ctx.world.faults.view() };
    },
  },
  {
    method: "DELETE",
    template: "/_sandbox/faults",
    control: true,
    async handle({ world }) {
      world.faults.clear();
      return { status: 200, body: world.faults.view() };
    },
  },
  {
    method: "GET",
    template: "/_sandbox/fixtures",
    control: true,
    async handle({ world }) {
      return { status: 200, body: world.store.fixtures() };
    },
  },
  {
    method: "GET",
    template: "/docs/errors",
    control: true,
    async handle() {
      return { status: 200, body: { errors: ERROR_CATALOG } };
    },
  },
];
