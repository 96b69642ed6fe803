import { type OutboundEmail, type OutboundMessage, messageIdFor } from "../outbound/message";
import { endUserReason, staffReason } from "./reasons";

// What a reconnect request sends: one message to the product's back end (its webhook), which owns the relationship
// with the end user and shows them the way back, and, where a mail server is configured and Linkdesk knows the end
// user's address, an email with the product's reconnect page. Neither carries anything of Linkdesk's own credentials
// or an access token: the link session token is the end user's ticket to reconnect that one link, nothing more.

export const RECONNECT_MESSAGE_TYPE = "link.reconnect_requested";

/** The query parameter that carries the token on the product's reconnect page. */
export const TOKEN_PARAMETER = "link_session_token";

export interface ReconnectMessageInput {
  requestId: string;
  requestedAt: Date;
  linkId: string;
  institutionId: string | null;
  institutionName: string | null;
  errorCode: string;
  customerUserId: string;
  linkSessionToken: string;
  /** Set when an email goes too: the end user's address and the product's reconnect page. */
  email: { to: string; reconnectUrl: string } | null;
}

/** The webhook's `data` (docs/reconnect.md lists every field) and, optionally, the email. One message per request. */
export function reconnectMessage(input: ReconnectMessageInput): OutboundMessage {
  return {
    id: messageIdFor(input.requestId),
    type: RECONNECT_MESSAGE_TYPE,
    at: input.requestedAt,
    data: {
      request_id: input.requestId,
      link_id: input.linkId,
      customer_user_id: input.customerUserId,
      institution_id: input.institutionId,
      institution_name: input.institutionName,
      reason: {
        error_code: input.errorCode,
        description: staffReason(input.errorCode),
        for_end_user: endUserReason(input.errorCode),
      },
      link_session_token: input.linkSessionToken,
      requested_at: input.requestedAt.toISOString(),
    },
    withheld: [input.linkSessionToken],
    email: input.email ? reconnectEmail(input, input.email) : null,
  };
}

/** The product's reconnect page with the token added to it. */
export function reconnectLink(reconnectUrl: string, token: string): string {
  const url = new URL(reconnectUrl);
  url.searchParams.set(TOKEN_PARAMETER, token);
  return url.toString();
}

/** Stands for the session's token in a preview: each email carries its own. */
export const PREVIEW_TOKEN = "TOKEN";

/** The email an end user reads, for staff to preview before a campaign: the token is a placeholder. */
export function previewReconnectEmail(opts: {
  errorCode: string;
  institutionName: string | null;
  reconnectUrl: string;
}): Pick<OutboundEmail, "subject" | "text"> {
  const { subject, text } = reconnectEmail(
    { errorCode: opts.errorCode, institutionName: opts.institutionName, linkSessionToken: PREVIEW_TOKEN },
    { to: "", reconnectUrl: opts.reconnectUrl },
  );
  return { subject, text };
}

function reconnectEmail(
  input: Pick<ReconnectMessageInput, "errorCode" | "institutionName" | "linkSessionToken">,
  email: { to: string; reconnectUrl: string },
): OutboundEmail {
  const bank = input.institutionName ?? "your bank";
  return {
    to: email.to,
    subject: `Reconnect your ${bank} account`,
    text: [
      "Hello,",
      "",
      `${endUserReason(input.errorCode)} Until you reconnect, we cannot update your ${bank} account.`,
      "",
      "Reconnect it here, it takes a minute:",
      reconnectLink(email.reconnectUrl, input.linkSessionToken),
      "",
      "If you did not expect this message, you can ignore it: nothing changes until you reconnect.",
    ].join("\n"),
  };
}
