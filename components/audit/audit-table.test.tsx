import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "@/lib/db/schema";
import { AuditTable } from "./audit-table";

const entry = (overrides: Partial<AuditEntry>): AuditEntry => ({
  id: 1,
  at: new Date("2025-03-01T12:00:00Z"),
  actorId: null,
  actorEmail: "ops@example.test",
  actorRole: "operator",
  action: "transaction.correct",
  targetType: "transaction",
  targetId: "txn_1",
  linkId: "lnk_1",
  input: null,
  before: null,
  after: null,
  outcome: "ok",
  upstreamStatus: null,
  upstreamErrorCode: null,
  correlationId: "00000000-0000-4000-8000-000000000001",
  ip: null,
  ...overrides,
});

/** The page's text, as a reader (and find-in-page) sees it: tags dropped, attributes not text. */
const textOf = (html: string) => html.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ");

describe("AuditTable", () => {
  it("shows a correction's before and after in labels, the codes on hover", () => {
    const html = renderToStaticMarkup(
      <AuditTable
        rows={[
          entry({
            input: { category: "food_and_drink", subcategory: "coffee" },
            before: { category: "shopping", subcategory: null },
            after: { category: "food_and_drink", subcategory: "coffee" },
          }),
        ]}
      />,
    );
    const text = textOf(html);
    expect(text).toContain("Food and drink › Coffee");
    expect(text).toContain("Shopping");
    expect(text).not.toContain("food_and_drink");
    expect(html).toContain('<abbr title="food_and_drink › coffee"');
  });

  it("gives the row's control a column of its own only when there is one, empty on rows without", () => {
    const rows = [entry({ id: 4 }), entry({ id: 5, action: "link.refresh" })];
    const withUndo = renderToStaticMarkup(
      <AuditTable
        rows={rows}
        rowAction={(row) => (row.action === "transaction.correct" ? <button type="button">Undo</button> : null)}
      />,
    );
    expect(withUndo).toContain('<th scope="col" class="sticky-end whitespace-nowrap px-2 py-2">Undo</th>');
    expect(withUndo.match(/<td class="sticky-end[^"]*">/g)).toHaveLength(2);
    expect(withUndo.match(/<button type="button">Undo<\/button>/g)).toHaveLength(1);
    const without = renderToStaticMarkup(<AuditTable rows={rows} />);
    expect(without).not.toContain("sticky-end");
    expect(textOf(without)).not.toContain("Undo");
  });

  it("lets no null, undefined, NaN or [object Object] reach the page text", () => {
    const html = renderToStaticMarkup(
      <AuditTable
        rows={[
          entry({
            id: 2,
            action: "link.refresh",
            input: { refreshAll: true },
            before: { errorCode: null, nested: { a: {} } },
            after: { state: "connected", errorCode: null, calls: Number.NaN },
          }),
          entry({
            id: 3,
            action: "job.undo",
            actorEmail: null,
            actorRole: null,
            targetType: null,
            targetId: null,
            linkId: null,
            after: [null, { undoJob: undefined }],
          }),
        ]}
      />,
    );
    const text = textOf(html);
    for (const bad of ["null", "undefined", "NaN", "[object Object]"]) expect(text).not.toContain(bad);
    expect(text).toContain("Error code none");
    expect(text).toContain("Refresh all yes");
  });
});
