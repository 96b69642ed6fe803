import Link from "next/link";
import { checkUpstream, upstreamMode } from "@/lib/upstream/status";

/** Which upstream the dashboard talks to; renders at once, without waiting for the network. */
export function UpstreamTarget() {
  const { mode, displayUrl } = upstreamMode();
  return (
    <span className="flex min-w-0 items-center gap-2 text-sm text-slate-600">
      <span
        className={`shrink-0 rounded px-1.5 py-0.5 text-xs font-semibold uppercase tracking-wide ${
          mode === "sandbox" ? "bg-amber-100 text-amber-800" : "bg-indigo-100 text-indigo-800"
        }`}
      >
        {mode === "sandbox" ? "Sandbox" : "Live"}
      </span>
      <span className="truncate font-mono text-xs" title={displayUrl} data-testid="upstream-url">
        {displayUrl}
      </span>
    </span>
  );
}

/** Reachability dot; streamed in under Suspense so a slow upstream never holds up the page. */
export async function UpstreamReachability() {
  const status = await checkUpstream();
  const ok = status.reachable.ok && status.token.ok;
  const label = !status.reachable.ok ? "Unreachable" : !status.token.ok ? "No access token" : "Reachable";
  return (
    <Link
      href="/status"
      className="flex items-center gap-1.5 text-sm hover:underline"
      data-testid="upstream-reachability"
    >
      <span aria-hidden className={`size-2.5 rounded-full ${ok ? "bg-emerald-500" : "bg-red-500"}`} />
      <span className={ok ? "text-emerald-800" : "text-red-700"}>{label}</span>
    </Link>
  );
}

export function UpstreamReachabilityPending() {
  return (
    <span className="flex items-center gap-1.5 text-sm text-slate-500">
      <span aria-hidden className="size-2.5 animate-pulse rounded-full bg-slate-300" />
      Checking…
    </span>
  );
}
