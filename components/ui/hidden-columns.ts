// What a sideways-scrolling table hides: from its header cells' boxes and its scroll box's visible part (all in the
// same coordinates, the window's), which columns are cut off on either side. Pure, so it is tested without a browser;
// components/ui/scroll-table.tsx feeds it getBoundingClientRect()s.

/** A header cell's horizontal extent; a sticky one stays in view and covers whatever scrolls under it. */
export interface ColumnBox {
  left: number;
  right: number;
  sticky: "left" | "right" | null;
}

export interface HiddenColumns {
  /** Columns cut off, wholly or partly, on each side. */
  left: number;
  right: number;
  /** The visible part of the scrolling area: the box less what sticky columns cover on each side. */
  visibleLeft: number;
  visibleRight: number;
}

/**
 * A column narrower than this sticking out (sub-pixel widths, a border) is not called hidden: the count would flicker
 * on a table that fits.
 */
export const TOLERANCE_PX = 1;

/** Columns of `columns` cut off by the box `box` (its inner part: inside the borders, without a scroll bar). */
export function hiddenColumns(columns: readonly ColumnBox[], box: { left: number; right: number }): HiddenColumns {
  let visibleLeft = box.left;
  let visibleRight = box.right;
  for (const column of columns) {
    if (column.right - column.left <= 0) continue;
    if (column.sticky === "left") visibleLeft = Math.max(visibleLeft, column.right);
    if (column.sticky === "right") visibleRight = Math.min(visibleRight, column.left);
  }
  let left = 0;
  let right = 0;
  for (const column of scrolling(columns)) {
    const cutLeft = column.left < visibleLeft - TOLERANCE_PX;
    const cutRight = column.right > visibleRight + TOLERANCE_PX;
    // A column wider than the whole visible part, cut on both sides, is in view: it is what is being read.
    if (cutLeft && !cutRight) left++;
    if (cutRight && !cutLeft) right++;
  }
  return { left, right, visibleLeft, visibleRight };
}

/**
 * How far to scroll (px, + to the right) to bring the columns hidden on `side` into view: all of them when they fit in
 * the visible part, else starting from the nearest one (it lands at the visible part's edge, the rest after it).
 */
export function scrollToHidden(
  columns: readonly ColumnBox[],
  box: { left: number; right: number },
  side: "left" | "right",
): number {
  const { visibleLeft, visibleRight } = hiddenColumns(columns, box);
  const hidden = scrolling(columns).filter((c) =>
    side === "right"
      ? c.right > visibleRight + TOLERANCE_PX && c.left >= visibleLeft - TOLERANCE_PX
      : c.left < visibleLeft - TOLERANCE_PX && c.right <= visibleRight + TOLERANCE_PX,
  );
  if (hidden.length === 0) return 0;
  const from = Math.min(...hidden.map((c) => c.left));
  const to = Math.max(...hidden.map((c) => c.right));
  const fits = to - from <= visibleRight - visibleLeft;
  if (side === "right") return Math.ceil(fits ? to - visibleRight : from - visibleLeft);
  return Math.floor(fits ? from - visibleLeft : to - visibleRight);
}

/** Columns that move when the box scrolls, with a width. */
function scrolling(columns: readonly ColumnBox[]): ColumnBox[] {
  return columns.filter((c) => c.sticky === null && c.right - c.left > 0);
}

/** "3 more columns", "1 more column". */
export function moreColumnsLabel(count: number): string {
  return `${count} more column${count === 1 ? "" : "s"}`;
}
