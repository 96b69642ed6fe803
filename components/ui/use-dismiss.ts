"use client";

import { type RefObject, useEffect, useEffectEvent } from "react";

/**
 * While `open`, a press outside `root` or the Escape key calls `close` with which of the two it was: how menus and
 * popovers close.
 */
export function useDismiss(
  open: boolean,
  root: RefObject<HTMLElement | null>,
  close: (by: "outside" | "escape") => void,
): void {
  const onClose = useEffectEvent(close);
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) onClose("outside");
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose("escape");
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open, root]);
}
