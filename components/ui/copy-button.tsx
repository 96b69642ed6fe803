"use client";

import { useEffect, useRef, useState } from "react";

/** Puts `value` on the clipboard; http on another host than localhost has no Clipboard API, so a hidden field does it. */
async function copyText(value: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(value);
      return true;
    }
  } catch {
    // fall through to the older way
  }
  const field = document.createElement("textarea");
  field.value = value;
  field.setAttribute("readonly", "");
  field.style.position = "fixed";
  field.style.opacity = "0";
  document.body.append(field);
  field.select();
  try {
    return document.execCommand("copy");
  } finally {
    field.remove();
  }
}

/**
 * A small button that copies a value (an id, a reference) and says so. Its name says what it copies ("Copy link id
 * mk_…"), so a screen reader tells one row's button from the next.
 */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const name = state === "copied" ? `Copied ${what}` : `Copy ${what}`;
  return (
    <button
      type="button"
      aria-label={`${name} ${value}`}
      title={state === "failed" ? "Could not copy: select the text instead" : name}
      onClick={async (event) => {
        event.stopPropagation();
        const ok = await copyText(value);
        setState(ok ? "copied" : "failed");
        clearTimeout(timer.current);
        timer.current = setTimeout(() => setState("idle"), 1500);
      }}
      // The icon (a copy mark, a tick once copied) is .copy-button's in globals.css.
      className="copy-button"
      data-copied={state === "copied" ? "" : undefined}
    >
      <span role="status" className="sr-only">
        {state === "copied" ? "Copied" : state === "failed" ? "Could not copy" : ""}
      </span>
    </button>
  );
}
