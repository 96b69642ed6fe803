import { type DroppedParam, type RawParams, parseFieldByField } from "../http/url-params";
import { LINK_SORTS, type LinkListParams, linkListParamsSchema } from "../schemas/links";

// The links list's URL parameters: read forgivingly from the address, written back in one canonical order, and the
// sort a view applies. The list's query (list-query.ts), its CSV export and Health's links (components/health) all
// speak of a view in these terms. Plain functions, not server-only: Health's widgets link to views from the browser.

export type LinkSort = (typeof LINK_SORTS)[number];
export type SortDir = "asc" | "desc";

export type LinkListParam = keyof LinkListParams;
export const LINK_LIST_PARAMS = Object.keys(linkListParamsSchema.shape) as LinkListParam[];

/** A URL parameter that was ignored, with the value as given (show it as text only) and why. */
export type DroppedLinkParam = DroppedParam<LinkListParam>;

/**
 * The URL's search parameters to the list's parameters, forgivingly (see lib/http/url-params.ts); the `id` of the
 * open-by-id box is not a list parameter and is ignored.
 */
export function parseLinkListParams(input: RawParams | URLSearchParams): {
  params: LinkListParams;
  dropped: DroppedLinkParam[];
} {
  const { values, dropped } = parseFieldByField(linkListParamsSchema.shape, LINK_LIST_PARAMS, input, reasonOf);
  return { params: values as LinkListParams, dropped };
}

/** Zod's messages list every allowed value; the page says it in a few words. */
function reasonOf(issue: { code: string; message: string } | undefined): string {
  switch (issue?.code) {
    case "invalid_value":
      return "not one of the choices";
    case "invalid_type":
      return "not a whole number";
    case "too_small":
      return "too small";
    case "too_big":
      return "too large or too long";
    case "invalid_format":
      return "not a value the upstream sends (letters, digits, _ . : -)";
    default:
      return issue?.message ?? "invalid";
  }
}

/**
 * The parameters back to a query string in a fixed order (the order of linkListParamsSchema), without page 1, so one
 * view has one address. `changes` set (or, with undefined, remove) parameters: the next page, another sort.
 */
export function linkListSearchParams(
  params: LinkListParams,
  changes: Partial<Record<LinkListParam, string | number | undefined>> = {},
): URLSearchParams {
  const merged: Partial<Record<LinkListParam, unknown>> = { ...params, ...changes };
  const search = new URLSearchParams();
  for (const param of LINK_LIST_PARAMS) {
    const value = merged[param];
    if (value === undefined || value === null || value === "") continue;
    if (param === "page" && Number(value) === 1) continue;
    search.set(param, String(value));
  }
  return search;
}

const FILTER_PARAMS = [
  "state",
  "error_code",
  "who_acts",
  "institution",
  "provider",
  "tag",
  "product_error",
  "stale",
  "q",
  "campaign",
] as const satisfies readonly LinkListParam[];

/** Whether any filter (not sort or page) is set. */
export function hasLinkFilters(params: LinkListParams): boolean {
  return FILTER_PARAMS.some((param) => params[param] !== undefined);
}

// ---------------------------------------------------------------------------------------------------------------------
// Sorting

/** Direction a URL without `dir` gets: newest first for times, A to Z for text. */
const DEFAULT_DIRS: Record<LinkSort, SortDir> = {
  created_at: "desc",
  last_refreshed_at: "desc",
  institution_name: "asc",
  state: "asc",
  error_code: "asc",
  provider: "asc",
  link_id: "asc",
};

/** The list's order when the URL names none: newest links first. */
export const DEFAULT_LINK_SORT: LinkSort = "created_at";

/** The sort a view applies: the URL's, else the default, with the sort's own default direction. */
export function resolveLinkSort(params: LinkListParams): { sort: LinkSort; dir: SortDir } {
  const sort = params.sort ?? DEFAULT_LINK_SORT;
  return { sort, dir: params.dir ?? DEFAULT_DIRS[sort] };
}
