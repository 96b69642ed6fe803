import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { Header } from "@/components/shell/header";
import { Sidebar } from "@/components/shell/sidebar";
import { currentStaff } from "@/lib/auth";
import { visibleNavItems } from "@/components/shell/nav-items";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const staff = await currentStaff();
  // The proxy already sends visitors without a session to sign in; this also catches disabled accounts and sessions
  // ended by a sign-out, and brings the person back to the page afterwards.
  if (!staff) {
    const path = (await headers()).get("x-linkdesk-path");
    redirect(path && path !== "/" ? `/sign-in?callbackUrl=${encodeURIComponent(path)}` : "/sign-in");
  }
  return (
    <div className="flex min-h-screen">
      <Sidebar items={visibleNavItems(staff.role)} />
      <div className="flex min-w-0 flex-1 flex-col">
        <Header staff={staff} />
        <main className="flex-1 px-6 py-6">{children}</main>
      </div>
    </div>
  );
}
