import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { analyzeImportFile } from "@/lib/import/reader";
import { FileSummary, InvalidLinks, LinkNotes, LinkPreviewTable } from "./file-preview";

// The preview of a file with warnings: the summary counts their kinds (never a bare "0 with problems"), the list under
// the table gives each kind once with how many and in how many links, and whatever the file says is shown as text.

const account = { account_id: "a1", name: "Checking", type: "checking", balances: { current: 10 } };
const txn = (n: number, extra: Record<string, unknown> = {}) => ({
  account_id: "a1",
  transaction_id: `t-${n}`,
  amount: "-1",
  date: "2024-01-01",
  ...extra,
});
const link = (id: string, extra: Record<string, unknown> = {}) => ({
  customer_user: { id },
  institution_id: "chase",
  accounts: [account],
  transactions: [txn(1), txn(2)],
  ...extra,
});
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'");

async function reportOf(links: unknown[]) {
  return (await analyzeImportFile(new TextEncoder().encode(links.map((l) => JSON.stringify(l)).join("\n")))).report;
}

describe("the preview of a file with warnings", () => {
  it("the summary counts kinds of warning beside the links with problems", async () => {
    const report = await reportOf([
      link("a", { webhok: "https://x.example" }),
      link("b", { transactions: [txn(1, { category: "groceries" }), txn(2, { category: "coffee" })] }),
      link("c", { transactions: [txn(1, { category: "mystery" })] }),
    ]);
    const summary = text(renderToStaticMarkup(<FileSummary report={report} fileName="fleet.ndjson" ms={12} />));
    expect(summary).toContain(
      "3 links, 3 valid, 0 with problems, 2 kinds of warning (listed below the table); 5 transactions.",
    );
    const notes = text(renderToStaticMarkup(<LinkNotes report={report} />));
    expect(notes).toContain("2 kinds of warning");
    expect(notes).toContain(
      'webhok (1 in 1 link) is not a field the upstream takes, so Linkdesk leaves it out (did you mean "webhook"?). First at link 1 (line 1), webhok.',
    );
    expect(notes).toContain("transactions[].category (3 in 2 links) is not taken by the upstream on import");
    expect(notes).toContain("First at link 2 (line 2), transactions[0].category.");
    expect(notes).toContain(
      "2 transactions in 1 link carry a category Linkdesk can map to the upstream’s categories (1 more carries one it cannot map: those stay as the upstream categorises them; listed below)",
    );
    // The one that cannot be carried over is named, with where it first is.
    expect(notes).toContain("“mystery” in 1 link; first at #3 (line 3), transactions[0]");
    expect(notes).toContain("takes up to 2 category corrections, one call each");
    const table = text(renderToStaticMarkup(<LinkPreviewTable report={report} />));
    expect(table).toContain("OK, 1 warning");
  });

  it("a file without warnings says nothing more than before", async () => {
    const report = await reportOf([link("a")]);
    expect(text(renderToStaticMarkup(<FileSummary report={report} fileName="one.json" ms={1} />))).toContain(
      "1 link, 1 valid, 0 with problems; 2 transactions.",
    );
    expect(renderToStaticMarkup(<LinkNotes report={report} />)).toBe("");
  });

  it("a link that cannot be imported shows the misspelt key that explains its problem", async () => {
    const report = await reportOf([link("a"), { customer_usr: { id: "b" }, institution_id: "chase" }]);
    const invalid = text(renderToStaticMarkup(<InvalidLinks report={report} />));
    expect(invalid).toContain("customer_user is missing");
    expect(invalid).toContain(
      'customer_usr is not a field the upstream takes, so Linkdesk leaves it out (did you mean "customer_user"?)',
    );
  });

  it("keys and values from the file are text, never markup", async () => {
    const report = await reportOf([link("a", { "<img src=x onerror=alert(1)>": 1 })]);
    const html = renderToStaticMarkup(<LinkNotes report={report} />);
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});
