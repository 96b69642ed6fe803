"use client";

import { type ReactNode, useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from "react";

// Short explanations next to their triggers, for tables with many of them: one explanation element for the whole
// table, filled on demand, instead of one per trigger in every row's HTML. A trigger is a button carrying `data-hint`
// (a key); the host asks `hint(key)` for the words when the trigger is hovered (and while the pointer is over the
// explanation itself), focused from the keyboard, clicked or tapped; Escape, blur or leaving closes it (WCAG 1.4.13:
// hoverable, dismissible, persistent). While open the explanation is the trigger's description (aria-describedby), as
// Radix's tooltip does. It opens in the browser's top layer (popover="manual"), so a table's scrolling box never clips
// it; it is placed below the trigger, or above when there is no room; scrolling or resizing closes it.

const GAP = 6;
const MARGIN = 8;
const CLOSE_DELAY_MS = 150;

function place(anchor: HTMLElement, tip: HTMLElement) {
  const a = anchor.getBoundingClientRect();
  const t = tip.getBoundingClientRect();
  let top = a.bottom + GAP;
  if (top + t.height > window.innerHeight - MARGIN && a.top - GAP - t.height >= MARGIN) top = a.top - GAP - t.height;
  const left = Math.min(Math.max(MARGIN, a.left), Math.max(MARGIN, window.innerWidth - t.width - MARGIN));
  tip.style.top = `${Math.round(top)}px`;
  tip.style.left = `${Math.round(left)}px`;
}

const triggerOf = (target: EventTarget | null): HTMLElement | null =>
  target instanceof Element ? target.closest<HTMLElement>("[data-hint]") : null;

/** A button that explains itself through the nearest HintHost: `hint` is the key the host's `hint()` reads. */
export function HintTrigger({
  hint,
  label,
  className = "",
  testId,
  children,
}: {
  hint: string;
  label?: string;
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <button type="button" data-hint={hint} aria-label={label} data-testid={testId} className={className}>
      {children}
    </button>
  );
}

export function HintHost({ hint, children }: { hint: (key: string) => ReactNode; children: ReactNode }) {
  const id = useId();
  const tip = useRef<HTMLSpanElement>(null);
  const closing = useRef<ReturnType<typeof setTimeout>>(undefined);
  const [open, setOpen] = useState<{ anchor: HTMLElement; key: string } | null>(null);

  const close = useCallback((delayMs = 0) => {
    clearTimeout(closing.current);
    if (delayMs > 0) closing.current = setTimeout(() => setOpen(null), delayMs);
    else setOpen(null);
  }, []);
  const show = (anchor: HTMLElement) => {
    clearTimeout(closing.current);
    const key = anchor.dataset.hint!;
    setOpen((current) => (current?.anchor === anchor && current.key === key ? current : { anchor, key }));
  };

  useLayoutEffect(() => {
    const el = tip.current;
    if (!open || !el || typeof el.showPopover !== "function") return;
    if (!el.matches(":popover-open")) el.showPopover();
    place(open.anchor, el);
    open.anchor.setAttribute("aria-describedby", id);
    return () => {
      open.anchor.removeAttribute("aria-describedby");
      if (el.matches(":popover-open")) el.hidePopover();
    };
  }, [open, id]);

  useEffect(() => {
    if (!open) return;
    // The explanation is placed for where the trigger was: scrolling or resizing closes it instead of leaving it behind.
    const onMove = () => close();
    window.addEventListener("scroll", onMove, true);
    window.addEventListener("resize", onMove);
    return () => {
      window.removeEventListener("scroll", onMove, true);
      window.removeEventListener("resize", onMove);
    };
  }, [open, close]);

  useEffect(() => () => clearTimeout(closing.current), []);

  // A pointer that came to rest on a trigger (or a focus that reached one) before React hydrated the page fired its
  // events with no listener: look once, now that the host listens, so the explanation opens without a second move.
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = host.current;
    if (!root) return;
    const focused = triggerOf(document.activeElement);
    const hovered = root.querySelector<HTMLElement>("[data-hint]:hover");
    const early = focused && root.contains(focused) ? focused : hovered;
    if (early) setOpen({ anchor: early, key: early.dataset.hint! });
  }, []);

  const insideOpen = (node: EventTarget | null) =>
    node instanceof Node && (open?.anchor.contains(node) || tip.current?.contains(node));

  return (
    <div
      ref={host}
      onPointerOver={(event) => {
        if (tip.current?.contains(event.target as Node)) return clearTimeout(closing.current);
        const trigger = triggerOf(event.target);
        if (trigger) show(trigger);
      }}
      onPointerOut={(event) => {
        if (open && insideOpen(event.target) && !insideOpen(event.relatedTarget)) close(CLOSE_DELAY_MS);
      }}
      onFocus={(event) => {
        const trigger = triggerOf(event.target);
        if (trigger) show(trigger);
      }}
      onBlur={(event) => {
        if (open && event.target === open.anchor) close();
      }}
      onClick={(event) => {
        const trigger = triggerOf(event.target);
        if (trigger) show(trigger);
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape" && open) {
          event.stopPropagation();
          close();
        }
      }}
    >
      {children}
      <span
        ref={tip}
        id={id}
        role="tooltip"
        popover="manual"
        className="fixed inset-auto m-0 max-w-sm rounded-md border-0 bg-slate-900 px-3 py-2 text-left text-xs font-normal normal-case leading-relaxed tracking-normal text-white shadow-lg"
      >
        {open ? hint(open.key) : null}
      </span>
    </div>
  );
}
