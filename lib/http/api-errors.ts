import "server-only";
import { isBudgetExceeded, isBudgetUnavailable, secondsUntil } from "../budget";
import { describeUpstreamError, isUpstreamError } from "../upstream/errors";

/**
 * A failure of a route handler's upstream read as JSON, in words: the budget's refusal as 429 with Retry-After, the
 * upstream's own 4xx as is, anything else from the upstream as 502. Other errors are rethrown (a 500 with no details).
 */
export function upstreamFailureResponse(error: unknown, headers: Record<string, string> = {}): Response {
  if (isBudgetExceeded(error)) {
    const seconds = secondsUntil(error.nextSlotAt);
    return Response.json(
      { error: `Not read: Linkdesk's share of the upstream's rate limit is used up. Next slot in ${seconds} s.` },
      { status: 429, headers: { ...headers, "Retry-After": String(seconds) } },
    );
  }
  if (isBudgetUnavailable(error)) return Response.json({ error: error.message }, { status: 503, headers });
  if (isUpstreamError(error)) {
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 502;
    const { title, detail } = describeUpstreamError(error);
    return Response.json(
      { error: `${title}. ${detail}`.trim(), errorCode: error.errorCode ?? null },
      { status, headers },
    );
  }
  throw error;
}
