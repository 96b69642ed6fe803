import { createDataTableColumnHelper } from "@/components/data-table/features";
import { NOT_KNOWN, isKnownProvider } from "@/lib/links/error-codes";
import type { LinkTableRow } from "./rows";
import {
  ErrorCodeCell,
  InstitutionCell,
  LearnedFromCell,
  LinkIdCell,
  ProductsCell,
  StateCell,
  TagsCell,
  TimeCell,
} from "./cells";

// The links list's columns, one line a cell. A sortable column's id is its `sort` value in the URL (LINK_SORTS) and
// its name in a person's saved view (LINK_LIST_COLUMNS); times sort newest first on the first click, text A to Z.

const helper = createDataTableColumnHelper<LinkTableRow>();

export const linkColumns = helper.columns([
  helper.accessor("linkId", {
    id: "link_id",
    header: "Link",
    sortDescFirst: false,
    // The row's name: always shown, and kept in view when the table scrolls sideways on a small screen.
    enableHiding: false,
    meta: { sticky: true },
    cell: ({ row }) => <LinkIdCell linkId={row.original.linkId} />,
  }),
  helper.accessor("institutionName", {
    id: "institution_name",
    header: "Institution",
    sortDescFirst: false,
    cell: ({ row }) => (
      <InstitutionCell
        id={row.original.institutionId}
        name={row.original.institutionName}
        avatar={row.original.institutionAvatar}
      />
    ),
  }),
  helper.accessor("state", {
    id: "state",
    header: "State",
    sortDescFirst: false,
    cell: ({ row }) => <StateCell state={row.original.state} />,
  }),
  helper.accessor("errorCode", {
    id: "error_code",
    header: "Error",
    sortDescFirst: false,
    meta: { label: "Error code" },
    cell: ({ row }) => <ErrorCodeCell code={row.original.errorCode} />,
  }),
  helper.accessor("provider", {
    id: "provider",
    header: "Provider",
    sortDescFirst: false,
    // Bare text (the cell's own colour): upstream text, rendered as text; one this version does not know, marked.
    cell: ({ row }) => {
      const provider = row.original.provider;
      if (!provider) return <span className="text-slate-500">—</span>;
      if (isKnownProvider(provider)) return provider;
      return (
        <span title={`${provider}: a provider ${NOT_KNOWN}`}>
          {provider} <span className="text-xs text-slate-500">not known</span>
        </span>
      );
    },
  }),
  helper.accessor("products", {
    id: "products",
    header: "Products",
    enableSorting: false,
    cell: ({ row }) => <ProductsCell linkId={row.original.linkId} products={row.original.products} />,
  }),
  helper.accessor("linkTags", {
    id: "link_tags",
    header: "Tags",
    enableSorting: false,
    cell: ({ row }) => <TagsCell tags={row.original.linkTags} />,
  }),
  helper.accessor("lastRefreshedAt", {
    id: "last_refreshed_at",
    header: "Refreshed",
    sortDescFirst: true,
    meta: { label: "Last refreshed" },
    cell: ({ row, table }) => (
      <TimeCell
        value={row.original.lastRefreshedAt}
        now={table.options.meta?.renderedAt ?? 0}
        none={<span className="text-slate-500">never</span>}
      />
    ),
  }),
  helper.accessor("learnedFrom", {
    id: "learned_from",
    header: "Learned from",
    // No index orders by it, and the list sorts only by index (lib/links/list-query.ts).
    enableSorting: false,
    cell: ({ row, table }) => (
      <LearnedFromCell
        source={row.original.learnedFrom}
        at={row.original.learnedAt}
        now={table.options.meta?.renderedAt ?? 0}
      />
    ),
  }),
  helper.accessor("createdAt", {
    id: "created_at",
    header: "Created",
    sortDescFirst: true,
    cell: ({ row, table }) => <TimeCell value={row.original.createdAt} now={table.options.meta?.renderedAt ?? 0} />,
  }),
]);
