"use client";

import { useCallback, useMemo, useRef, useState } from "react";
import { DataTable, type DataTableDensity, type DataTableView, type SortDir } from "@/components/data-table/data-table";
import { DataTableViewOptions, type ViewSaveState } from "@/components/data-table/data-table-view-options";
import { HintHost } from "@/components/ui/hint";
import { useHydrated } from "@/components/ui/use-hydrated";
import { saveTableView } from "@/lib/actions/preferences";
import { DEFAULT_TABLE_VIEWS, LINK_LIST_HIDEABLE, type TableViewOf } from "@/lib/schemas/preferences";
import { linkCellHint } from "./cells";
import { linkColumns } from "./columns";
import { type LinkTablePage, type LinkTableRow, linkTableRows } from "./rows";

const linkIdOf = (row: LinkTableRow) => row.linkId;

/**
 * Rows in the server's HTML, by row height: what a first screen at 1440 × 900 holds (11 comfortable rows, 15 compact
 * ones). The rest of the page (the payload carries every row) is drawn in the browser as soon as React runs, below the
 * fold; on a navigation within the dashboard every row is drawn at once. Drawn by the server, a page's 50 rows cost
 * about 0.4 of an empty signed-in page (docs/decisions/page-cost.md).
 */
export const SERVER_RENDERED_ROWS: Record<DataTableDensity, number> = { comfortable: 11, compact: 15 };

type LinksView = TableViewOf<"links">;
type HideableColumn = LinksView["hidden"][number];

/** Each hideable column's name in the view menu, from its definition. */
const COLUMN_LABELS = new Map(
  linkColumns.map((c) => [c.id, c.meta?.label ?? (typeof c.header === "string" ? c.header : c.id)]),
);

/**
 * The links list's table: the generic table with the link columns, in the person's own view (columns, row height),
 * which the menu above it changes and remembers for them. Rows come sorted and paged from the server.
 */
export function LinksTable({
  page,
  sort,
  view,
  renderedAt,
  tableView = DEFAULT_TABLE_VIEWS.links,
}: {
  /** One page of rows, cut to what the table shows (linkTablePage). */
  page: LinkTablePage;
  sort: { id: string; dir: SortDir };
  view: DataTableView;
  renderedAt: number;
  /** The signed-in person's saved view (read on the server, so the first paint is already theirs). */
  tableView?: LinksView;
}) {
  const [current, setCurrent] = useState<LinksView>(tableView);
  const [saveState, setSaveState] = useState<ViewSaveState>({ kind: "idle" });
  // Saves go one after another, so the last choice is the one remembered.
  const saving = useRef<Promise<unknown>>(Promise.resolve());

  const change = (next: LinksView) => {
    setCurrent(next);
    setSaveState({ kind: "saving" });
    saving.current = saving.current.then(async () => {
      try {
        const result = await saveTableView(next);
        setSaveState(
          result?.data
            ? { kind: "saved" }
            : { kind: "failed", message: `Not saved: ${result?.serverError ?? "the view was refused"}` },
        );
      } catch {
        setSaveState({ kind: "failed", message: "Not saved: Linkdesk could not be reached" });
      }
    });
  };

  const hydrated = useHydrated();
  const allRows = useMemo(() => linkTableRows(page), [page]);
  const rows = useMemo(
    () => (hydrated ? allRows : allRows.slice(0, SERVER_RENDERED_ROWS[current.density])),
    [allRows, hydrated, current.density],
  );
  const rowsById = useMemo(() => new Map(allRows.map((row) => [row.linkId, row])), [allRows]);
  const hint = useCallback(
    (key: string) => linkCellHint(key, (linkId) => rowsById.get(linkId), renderedAt),
    [rowsById, renderedAt],
  );
  const columnVisibility = useMemo(() => Object.fromEntries(current.hidden.map((id) => [id, false])), [current.hidden]);
  const menuColumns = LINK_LIST_HIDEABLE.map((id) => ({
    id,
    label: COLUMN_LABELS.get(id) ?? id,
    visible: !current.hidden.includes(id),
  }));

  return (
    <>
      <div className="mb-2 flex justify-end">
        <DataTableViewOptions
          columns={menuColumns}
          density={current.density}
          saveState={saveState}
          onColumnChange={(id, visible) => {
            const hidden = visible ? current.hidden.filter((h) => h !== id) : [...current.hidden, id as HideableColumn];
            change({ ...current, hidden: LINK_LIST_HIDEABLE.filter((c) => hidden.includes(c)) });
          }}
          onDensityChange={(density) => change({ ...current, density })}
          onReset={() => change(DEFAULT_TABLE_VIEWS.links)}
        />
      </div>
      <HintHost hint={hint}>
        <DataTable
          columns={linkColumns}
          data={rows}
          getRowId={linkIdOf}
          sort={sort}
          view={view}
          renderedAt={renderedAt}
          label="Links"
          columnVisibility={columnVisibility}
          density={current.density}
        />
      </HintHost>
    </>
  );
}
