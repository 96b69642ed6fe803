"use client";

import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { type ColumnBox, hiddenColumns, moreColumnsLabel, scrollToHidden } from "./hidden-columns";

/**
 * What is cut off; where the box's visible part ends (px from the wrapper's edges: sticky columns and borders); how
 * much of the box's foot is its border and horizontal scroll bar. For the fades and the counts.
 */
interface Cut {
  left: number;
  right: number;
  leftInset: number;
  rightInset: number;
  foot: number;
}

const NOTHING_CUT: Cut = { left: 0, right: 0, leftInset: 0, rightInset: 0, foot: 0 };

const sameCut = (a: Cut, b: Cut) =>
  (Object.keys(a) as (keyof Cut)[]).every((key) => Math.round(a[key]) === Math.round(b[key]));

/**
 * A table that may be wider than its place: it scrolls sideways in its box, and when columns are cut off on a side, that
 * edge fades and a button at its foot says how many ("3 more columns →") and scrolls to them. The count is measured
 * from the header row (sticky columns stay in view and are never counted), again on every resize and scroll, and told
 * to screen readers politely. `className` styles the scrolling box (border, height); the server's HTML has no count,
 * the browser adds it once it has measured.
 *
 * The buttons float over the table's last visible row (over the faded edge, never over the headers people read
 * columns by), held at the window's bottom while the table runs on below it: they take no room of their own, so the
 * page does not move when they appear.
 */
export function ScrollTable({
  children,
  className = "rounded-lg border border-slate-200 bg-white",
}: {
  children: React.ReactNode;
  className?: string;
}) {
  const wrapperRef = useRef<HTMLDivElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const leftButton = useRef<HTMLButtonElement>(null);
  const rightButton = useRef<HTMLButtonElement>(null);
  const [cut, setCut] = useState<Cut>(NOTHING_CUT);
  // After a button scrolled its columns into view it may vanish (nothing left on its side); focus then goes to the
  // other side's button rather than being lost to the page.
  const focusAfterScroll = useRef<"left" | "right" | null>(null);

  useEffect(() => {
    const wrapper = wrapperRef.current;
    const box = boxRef.current;
    if (!wrapper || !box) return;
    let frame = 0;
    const measure = () => {
      frame = 0;
      const next = measureCut(wrapper, box);
      setCut((current) => (sameCut(current, next) ? current : next));
    };
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(measure);
    };
    // A ResizeObserver reports once when it starts observing: that is the first measurement.
    const resize = new ResizeObserver(schedule);
    resize.observe(box);
    const table = box.querySelector("table");
    if (table) resize.observe(table);
    box.addEventListener("scroll", schedule, { passive: true });
    return () => {
      resize.disconnect();
      box.removeEventListener("scroll", schedule);
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, []);

  useLayoutEffect(() => {
    const side = focusAfterScroll.current;
    if (!side) return;
    focusAfterScroll.current = null;
    const active = document.activeElement;
    if (active && active !== document.body && wrapperRef.current?.contains(active)) return;
    (side === "right" ? leftButton : rightButton).current?.focus();
  }, [cut]);

  const reveal = (side: "left" | "right") => {
    const wrapper = wrapperRef.current;
    const box = boxRef.current;
    if (!wrapper || !box) return;
    const delta = scrollToHidden(headerColumns(box), innerBox(box), side);
    focusAfterScroll.current = side;
    box.scrollBy({ left: delta, behavior: "instant" });
    // Measured now, not on the scroll event's next frame, so the buttons and focus follow at once.
    const next = measureCut(wrapper, box);
    setCut((current) => (sameCut(current, next) ? current : next));
  };

  const announcement = [
    cut.right > 0 ? `${moreColumnsLabel(cut.right)} to the right` : null,
    cut.left > 0 ? `${moreColumnsLabel(cut.left)} to the left` : null,
  ]
    .filter(Boolean)
    .join(", ");

  return (
    <div ref={wrapperRef} className="relative" data-scroll-table="">
      <div ref={boxRef} className={`overflow-x-auto ${className}`} data-scroll-box="">
        {children}
      </div>
      {cut.left > 0 ? (
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-y-px z-[2] w-8 bg-linear-to-r from-white"
          style={{ left: cut.leftInset }}
        />
      ) : null}
      {cut.right > 0 ? (
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-y-px z-[2] w-8 bg-linear-to-l from-white"
          style={{ right: cut.rightInset }}
        />
      ) : null}
      {cut.left > 0 || cut.right > 0 ? (
        // No height: at the wrapper's foot, or the window's while the table runs on below it; the buttons hang above.
        <div className="pointer-events-none sticky bottom-2 z-[3] h-0">
          <div
            className="flex items-end justify-between"
            style={{
              paddingLeft: cut.leftInset + 4,
              paddingRight: cut.rightInset + 4,
              transform: `translateY(calc(-100% - ${cut.foot + 4}px))`,
            }}
          >
            {cut.left > 0 ? (
              <button
                ref={leftButton}
                type="button"
                className={MORE_BUTTON}
                data-more-columns="left"
                onClick={() => reveal("left")}
              >
                <span aria-hidden="true">←</span>
                {moreColumnsLabel(cut.left)}
                <span className="sr-only"> to the left: scroll to them</span>
              </button>
            ) : (
              <span />
            )}
            {cut.right > 0 ? (
              <button
                ref={rightButton}
                type="button"
                className={MORE_BUTTON}
                data-more-columns="right"
                onClick={() => reveal("right")}
              >
                {moreColumnsLabel(cut.right)}
                <span className="sr-only"> to the right: scroll to them</span>
                <span aria-hidden="true">→</span>
              </button>
            ) : null}
          </div>
        </div>
      ) : null}
      <p className="sr-only" aria-live="polite">
        {announcement}
      </p>
    </div>
  );
}

const MORE_BUTTON =
  "pointer-events-auto inline-flex items-center gap-1 whitespace-nowrap rounded-md bg-white px-2 py-0.5 text-xs font-medium text-indigo-700 shadow-sm ring-1 ring-slate-300 hover:bg-indigo-50";

/** The box's visible part in the window's coordinates: inside its borders, without a vertical scroll bar. */
function innerBox(box: HTMLElement): { left: number; right: number } {
  const rect = box.getBoundingClientRect();
  const left = rect.left + box.clientLeft;
  return { left, right: left + box.clientWidth };
}

/** The table's columns, from its last header row (the leaf headers when headers are grouped). */
function headerColumns(box: HTMLElement): ColumnBox[] {
  const head = box.querySelector("table")?.tHead;
  const row = head?.rows[head.rows.length - 1];
  if (!row) return [];
  return [...row.cells].map((cell) => {
    const rect = cell.getBoundingClientRect();
    const style = getComputedStyle(cell);
    const sticky =
      style.position !== "sticky" ? null : style.left === "auto" && style.right !== "auto" ? "right" : "left";
    return { left: rect.left, right: rect.right, sticky };
  });
}

function measureCut(wrapper: HTMLElement, box: HTMLElement): Cut {
  const inner = innerBox(box);
  const hidden = hiddenColumns(headerColumns(box), inner);
  if (hidden.left === 0 && hidden.right === 0) return NOTHING_CUT;
  const outer = wrapper.getBoundingClientRect();
  return {
    left: hidden.left,
    right: hidden.right,
    leftInset: hidden.visibleLeft - outer.left,
    rightInset: outer.right - hidden.visibleRight,
    foot: box.offsetHeight - box.clientHeight - box.clientTop,
  };
}
