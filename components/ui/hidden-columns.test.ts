import { describe, expect, it } from "vitest";
import { type ColumnBox, hiddenColumns, moreColumnsLabel, scrollToHidden } from "./hidden-columns";

/** Columns laid side by side from `start`, of the given widths, none sticky. */
function row(start: number, widths: number[]): ColumnBox[] {
  let left = start;
  return widths.map((width) => {
    const column = { left, right: left + width, sticky: null };
    left += width;
    return column;
  });
}

describe("hiddenColumns", () => {
  it("counts nothing when every column fits", () => {
    expect(hiddenColumns(row(0, [100, 200, 100]), { left: 0, right: 400 })).toMatchObject({ left: 0, right: 0 });
    expect(hiddenColumns(row(10, [100, 200]), { left: 0, right: 400 })).toMatchObject({ left: 0, right: 0 });
  });

  it("counts the columns cut off on the right, partly or wholly", () => {
    // A 700 px table in a 400 px box: the third column is cut, the fourth and fifth wholly out of view.
    expect(hiddenColumns(row(0, [150, 150, 150, 125, 125]), { left: 0, right: 400 })).toMatchObject({
      left: 0,
      right: 3,
    });
  });

  it("counts the columns scrolled off on the left once the table has scrolled", () => {
    // Scrolled 320 px: the first two columns are gone, the third cut on its left edge.
    expect(hiddenColumns(row(-320, [150, 150, 150, 125, 125]), { left: 0, right: 400 })).toMatchObject({
      left: 3,
      right: 0,
    });
  });

  it("ignores a sub-pixel overhang, as a table that fits", () => {
    expect(hiddenColumns(row(0, [200, 200.6]), { left: 0, right: 400 })).toMatchObject({ left: 0, right: 0 });
  });

  it("never counts a sticky column, and counts what scrolls under one as hidden", () => {
    // The first column sticks on the left, the last on the right: the visible part is between them (120 to 300).
    const columns: ColumnBox[] = [
      { left: 0, right: 120, sticky: "left" },
      { left: 60, right: 180, sticky: null }, // half under the sticky first column
      { left: 180, right: 280, sticky: null },
      { left: 280, right: 380, sticky: null }, // under the sticky last column
      { left: 380, right: 480, sticky: null },
      { left: 300, right: 400, sticky: "right" },
    ];
    expect(hiddenColumns(columns, { left: 0, right: 400 })).toEqual({
      left: 1,
      right: 2,
      visibleLeft: 120,
      visibleRight: 300,
    });
  });

  it("does not call a column wider than the whole view hidden on either side", () => {
    expect(hiddenColumns(row(-100, [50, 600, 80]), { left: 0, right: 400 })).toMatchObject({ left: 1, right: 1 });
  });

  it("skips columns with no width (hidden by CSS)", () => {
    const columns: ColumnBox[] = [...row(0, [200, 150]), { left: 0, right: 0, sticky: null }];
    expect(hiddenColumns(columns, { left: 0, right: 400 })).toMatchObject({ left: 0, right: 0 });
  });
});

describe("scrollToHidden", () => {
  it("brings every column hidden on the right into view when they fit, no further", () => {
    // Columns at 300-450 and 450-550 are hidden; scrolling 150 px shows both.
    expect(scrollToHidden(row(0, [150, 150, 150, 100]), { left: 0, right: 400 }, "right")).toBe(150);
  });

  it("starts from the nearest hidden column when they do not all fit", () => {
    // Hidden: 300-500, 500-700, 700-900 (600 px in a 400 px view): the first lands at the left edge.
    expect(scrollToHidden(row(0, [150, 150, 200, 200, 200]), { left: 0, right: 400 }, "right")).toBe(300);
  });

  it("scrolls back to the columns hidden on the left", () => {
    expect(scrollToHidden(row(-250, [150, 150, 150, 100]), { left: 0, right: 400 }, "left")).toBe(-250);
  });

  it("respects sticky columns: the revealed column lands beside the sticky one", () => {
    const columns: ColumnBox[] = [{ left: 0, right: 100, sticky: "left" }, ...row(100, [200, 200, 200, 200])];
    // Visible part 100-400; hidden: 300-500 (cut), 500-700, 700-900; they do not fit in 300 px: start at the first.
    expect(scrollToHidden(columns, { left: 0, right: 400 }, "right")).toBe(200);
  });

  it("is zero when nothing is hidden on that side", () => {
    expect(scrollToHidden(row(0, [100, 100]), { left: 0, right: 400 }, "right")).toBe(0);
    expect(scrollToHidden(row(0, [300, 300]), { left: 0, right: 400 }, "left")).toBe(0);
  });
});

describe("moreColumnsLabel", () => {
  it("says how many, in the singular for one", () => {
    expect(moreColumnsLabel(1)).toBe("1 more column");
    expect(moreColumnsLabel(3)).toBe("3 more columns");
  });
});
