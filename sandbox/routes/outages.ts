// Staged outages (../outages.ts), as control routes: POST /_sandbox/outages stages one, GET lists them, POST
// /_sandbox/outages/{id}/end ends one now.
import { z } from "zod";
import type { Route } from "../context";
import { ApiError, parseWith } from "../http";

const outageRequestSchema = z
  .object({
    kind: z.enum(["institution", "provider", "auth_expired", "webhook_pause"]),
    institution_id: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    share: z.number().gt(0).max(1).optional(),
    duration_s: z.number().int().min(1).max(86_400).optional(),
  })
  .strict()
  .refine((r) => r.kind !== "institution" || r.institution_id !== undefined, {
    message: "an institution outage names institution_id",
    path: ["institution_id"],
  })
  .refine((r) => r.kind !== "provider" || r.provider !== undefined, {
    message: "a provider outage names provider",
    path: ["provider"],
  })
  .refine((r) => r.kind === "auth_expired" || r.duration_s !== undefined, {
    message: "an outage or a pause lasts duration_s",
    path: ["duration_s"],
  });

export const outageRoutes: Route[] = [
  {
    method: "GET",
    template: "/_sandbox/outages",
    control: true,
    async handle({ world }) {
      return { status: 200, body: { outages: world.outages.list() } };
    },
  },
  {
    method: "POST",
    template: "/_sandbox/outages",
    control: true,
    async handle(ctx) {
      const outage = ctx.world.outages.stage(parseWith(outageRequestSchema, await ctx.json()));
      return { status: 201, body: { outage } };
    },
  },
  {
    method: "POST",
    template: "/_sandbox/outages/{id}/end",
    control: true,
    async handle(ctx) {
      const outage = ctx.world.outages.end(ctx.params.id ?? "");
      if (!outage) throw new ApiError(404, "sandbox_error.not_found", "No staged outage has this id.");
      return { status: 200, body: { outage } };
    },
  },
];
