import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ScrollTable } from "./scroll-table";

describe("ScrollTable", () => {
  it("serves the table in its scrolling box with no count: only the browser can measure what is cut off", () => {
    const html = renderToStaticMarkup(
      <ScrollTable>
        <table aria-label="Things">
          <thead>
            <tr>
              <th>Name</th>
            </tr>
          </thead>
        </table>
      </ScrollTable>,
    );
    expect(html).toContain('data-scroll-box=""');
    expect(html).toMatch(/class="overflow-x-auto rounded-lg border[^"]*"[^>]*><table aria-label="Things">/);
    expect(html).not.toContain("data-more-columns");
    expect(html).not.toContain("more column");
    // The polite live region is there from the start (empty), so a later count is announced.
    expect(html).toContain('<p class="sr-only" aria-live="polite"></p>');
  });

  it("takes the box's own classes (a height-bounded box)", () => {
    const html = renderToStaticMarkup(
      <ScrollTable className="max-h-80 overflow-y-auto rounded border">
        <table />
      </ScrollTable>,
    );
    expect(html).toContain('class="overflow-x-auto max-h-80 overflow-y-auto rounded border"');
  });
});
