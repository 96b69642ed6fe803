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

describe("DataTable's header", () => {
  interface Item {
    id: string;
    title: string | null;
    size: number;
    meta: { owner: string };
  }
  const itemHelper = createDataTableColumnHelper<Item>();
  const itemColumns = itemHelper.columns([
    itemHelper.accessor("title", { id: "title", header: "Title" }),
    itemHelper.accessor("size", { id: "size", header: "Size" }),
    itemHelper.accessor("id", { id: "created", header: "Created", sortDescFirst: true }),
    itemHelper.accessor("meta.owner", { header: "Owner" }),
    itemHelper.accessor("id", { id: "tags", header: "Tags", enableSorting: false }),
    itemHelper.display({ id: "actions", header: () => <i>Actions</i>, cell: () => "…" }),
  ]);
  const items: Item[] = [
    { id: "a", title: null, size: 3, meta: { owner: "ann" } },
    { id: "b", title: "Beta", size: 1, meta: { owner: "bob" } },
  ];
  const header = (sort: { id: string; dir: "asc" | "desc" } | null, data = items) => {
    const html = renderToStaticMarkup(
      <DataTable
        columns={itemColumns}
        data={data}
        getRowId={(r) => r.id}
        sort={sort}
        view={{ pathname: "/items", query: "q=x&page=3" }}
        renderedAt={0}
        label="Items"
      />,
    );
    return html.slice(html.indexOf("<thead"), html.indexOf("</thead>"));
  };
  const linkOf = (html: string, text: string) =>
    new RegExp(`title="(Sort [a-z]+)" href="([^"]+)">${text}<`).exec(html)?.slice(1).join(" ") ?? null;

  it("links each sortable column to its first order: its own, else A to Z for text and largest first otherwise", () => {
    const html = header(null);
    // The first row's title is empty, so the next row's text decides.
    expect(linkOf(html, "Title")).toBe("Sort ascending /items?q=x&amp;sort=title&amp;dir=asc");
    expect(linkOf(html, "Size")).toBe("Sort descending /items?q=x&amp;sort=size&amp;dir=desc");
    expect(linkOf(html, "Created")).toBe("Sort descending /items?q=x&amp;sort=created&amp;dir=desc");
    // An accessor key's dots become underscores in the id.
    expect(linkOf(html, "Owner")).toBe("Sort ascending /items?q=x&amp;sort=meta_owner&amp;dir=asc");
    expect(html).not.toContain("aria-sort");
    // With no rows to look at, an order without its own starts largest first.
    expect(linkOf(header(null, []), "Title")).toBe("Sort descending /items?q=x&amp;sort=title&amp;dir=desc");
  });

  it("marks the sorted column and links it to the other order", () => {
    const html = header({ id: "size", dir: "desc" });
    expect(html).toMatch(/<th scope="col" aria-sort="descending"[^>]*><a[^>]*>Size<span aria-hidden="true"[^>]*>▼</);
    expect(linkOf(html, "Size")).toBe("Sort ascending /items?q=x&amp;sort=size&amp;dir=asc");
    expect(linkOf(header({ id: "created", dir: "asc" }), "Created")).toBe(
      "Sort descending /items?q=x&amp;sort=created&amp;dir=desc",
    );
  });

  it("leaves columns that cannot sort as plain headers, a header function drawn", () => {
    const html = header(null);
    expect(html).toContain('<th scope="col" class="whitespace-nowrap px-2 py-2">Tags</th>');
    expect(html).toContain('<th scope="col" class="whitespace-nowrap px-2 py-2"><i>Actions</i></th>');
  });
});
