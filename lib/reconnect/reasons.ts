import { errorCodesActedOnBy, linkErrorInfo, linkStateLabel } from "../links/error-codes";
import type { LinkErrorCode } from "../links/types";

// Which links a reconnect request is for, and the reason in words: for staff (why Linkdesk refuses) and for the end
// user (what the product's message and the email say). Only links in error whose fix lies with the end user ("Needs
// the user" on Health: errorCodesActedOnBy("user")) are asked for.

/** The error codes whose links a reconnect request may be made for. */
export const RECONNECT_ERROR_CODES: readonly LinkErrorCode[] = errorCodesActedOnBy("user");

/**
 * What the end user reads: why their connection needs them, one sentence per code, in the product's voice rather
 * than the staff's (no "existing_link_id", no "imported").
 */
export const END_USER_REASONS: Partial<Record<LinkErrorCode, string>> = {
  auth_expired: "Your bank's permission for us to read your account has expired.",
  invalid_credentials: "Your bank did not accept the sign-in details we have.",
  user_input_incorrect: "A security code or answer given to your bank was not accepted.",
  user_setup_required: "Your bank needs you to do something on its side first (accept new terms or allow access).",
  user_oauth_denied: "Access to your account was not granted at your bank.",
  user_error: "Connecting to your bank was not finished.",
  incomplete: "Connecting to your bank was started but not finished.",
  no_accounts: "We found no account at your bank we could use.",
};

export interface LinkCondition {
  state: string;
  error_code?: string | null;
}

/**
 * Why a reconnect request cannot be made for a link in this condition, in words for staff; null when it can (the
 * link is in error and its code is one the end user must fix).
 */
export function whyNoReconnect(link: LinkCondition): string | null {
  if (link.state === "deleted")
    return "The link is deleted: it cannot be reconnected. The end user would have to link their bank again as a new link.";
  if (link.state !== "error")
    return `The link does not need its user: its state is ${linkStateLabel(link.state)}${link.state === "connected" ? ", and it works" : ""}. A reconnect request is for a link in error whose fix lies with the end user.`;
  if (!link.error_code)
    return "The link is in error without an error code, so Linkdesk cannot tell whether the end user can fix it.";
  const info = linkErrorInfo(link.error_code);
  if (!info)
    return `The link's error code (${link.error_code}) is one this version of Linkdesk does not know, so it cannot tell whether the end user can fix it.`;
  if (info.whoActs === "wait")
    return `The link does not need its user: ${info.label} (${link.error_code}) is an outage that clears by itself. ${info.remedy}`;
  if (info.whoActs !== "user")
    return `The link does not need its user: ${info.label} (${link.error_code}) is the service's fault. ${info.remedy}`;
  return null;
}

/** The reason of a request in words for staff and the product: "Authorization expired (auth_expired): …". */
export function staffReason(errorCode: string): string {
  const info = linkErrorInfo(errorCode);
  return info ? `${info.label} (${errorCode}): ${info.meaning}` : errorCode;
}

export function endUserReason(errorCode: string): string {
  return END_USER_REASONS[errorCode as LinkErrorCode] ?? "Your connection to your bank needs your attention.";
}
