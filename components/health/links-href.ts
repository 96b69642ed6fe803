import { linkListSearchParams } from "@/lib/links/list-params";
import type { LinkListParams } from "@/lib/schemas/links";

/** The links list filtered to `params`, in the list's own URL form, so every Health number opens the rows it counts. */
export function linksHref(params: LinkListParams = {}): string {
  const search = linkListSearchParams(params);
  return search.size > 0 ? `/links?${search}` : "/links";
}
