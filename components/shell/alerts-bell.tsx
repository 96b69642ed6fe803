import Link from "next/link";
import { unacknowledgedAlerts } from "@/lib/alerts/view";

// The header's bell, on every page for everyone signed in: how many open alerts nobody has acknowledged, and the way
// to them. Read from a count kept a few seconds (lib/alerts/view.ts).

export async function AlertsBell() {
  const count = await unacknowledgedAlerts();
  const label = count === 0 ? "Alerts: none open unacknowledged" : `Alerts: ${count} open, not acknowledged`;
  return (
    <Link
      href="/alerts"
      aria-label={label}
      title={label}
      data-testid="alerts-bell"
      className="relative inline-flex h-8 w-8 items-center justify-center rounded-md text-slate-600 hover:bg-slate-100"
    >
      <svg aria-hidden="true" viewBox="0 0 20 20" className="h-5 w-5" fill="currentColor">
        <path d="M10 2a5 5 0 0 0-5 5v2.59l-1.2 2.4A1 1 0 0 0 4.7 13.5h10.6a1 1 0 0 0 .9-1.45L15 9.59V7a5 5 0 0 0-5-5Zm0 16a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 10 18Z" />
      </svg>
      {count > 0 ? (
        <span className="absolute -right-1 -top-1 min-w-[1.1rem] rounded-full bg-red-600 px-1 text-center text-[0.65rem] font-semibold leading-4 text-white">
          {count > 99 ? "99+" : count}
        </span>
      ) : null}
    </Link>
  );
}

export function AlertsBellPending() {
  return <span aria-hidden="true" className="inline-block h-8 w-8" />;
}
