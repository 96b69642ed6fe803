import { withStaff } from "@/lib/auth/with-staff";
import { getBudget, isBudgetExceeded, isBudgetUnavailable, secondsUntil } from "@/lib/budget";
import { rateLimitHeaders } from "@/lib/budget/headers";
import { callHeadroom } from "@/lib/budget/headroom";
import { describeUpstreamError, isUpstreamError, upstream } from "@/lib/upstream";

// A link as JSON for scripts (signed-in session required, any role that may read). The response carries the
// RateLimit-Policy / RateLimit headers of the budget keys the call used, so a script can pace itself.
export const GET = withStaff<{ linkId: string }>(
  "read",
  { mayNot: "read links" },
  async (_request, _staff, { linkId }) => {
    const endpoint = "GET /links/{id}";
    const headers = async () => rateLimitHeaders(await callHeadroom(await getBudget(), endpoint, { linkId }));
    try {
      const link = await upstream().getLink(linkId);
      return Response.json({ link }, { headers: { ...(await headers()), "Cache-Control": "no-store" } });
    } catch (error) {
      if (isBudgetExceeded(error)) {
        return Response.json(
          { error: error.message },
          { status: 429, headers: { ...(await headers()), "Retry-After": String(secondsUntil(error.nextSlotAt)) } },
        );
      }
      if (isBudgetUnavailable(error)) return Response.json({ error: error.message }, { status: 503 });
      if (isUpstreamError(error)) {
        const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 502;
        return Response.json(
          { error: describeUpstreamError(error), errorCode: error.errorCode ?? null },
          { status, headers: await headers() },
        );
      }
      throw error;
    }
  },
);
