"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useRef, useState } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { useDismiss } from "@/components/ui/use-dismiss";

/** The signed-in person's name and role; opens their account links. Closes on navigation, Escape or a click outside. */
export function UserMenu({ name, roleLabel }: { name: string; roleLabel: string }) {
  const [open, setOpen] = useState(false);
  const hydrated = useHydrated();
  const pathname = usePathname();
  const root = useRef<HTMLDivElement>(null);
  const [shownFor, setShownFor] = useState(pathname);
  // A click on a link in the menu navigates: the menu has done its job.
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setOpen(false);
  }

  useDismiss(open, root, () => setOpen(false));

  return (
    <div ref={root} className="relative">
      <button
        type="button"
        aria-expanded={open}
        aria-controls="user-menu"
        disabled={!hydrated}
        onClick={() => setOpen((was) => !was)}
        className="flex items-center gap-1.5 rounded-md px-2 py-1 text-slate-700 hover:bg-slate-100"
      >
        <span data-testid="signed-in-as">
          {name}{" "}
          <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700">{roleLabel}</span>
        </span>
        <span aria-hidden className="text-xs text-slate-500">
          ▾
        </span>
      </button>
      {open ? (
        <ul
          id="user-menu"
          className="absolute right-0 z-20 mt-1 w-48 rounded-md border border-slate-200 bg-white py-1 text-sm shadow-md"
        >
          <li>
            <Link href="/account" className="block px-3 py-2 text-slate-700 hover:bg-slate-50">
              Change password
            </Link>
          </li>
        </ul>
      ) : null}
    </div>
  );
}
