/** A parameter to set (string or number) or remove (undefined). */
export type ParamChanges = Record<string, string | number | undefined>;

/**
 * The address of `pathname` with the query string `query` changed: the URL is the table's state, so sorting, paging and
 * filtering are each a link to another address. Parameters keep their order; a new one goes last.
 */
export function hrefWith(pathname: string, query: string, changes: ParamChanges = {}): string {
  const params = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === "") params.delete(name);
    else params.set(name, String(value));
  }
  const search = params.toString();
  return search ? `${pathname}?${search}` : pathname;
}
