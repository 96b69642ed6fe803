import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { JobEndNotices } from "@/components/jobs/job-end-notices";
import { QueryProvider } from "@/components/providers/query-provider";
import { Header } from "@/components/shell/header";
import { Sidebar } from "@/components/shell/sidebar";
import { ImageOriginsProvider } from "@/components/ui/image-origins";
import { sessionAccount } from "@/lib/auth";
import { getEnv } from "@/lib/env";
import { START_PAGE, safeRedirectPath } from "@/lib/http/redirect-target";
import { imageOrigins } from "@/lib/http/safe-url";
import { visibleNavItems } from "@/components/shell/nav-items";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const staff = await sessionAccount();
  // The proxy already sends visitors without a session to sign in; this also catches disabled accounts and sessions
  // ended by a sign-out, and brings the person back to the page afterwards. Someone signed in with a one-time
  // password chooses their own first (the pages themselves see nobody until then).
  if (!staff || staff.passwordChangeRequired) {
    const path = safeRedirectPath((await headers()).get("x-linkdesk-path"));
    const back = path !== START_PAGE ? `?callbackUrl=${encodeURIComponent(path)}` : "";
    redirect(staff ? `/change-password${back}` : `/sign-in${back}`);
  }
  const env = getEnv();
  return (
    <div className="flex min-h-screen">
      <Sidebar items={visibleNavItems(staff.role)} />
      <div className="flex min-w-0 flex-1 flex-col">
        <Header staff={staff} />
        <main className="flex-1 px-6 py-6">
          <QueryProvider>
            {/* The same origins as the Content-Security-Policy's img-src (proxy.ts). */}
            <ImageOriginsProvider origins={imageOrigins(env.UPSTREAM_BASE_URL, env.UPSTREAM_IMAGE_ORIGINS)}>
              {children}
            </ImageOriginsProvider>
          </QueryProvider>
        </main>
        <JobEndNotices />
      </div>
    </div>
  );
}
