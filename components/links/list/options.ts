import type { FilterOption } from "@/components/data-table/data-table-toolbar";
import type { LinkListParams } from "@/lib/schemas/links";
import { type ErrorCodeInfo, LINK_ERROR_INFO, LINK_STATE_LABELS, WHO_ACTS, WHO_ACTS_LABELS, type WhoActs } from "@/lib/links/error-codes";
import { LINK_ERROR_CODES, LINK_STATES, type LinkErrorCode, type LinkState } from "@/lib/upstream/schemas";

// The links list's option lists, shared by its cells and its filters: a state or an error code reads the same in the
// table, in the filter dropdown and in the ignored-filter notice.

const isState = (value: string): value is LinkState => (LINK_STATES as readonly string[]).includes(value);
const isErrorCode = (value: string): value is LinkErrorCode => (LINK_ERROR_CODES as readonly string[]).includes(value);

export const WHO_ACTS_OPTIONS: readonly FilterOption[] = WHO_ACTS.map((group) => ({ value: group, label: WHO_ACTS_LABELS[group] }));

export const STATE_OPTIONS: readonly FilterOption[] = LINK_STATES.map((state) => ({ value: state, label: LINK_STATE_LABELS[state] }));

/** Grouped by who acts in the dropdown's order: the user, a wait, the service. */
export const ERROR_CODE_OPTIONS: readonly FilterOption[] = (["user", "wait", "service"] as const).flatMap((who) =>
  LINK_ERROR_CODES.filter((code) => LINK_ERROR_INFO[code].whoActs === who).map((code) => ({ value: code, label: `${LINK_ERROR_INFO[code].label} (${code})` })),
);

/** A state's label; a state the upstream added since (not in LINK_STATES) shows as sent. */
export const stateLabel = (state: string) => (isState(state) ? LINK_STATE_LABELS[state] : state);

/** What an error code means and what to do, or undefined for a code Linkdesk does not know. */
export const errorCodeInfo = (code: string): ErrorCodeInfo | undefined => (isErrorCode(code) ? LINK_ERROR_INFO[code] : undefined);

export const STATE_TONES: Record<LinkState, string> = {
  connected: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  connecting: "bg-sky-50 text-sky-800 ring-sky-200",
  awaiting_token_exchange: "bg-sky-50 text-sky-800 ring-sky-200",
  error: "bg-red-50 text-red-800 ring-red-200",
  deleted: "bg-slate-100 text-slate-600 ring-slate-200",
};

export const stateTone = (state: string) => (isState(state) ? STATE_TONES[state] : "bg-slate-50 text-slate-700 ring-slate-200");

/** An error code's chip, coloured by who must act (the same colours as Health's split). */
export const WHO_ACTS_CHIP_TONES: Record<WhoActs, string> = {
  user: "bg-amber-50 text-amber-900 ring-amber-200",
  wait: "bg-sky-50 text-sky-900 ring-sky-200",
  service: "bg-red-50 text-red-800 ring-red-200",
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
  sort: "Sort",
  dir: "Direction",
  page: "Page",
} as const satisfies Record<keyof LinkListParams, string>;
