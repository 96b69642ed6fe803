"use client";

import { useRef } from "react";
import { type RecentChange, readRecentChanges, sessionStore, writeRecentChanges } from "./shortcuts";

/**
 * What `z` undoes on this link, newest last. Only event handlers read it (nothing renders it), so it is a ref kept in
 * step with the tab's sessionStorage: read there on first use, written on every change, so a reload still knows the
 * person's last change here. The server checks each one again (audit row, current category, job) before undoing it.
 */
export function useRecentChanges(linkId: string) {
  const changesRef = useRef<{ linkId: string; list: RecentChange[] } | null>(null);
  const current = () => {
    if (changesRef.current?.linkId !== linkId)
      changesRef.current = { linkId, list: readRecentChanges(sessionStore(), linkId) };
    return changesRef.current.list;
  };
  const update = (change: (prev: RecentChange[]) => RecentChange[]) => {
    const list = change(current());
    changesRef.current = { linkId, list };
    writeRecentChanges(sessionStore(), linkId, list);
  };
  return { current, update };
}
