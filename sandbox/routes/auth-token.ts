// POST /auth/token: client-credentials grant, form-encoded (or HTTP Basic for the client pair).
import type { RequestContext, Route } from "../context";
import { presentedCredentials, sameSecret } from "../auth";
import { ApiError, apiErrors } from "../http";

async function formOf(ctx: RequestContext): Promise<URLSearchParams> {
  const raw = (await ctx.rawBody()).toString("utf8");
  if ((ctx.req.headers["content-type"] ?? "").includes("application/json") && raw.trim().startsWith("{")) {
    // Not what the upstream documents, but harmless to accept: some HTTP clients default to JSON.
    try {
      const parsed = JSON.parse(raw) as Record<string, unknown>;
      return new URLSearchParams(
        Object.entries(parsed).filter((pair): pair is [string, string] => typeof pair[1] === "string"),
      );
    } catch {
      throw apiErrors.malformedJson("not JSON");
    }
  }
  return new URLSearchParams(raw);
}

export const authRoutes: Route[] = [
  {
    method: "POST",
    template: "/auth/token",
    async scopeKeys(ctx) {
      try {
        return { client: presentedCredentials(ctx.req.headers, await formOf(ctx)).clientId ?? "(none)" };
      } catch {
        return { client: "(none)" };
      }
    },
    async handle(ctx) {
      const form = await formOf(ctx);
      const grantType = form.get("grant_type") ?? "client_credentials";
      if (grantType !== "client_credentials") {
        throw new ApiError(
          400,
          "api_error.auth.unauthorized",
          `Unsupported grant_type "${grantType}"; use client_credentials.`,
        );
      }
      const { clientId, clientSecret } = presentedCredentials(ctx.req.headers, form);
      const { clientId: expectedId, clientSecret: expectedSecret } = ctx.world.options;
      if (
        !clientId ||
        !clientSecret ||
        !sameSecret(clientId, expectedId) ||
        !sameSecret(clientSecret, expectedSecret)
      ) {
        throw apiErrors.unauthorized("Invalid client credentials.");
      }
      return { status: 201, body: ctx.world.tokens.issue(clientId) };
    },
  },
];
