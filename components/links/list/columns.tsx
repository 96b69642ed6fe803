import { createDataTableColumnHelper } from "@/components/data-table/features";
import type { LinkListItem } from "@/lib/links/query";
import { ErrorCodeCell, InstitutionCell, LastRefreshedCell, LinkIdCell, ProductsCell, StateCell, TagsCell, TimeCell } from "./cells";

// The links list's columns. A sortable column's id is its `sort` value in the URL (LINK_SORTS); times sort newest
// first on the first click, text A to Z. Deprecated upstream fields are shown inside cells, never as a sort.

const helper = createDataTableColumnHelper<LinkListItem>();

export const linkColumns = helper.columns([
  helper.accessor("linkId", {
    id: "link_id",
    header: "Link",
    sortDescFirst: false,
    cell: ({ row }) => <LinkIdCell linkId={row.original.linkId} />,
    meta: { cellClassName: "max-w-48" },
  }),
  helper.accessor("institutionName", {
    id: "institution_name",
    header: "Institution",
    sortDescFirst: false,
    cell: ({ row }) => <InstitutionCell id={row.original.institutionId} name={row.original.institutionName} avatar={row.original.institutionAvatar} />,
  }),
  helper.accessor("state", {
    id: "state",
    header: "State",
    sortDescFirst: false,
    cell: ({ row }) => <StateCell state={row.original.state} />,
  }),
  helper.accessor("errorCode", {
    id: "error_code",
    header: "Error code",
    sortDescFirst: false,
    cell: ({ row }) => <ErrorCodeCell code={row.original.errorCode} />,
  }),
  helper.accessor("provider", {
    id: "provider",
    header: "Provider",
    sortDescFirst: false,
    cell: ({ row }) => (row.original.provider ? <span className="text-slate-800">{row.original.provider}</span> : <span className="text-slate-400">—</span>),
  }),
  helper.accessor("products", {
    id: "products",
    header: "Products",
    enableSorting: false,
    cell: ({ row, table }) => <ProductsCell products={row.original.products} now={table.options.meta?.renderedAt ?? 0} />,
  }),
  helper.accessor("linkTags", {
    id: "link_tags",
    header: "Tags",
    enableSorting: false,
    cell: ({ row }) => <TagsCell tags={row.original.linkTags} deprecatedTags={row.original.deprecated.tags} />,
  }),
  helper.accessor("lastRefreshedAt", {
    id: "last_refreshed_at",
    header: "Last refreshed",
    sortDescFirst: true,
    cell: ({ row, table }) => <LastRefreshedCell item={row.original} now={table.options.meta?.renderedAt ?? 0} />,
  }),
  helper.accessor("createdAt", {
    id: "created_at",
    header: "Created",
    sortDescFirst: true,
    cell: ({ row, table }) => <TimeCell value={row.original.createdAt} now={table.options.meta?.renderedAt ?? 0} />,
  }),
]);
