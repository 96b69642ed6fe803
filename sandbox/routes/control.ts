// Sandbox-only routes under /_sandbox (and the error docs the envelopes link to). Never authenticated, faulted,
// rate limited or counted: tests must be able to steer the sandbox while it misbehaves on purpose.
import { z } from "zod";
import { LOGOS } from "../catalog";
import type { Route } from "../context";
import { faultSettingsSchema } from "../faults";
import { ApiError, ERROR_CATALOG, parseWith } from "../http";
import { logoSvg } from "../logos";
import { LINKS_LISTINGS } from "../store";

const settingsSchema = z
  .object({
    linksListing: z.enum(LINKS_LISTINGS).optional(),
    redirectUris: z.array(z.string().min(1)).nullable().optional(),
  })
  .strict();

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
      world.settings.linksListing = world.options.linksListing;
      world.settings.redirectUris = world.options.redirectUris;
      world.drift.set(world.options.drift);
      world.faults.clear();
      world.limiter.reset();
      world.stats.reset();
      // Deliveries and refreshes under way belonged to the links just reset. Signing keys stay, as tokens do.
      world.cancelLater();
      world.webhooks.reset();
      world.outages.clear();
      return { status: 200, body: { reset: true, links: world.store.linkCount } };
    },
  },
  {
    method: "GET",
    template: "/_sandbox/settings",
    control: true,
    async handle({ world }) {
      return { status: 200, body: { ...world.settings } };
    },
  },
  {
    method: "POST",
    template: "/_sandbox/settings",
    control: true,
    async handle(ctx) {
      Object.assign(ctx.world.settings, parseWith(settingsSchema, await ctx.json()));
      return { status: 200, body: { ...ctx.world.settings } };
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
    template: "/_sandbox/tokens",
    control: true,
    async handle({ world }) {
      return { status: 200, body: { tokens: world.tokens.issued() } };
    },
  },
  {
    // Stands for the product's own database: every link id its back end recorded as it made links (link sessions,
    // imports), whatever became of the link since. The upstream's GET /links lists only active ones; a dashboard
    // learns the others from ids like these (Linkdesk: POST /api/links/register).
    method: "GET",
    template: "/_sandbox/back-end/link-ids",
    control: true,
    async handle({ world }) {
      return {
        status: 200,
        body: { link_ids: world.store.allLinkIds(), customers: world.store.linkCustomers() },
      };
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
    // The institution avatars and merchant logos the seed data points at (logos.ts).
    method: "GET",
    template: "/_sandbox/logos/{kind}/{file}",
    control: true,
    async handle({ params }) {
      const kind = params.kind === "institutions" || params.kind === "merchants" ? params.kind : null;
      const slug = /^([a-z0-9-]+)\.svg$/.exec(params.file ?? "")?.[1];
      const art = kind && slug ? LOGOS[kind].get(slug) : undefined;
      if (!art) throw new ApiError(404, "api_error.not_found", "No such logo.");
      return {
        status: 200,
        raw: { contentType: "image/svg+xml", text: logoSvg(art) },
        // An SVG opened on its own must not run anything; logos do not change while the sandbox runs.
        headers: {
          "Cache-Control": "public, max-age=86400",
          "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
          "X-Content-Type-Options": "nosniff",
        },
      };
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
