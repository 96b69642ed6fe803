import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DataTable } from "./data-table";
import { createDataTableColumnHelper } from "./features";

interface Row {
  id: string;
  name: string;
  count: number | null;
}

const helper = createDataTableColumnHelper<Row>();
const columns = helper.columns([
  helper.accessor("name", {
    id: "name",
    header: "Name",
    cell: ({ row, table }) => <b>{`${row.original.name} @${table.options.meta?.renderedAt}`}</b>,
  }),
  // No cell of its own: TanStack's default shows the value, or nothing for a null.
  helper.accessor("count", { id: "count", header: "Count", meta: { cellClassName: "tabular-nums" } }),
  helper.accessor("id", {
    id: "shouted",
    header: "Shouted",
    cell: ({ getValue, renderValue }) => `${String(getValue()).toUpperCase()}/${String(renderValue())}`,
  }),
]);

const render = (data: Row[], hidden: Record<string, false> = {}) =>
  renderToStaticMarkup(
    <DataTable
      columns={columns}
      data={data}
      getRowId={(r) => r.id}
      sort={null}
      view={{ pathname: "/t", query: "" }}
      renderedAt={7}
      label="Things"
      columnVisibility={hidden}
    />,
  );

describe("DataTable's body", () => {
  it("renders each row's cells from the columns: their own cell, TanStack's default one, and the value getters", () => {
    const html = render([
      { id: "a", name: "Alpha", count: 3 },
      { id: "b", name: "Beta", count: null },
    ]);
    const rows = html.slice(html.indexOf("<tbody>")).split("<tr>").slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toBe('<td><b>Alpha @7</b></td><td class="tabular-nums">3</td><td>A/a</td></tr>');
    expect(rows[1]).toMatch(/^<td><b>Beta @7<\/b><\/td><td class="tabular-nums"><\/td><td>B\/b<\/td><\/tr>/);
  });

  it("leaves out hidden columns in the body as in the header", () => {
    const html = render([{ id: "a", name: "Alpha", count: 3 }], { count: false });
    expect(html).not.toContain("Count");
    expect(html).toContain("<tbody><tr><td><b>Alpha @7</b></td><td>A/a</td></tr></tbody>");
  });
});
