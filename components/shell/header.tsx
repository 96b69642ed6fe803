import { Suspense } from "react";
import { UpstreamReachability, UpstreamReachabilityPending, UpstreamTarget } from "./upstream-indicator";

export function Header() {
  return (
    <header className="flex h-14 items-center justify-between border-b border-slate-200 bg-white px-6">
      <div className="flex items-center gap-3">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Upstream</span>
        <UpstreamTarget />
      </div>
      <Suspense fallback={<UpstreamReachabilityPending />}>
        <UpstreamReachability />
      </Suspense>
    </header>
  );
}
