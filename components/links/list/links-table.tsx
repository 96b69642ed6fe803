"use client";

import { DataTable, type DataTableView, type SortDir } from "@/components/data-table/data-table";
import type { LinkListItem } from "@/lib/links/query";
import { linkColumns } from "./columns";

const linkIdOf = (row: LinkListItem) => row.linkId;

/** The links list's table: the generic table with the link columns. Rows come sorted and paged from the server. */
export function LinksTable({ rows, sort, view, renderedAt }: { rows: LinkListItem[]; sort: { id: string; dir: SortDir }; view: DataTableView; renderedAt: number }) {
  return <DataTable columns={linkColumns} data={rows} getRowId={linkIdOf} sort={sort} view={view} renderedAt={renderedAt} label="Links" />;
}
