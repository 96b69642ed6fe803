import "server-only";
import { Webhook } from "standardwebhooks";
import { parseRetryAfter } from "../upstream/retry-after";
import { type AttemptResult, capitalized, describeNetworkError, httpStatusText } from "./attempt";
import type { WebhookTarget } from "./config";

// One try of a message's webhook to the product's back end, signed by the Standard Webhooks scheme with the
// scheme's own library: webhook-id (the message's id, the same on every try), webhook-timestamp (this try's time, in
// seconds) and webhook-signature (v1, HMAC-SHA256 of "id.timestamp.body" under the whsec_ secret). The body is the
// exact bytes signed. The receiver's answer decides what comes next: 2xx delivered; 408, 429 and 5xx, or no answer,
// try again; any other status is the receiver's refusal, and trying again would meet it again.

export const USER_AGENT = "Linkdesk-Webhooks/1";

/** The signed headers of one try: what the receiver verifies with the same scheme's library. */
export function signedHeaders(
  target: Pick<WebhookTarget, "secret">,
  messageId: string,
  body: string,
  at: Date,
): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(target.secret).sign(messageId, at, body),
  };
}

/** Sends `body` once; never throws: every outcome is an AttemptResult in words. */
export async function postWebhook(
  target: WebhookTarget,
  messageId: string,
  body: string,
  timeoutMs: number,
  now = () => new Date(),
): Promise<AttemptResult> {
  const where = `the product's webhook (${new URL(target.url).host})`;
  const startWhere = capitalized(where);
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: "POST",
      headers: signedHeaders(target, messageId, body, now()),
      body,
      // A redirect would send the message (and the token in it) wherever the receiver says: not followed.
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { outcome: "retry", status: null, detail: describeNetworkError(error, where, timeoutMs) };
  }
  // The answer's body says nothing Linkdesk acts on: not read, not kept (it may echo what was sent).
  await response.body?.cancel().catch(() => undefined);
  const status = response.status;
  const statusText = httpStatusText(status);
  if (status >= 200 && status < 300) return { outcome: "delivered", status, detail: `Delivered: ${statusText}.` };
  if (status >= 300 && status < 400)
    return {
      outcome: "failed",
      status,
      detail: `${startWhere} answered a redirect (${statusText}); messages are not sent on to another address. Set PRODUCT_WEBHOOK_URL to the address that answers.`,
    };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"), Date.now());
    const retryAfterMs = retryAfter ? Math.max(0, retryAfter.getTime() - Date.now()) : undefined;
    return {
      outcome: "retry",
      status,
      detail: `${startWhere} answered ${statusText}.${retryAfterMs !== undefined ? ` It asked to wait ${Math.ceil(retryAfterMs / 1000)} s.` : ""}`,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  return {
    outcome: "failed",
    status,
    detail: `${startWhere} refused the message: ${statusText}. Trying again would meet the same answer; its log says why.`,
  };
}
