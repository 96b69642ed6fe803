import type { FilterOption } from "@/components/data-table/data-table-toolbar";
import type { LinkListParams } from "@/lib/schemas/links";
import {
  LINK_ERROR_INFO,
  LINK_STATE_LABELS,
  WHO_ACTS,
  WHO_ACTS_LABELS,
  type WhoActs,
  isKnownLinkState,
  linkErrorInfo,
  linkStateLabel,
} from "@/lib/links/error-codes";
import { LINK_ERROR_CODES, LINK_STATES, type LinkState } from "@/lib/upstream/schemas";

// The links list's option lists, shared by its cells and its filters: a state or an error code reads the same in the
// table, in the filter dropdown and in the ignored-filter notice.

export const WHO_ACTS_OPTIONS: readonly FilterOption[] = WHO_ACTS.map((group) => ({
  value: group,
  label: WHO_ACTS_LABELS[group],
}));

export const STATE_OPTIONS: readonly FilterOption[] = LINK_STATES.map((state) => ({
  value: state,
  label: LINK_STATE_LABELS[state],
}));

/** Grouped by who acts in the dropdown's order: the user, a wait, the service. */
export const ERROR_CODE_OPTIONS: readonly FilterOption[] = (["user", "wait", "service"] as const).flatMap((who) =>
  LINK_ERROR_CODES.filter((code) => LINK_ERROR_INFO[code].whoActs === who).map((code) => ({
    value: code,
    label: `${LINK_ERROR_INFO[code].label} (${code})`,
  })),
);

/** A state's label; a state the upstream added since (not in LINK_STATES) shows as sent, marked as not known. */
export const stateLabel = linkStateLabel;

/** What an error code means and what to do, or undefined for a code Linkdesk does not know. */
export const errorCodeInfo = linkErrorInfo;

// A chip's colours are one class of globals.css (.tone-*), not three utilities: 50 rows carry two chips each.
export const STATE_TONES: Record<LinkState, string> = {
  connected: "tone-emerald",
  connecting: "tone-sky",
  awaiting_token_exchange: "tone-sky",
  error: "tone-red",
  deleted: "tone-slate",
};

export const stateTone = (state: string) => (isKnownLinkState(state) ? STATE_TONES[state] : "tone-plain");

/** An error code's chip, coloured by who must act (the same colours as Health's split). */
export const WHO_ACTS_CHIP_TONES: Record<WhoActs, string> = {
  user: "tone-amber",
  wait: "tone-sky",
  service: "tone-red",
};

/** The list's URL parameters as people read them, for the ignored-filter notice. */
export const PARAM_LABELS = {
  state: "State",
  error_code: "Error code",
  who_acts: "Who must act",
  institution: "Institution",
  provider: "Provider",
  tag: "Tag",
  product_error: "Product error",
  stale: "Stale",
  q: "Search",
  campaign: "Campaign",
  sort: "Sort",
  dir: "Direction",
  page: "Page",
} as const satisfies Record<keyof LinkListParams, string>;
