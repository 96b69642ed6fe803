import { Suspense } from "react";
import { signOutAction } from "@/lib/actions/auth";
import type { SignedInStaff } from "@/lib/auth/credentials";
import { ROLE_LABELS } from "@/lib/auth/roles";
import { AlertsBell, AlertsBellPending } from "./alerts-bell";
import { UserMenu } from "./user-menu";
import { UpstreamReachability, UpstreamReachabilityPending, UpstreamTarget } from "./upstream-indicator";

export function Header({ staff }: { staff: SignedInStaff }) {
  return (
    <header className="flex h-14 items-center justify-between gap-4 border-b border-slate-200 bg-white px-6">
      <div className="flex min-w-0 items-center gap-3">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Upstream</span>
        <UpstreamTarget />
        <Suspense fallback={<UpstreamReachabilityPending />}>
          <UpstreamReachability />
        </Suspense>
      </div>
      <div className="flex shrink-0 items-center gap-3 whitespace-nowrap text-sm">
        <Suspense fallback={<AlertsBellPending />}>
          <AlertsBell />
        </Suspense>
        <UserMenu name={staff.name ?? staff.email} roleLabel={ROLE_LABELS[staff.role]} />
        <form action={signOutAction}>
          <button
            type="submit"
            className="rounded-md border border-slate-300 px-2.5 py-1 text-sm text-slate-700 hover:bg-slate-50"
          >
            Sign out
          </button>
        </form>
      </div>
    </header>
  );
}
