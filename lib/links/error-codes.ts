import {
  KNOWN_PROVIDERS,
  LINK_ERROR_CODES,
  LINK_STATES,
  PRODUCT_ERROR_CODES,
  type LinkErrorCode,
  type LinkState,
  type ProductErrorCode,
} from "../upstream/schemas";
import { NOT_KNOWN } from "../upstream/taxonomy";

// What each link error code means and what staff should do about it, as data for cells, filters, the detail page and
// Health. "Who acts" groups the codes for managers: the end user, a wait on an institution or provider, or the
// service (or Linkdesk's side) itself.

export const WHO_ACTS = ["user", "wait", "service"] as const;
export type WhoActs = (typeof WHO_ACTS)[number];

/** The error codes whose fix lies with one party. */
export function errorCodesActedOnBy(group: WhoActs): LinkErrorCode[] {
  return (Object.keys(LINK_ERROR_INFO) as LinkErrorCode[]).filter((code) => LINK_ERROR_INFO[code].whoActs === group);
}

export interface ErrorCodeInfo {
  label: string;
  meaning: string;
  remedy: string;
  whoActs: WhoActs;
}

export const LINK_ERROR_INFO: Record<LinkErrorCode, ErrorCodeInfo> = {
  auth_expired: {
    label: "Authorization expired",
    meaning: "The connection's access to the institution has expired (also every imported link without credentials).",
    remedy: "User must reconnect: send them through a new link session with existing_link_id.",
    whoActs: "user",
  },
  invalid_credentials: {
    label: "Invalid credentials",
    meaning: "The institution rejected the user's credentials.",
    remedy: "User must reconnect with correct credentials (new link session with existing_link_id).",
    whoActs: "user",
  },
  user_input_incorrect: {
    label: "Incorrect user input",
    meaning: "A multi-factor code or security answer was wrong.",
    remedy: "User must reconnect and answer the institution's challenge again.",
    whoActs: "user",
  },
  user_setup_required: {
    label: "Action needed at the institution",
    meaning: "The institution needs the user to do something on their side (accept terms, enable access).",
    remedy: "User must act at their institution, then reconnect.",
    whoActs: "user",
  },
  user_oauth_denied: {
    label: "Access denied by the user",
    meaning: "The user declined the institution's OAuth consent.",
    remedy: "User must reconnect and grant access.",
    whoActs: "user",
  },
  user_error: {
    label: "User did not finish",
    meaning: "The user failed or abandoned authentication, or it timed out.",
    remedy: "User must start linking again.",
    whoActs: "user",
  },
  incomplete: {
    label: "Incomplete",
    meaning: "Linking waits on the user and can be resumed later.",
    remedy: "User must resume linking; nothing to do on our side.",
    whoActs: "user",
  },
  no_accounts: {
    label: "No eligible accounts",
    meaning: "No account at the institution holds the requested product data.",
    remedy: "User must link another institution or grant other accounts; check the requested products.",
    whoActs: "user",
  },
  institution_error: {
    label: "Institution outage",
    meaning: "The institution is failing or down.",
    remedy: "Wait: institution outage. The link recovers by itself; no user action yet.",
    whoActs: "wait",
  },
  provider_error: {
    label: "Provider outage",
    meaning: "The data provider (aggregator) is failing.",
    remedy: "Wait: provider outage. The service may switch providers; check again later.",
    whoActs: "wait",
  },
  system_error: {
    label: "Service error",
    meaning: "A fault inside the linking service.",
    remedy: "Contact the linking service's support with the link id if it persists.",
    whoActs: "service",
  },
};

export const LINK_STATE_LABELS: Record<LinkState, string> = {
  connecting: "Connecting",
  awaiting_token_exchange: "Awaiting token exchange",
  connected: "Connected",
  deleted: "Deleted",
  error: "Error",
};

/** Deleted links stay readable upstream for this long, then are removed. */
export const DELETED_RETENTION_DAYS = 90;

/** What a link's state means for staff, in a sentence (the list's state chips, the Health page). */
export const LINK_STATE_MEANINGS: Record<LinkState, string> = {
  connecting: "The end user has not finished linking yet; nothing to do on our side.",
  awaiting_token_exchange:
    "The user finished linking; the front end's exchangeable token is not exchanged yet (Ops can do it on Exchange token).",
  connected: "Working: its products refresh on the institution's schedule.",
  deleted: `Deleted: the upstream keeps it readable for ${DELETED_RETENTION_DAYS} days, then removes it.`,
  error: "Something stops its data: the error code says what, and who must act.",
};

export const WHO_ACTS_LABELS: Record<WhoActs, string> = {
  user: "Needs the user",
  wait: "Waiting on institution or provider",
  service: "Service fault",
};

/** Said beside a value this version of Linkdesk does not know (a state, an error code, a product the upstream added). */
export { NOT_KNOWN };

export function isKnownLinkState(state: string): state is LinkState {
  return (LINK_STATES as readonly string[]).includes(state);
}

export function isKnownLinkErrorCode(code: string): code is LinkErrorCode {
  return (LINK_ERROR_CODES as readonly string[]).includes(code);
}

/** Whether a link's provider is one this version of Linkdesk knows (sophtron, dropped in 2024-08, is known). */
export function isKnownProvider(provider: string): boolean {
  return (KNOWN_PROVIDERS as readonly string[]).includes(provider);
}

/** What an error code means and what to do, or undefined for a code this version of Linkdesk does not know. */
export function linkErrorInfo(code: string): ErrorCodeInfo | undefined {
  return isKnownLinkErrorCode(code) ? LINK_ERROR_INFO[code] : undefined;
}

/** A state in words; one the upstream added since is shown as sent, marked as not known. */
export function linkStateLabel(state: string): string {
  return isKnownLinkState(state) ? LINK_STATE_LABELS[state] : `${state} (${NOT_KNOWN})`;
}

/** An error code in words; one the upstream added since is shown as sent, marked as not known. */
export function linkErrorLabel(code: string): string {
  return linkErrorInfo(code)?.label ?? `${code} (${NOT_KNOWN})`;
}

/** Shown for an error code this version of Linkdesk does not know: what is certain, and where to look. */
export const UNKNOWN_ERROR_INFO: Omit<ErrorCodeInfo, "whoActs"> = {
  label: "Error code not known to this version of Linkdesk",
  meaning: "The upstream reports an error code added after this version of Linkdesk was written.",
  remedy:
    "Look the code up in the linking service's documentation of link errors; the link's state and products say more.",
};

/** A product's error code in words (LinkProductError, upstream-facts §3.3). */
export const PRODUCT_ERROR_LABELS: Record<ProductErrorCode, string> = {
  rate_limit: "Refreshed too often",
  auth_expired: "Authorization expired",
  not_supported: "Not supported by the institution",
  timeout: "Timed out",
  unknown: "Unknown error",
  no_accounts: "No eligible accounts",
  institution_error: "Institution outage",
  no_permission: "No permission",
  invalid_credentials: "Invalid credentials",
};

export function productErrorLabel(code: string): string {
  return (PRODUCT_ERROR_CODES as readonly string[]).includes(code)
    ? PRODUCT_ERROR_LABELS[code as ProductErrorCode]
    : `${code} (${NOT_KNOWN})`;
}
