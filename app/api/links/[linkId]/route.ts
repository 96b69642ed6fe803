import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getBudget, isBudgetExceeded, isBudgetUnavailable, secondsUntil } from "@/lib/budget";
import { rateLimitHeaders } from "@/lib/budget/headers";
import { callHeadroom } from "@/lib/budget/headroom";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { describeUpstreamError, isUpstreamError, upstream } from "@/lib/upstream";

// A link as JSON for scripts (signed-in session required, any role that may read). The response carries the
// RateLimit-Policy / RateLimit headers of the budget keys the call used, so a script can pace itself.
export async function GET(request: Request, { params }: { params: Promise<{ linkId: string }> }) {
  const unreadable = await refuseUnreadableInput(request, params);
  if (unreadable) return unreadable;
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401 });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read links." }, { status: 403 });
  const { linkId } = await params;
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
      return Response.json({ error: describeUpstreamError(error), errorCode: error.errorCode ?? null }, { status, headers: await headers() });
    }
    throw error;
  }
}
