import {
  type DataTableFilter,
  DataTableIgnoredParams,
  DataTableToolbar,
} from "@/components/data-table/data-table-toolbar";
import { NOT_KNOWN, isKnownProvider, productErrorLabel } from "@/lib/links/error-codes";
import type { LinkFacets, ValueOption } from "@/lib/links/list-facets";
import type { DroppedLinkParam } from "@/lib/links/list-params";
import type { LinkListParams } from "@/lib/schemas/links";
import { ERROR_CODE_OPTIONS, PARAM_LABELS, STATE_OPTIONS, WHO_ACTS_OPTIONS } from "./options";

const count = (n: number) => n.toLocaleString("en");

/** The links list's filter bar, from its facets (the dropdowns' options): the page streams it on its own while they
 * are read. */
export function LinksFilterBar({ params, facets }: { params: LinkListParams; facets: LinkFacets }) {
  const { otherStates, otherErrorCodes, institutions, providers, productErrors, tags } = facets;
  // A value the upstream added since this version was written is listed too, as itself, so its links can be found.
  const notKnown = (options: ValueOption[]) =>
    options.map((o) => ({ value: o.value, label: `${o.value} (${NOT_KNOWN}) (${count(o.count)})` }));
  const filters: DataTableFilter[] = [
    {
      kind: "text",
      name: "q",
      label: "Search",
      value: params.q,
      placeholder: "Link id or tag",
      mono: true,
      wide: true,
    },
    {
      kind: "select",
      name: "state",
      label: "State",
      value: params.state,
      options: [...STATE_OPTIONS, ...notKnown(otherStates)],
      anyLabel: "Any state",
    },
    {
      kind: "select",
      name: "error_code",
      label: "Error code",
      value: params.error_code,
      options: [...ERROR_CODE_OPTIONS, ...notKnown(otherErrorCodes)],
      anyLabel: "Any error code",
    },
    {
      kind: "select",
      name: "who_acts",
      label: "Who must act",
      value: params.who_acts,
      options: WHO_ACTS_OPTIONS,
      anyLabel: "Anyone",
    },
    {
      kind: "select",
      name: "institution",
      label: "Institution",
      value: params.institution,
      options: institutions.map((i) => ({ value: i.id, label: `${i.name ?? i.id} (${count(i.count)})` })),
      anyLabel: "Any institution",
    },
    {
      kind: "select",
      name: "provider",
      label: "Provider",
      value: params.provider,
      options: providers.map((p) => ({
        value: p.value,
        label: isKnownProvider(p.value)
          ? `${p.value} (${count(p.count)})`
          : `${p.value} (${NOT_KNOWN}) (${count(p.count)})`,
      })),
      anyLabel: "Any provider",
    },
    {
      kind: "text",
      name: "tag",
      label: "Tag",
      value: params.tag,
      placeholder: "team:retail",
      mono: true,
      suggestions: tags.map((t) => t.value),
    },
    {
      kind: "select",
      name: "product_error",
      label: "Product error",
      value: params.product_error,
      options: productErrors.map((p) => ({
        value: p.value,
        label: `${productErrorLabel(p.value)} (${count(p.count)})`,
      })),
      anyLabel: "Any product",
    },
    {
      kind: "number",
      name: "stale",
      label: "Not refreshed in",
      value: params.stale,
      placeholder: "7",
      min: 1,
      max: 3650,
      unit: "days",
    },
  ];
  return (
    <DataTableToolbar
      action="/links"
      label="Filter the links"
      filters={filters}
      keep={{ sort: params.sort, dir: params.dir, campaign: params.campaign }}
      clearHref={
        params.sort
          ? `/links?${new URLSearchParams({ sort: params.sort, ...(params.dir ? { dir: params.dir } : {}) })}`
          : "/links"
      }
    />
  );
}

export function IgnoredLinkParams({ dropped }: { dropped: DroppedLinkParam[] }) {
  return (
    <DataTableIgnoredParams
      ignored={dropped.map((d) => ({ label: PARAM_LABELS[d.param], value: d.value, reason: d.reason }))}
    />
  );
}
