"use client";

import { useEffect, useEffectEvent } from "react";
import { isTypingTarget } from "./shortcuts";

// The desk's keys (listed for people in shortcuts.tsx). None fires while someone types in a field, or with a modifier
// (the browser's own keys); while the help is open only `?` does; the keys that change data need the right to correct.

/** What each key does. A handler that returns false did nothing: the key is left to the browser. */
export interface DeskKeys {
  canCorrect: boolean;
  helpOpen: boolean;
  /** j and k. */
  onMove(delta: 1 | -1): void;
  /** x: the active row. */
  onToggleSelect(): boolean;
  /** c: the active row. */
  onEdit(): boolean;
  /** s */
  onSimilar(): void;
  /** z */
  onUndo(): void;
  /** / */
  onSearch(): void;
  /** ? */
  onToggleHelp(): void;
  /** Esc: closes the category control or the review. */
  onEscape(): boolean;
}

export function useDeskShortcuts(keys: DeskKeys) {
  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTypingTarget(event.target)) return;
    if (keys.helpOpen && event.key !== "?") return;
    switch (event.key) {
      case "j":
        keys.onMove(1);
        break;
      case "k":
        keys.onMove(-1);
        break;
      case "x":
        if (!keys.canCorrect || !keys.onToggleSelect()) return;
        break;
      case "c":
        if (!keys.canCorrect || !keys.onEdit()) return;
        break;
      case "s":
        if (!keys.canCorrect) return;
        keys.onSimilar();
        break;
      case "z":
        if (!keys.canCorrect) return;
        keys.onUndo();
        break;
      case "/":
        keys.onSearch();
        break;
      case "?":
        keys.onToggleHelp();
        break;
      case "Escape":
        if (!keys.onEscape()) return;
        break;
      default:
        return;
    }
    event.preventDefault();
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKey(event);
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);
}
