import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ComingSoon } from "@/components/shell/coming-soon";
import { NotPermitted } from "@/components/ui/not-permitted";
import { currentStaff } from "@/lib/auth";
import { PERMISSION_LABELS, can } from "@/lib/auth/roles";
import { getBudget } from "@/lib/budget";
import { callHeadroom } from "@/lib/budget/headroom";

export const metadata: Metadata = { title: "Import" };

export default async function ImportPage() {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/import");
  if (!can(staff.role, "import")) return <NotPermitted what={PERMISSION_LABELS.import} />;
  const [headroom] = await callHeadroom(await getBudget(), "POST /links/import", {});
  return (
    <>
      <ComingSoon href="/import" />
      {headroom ? (
        <p className="mt-4 text-sm text-slate-600" data-testid="imports-left">
          Imports left this minute: <span className="font-semibold tabular-nums">{headroom.remaining}</span> of {headroom.key.limit} (Linkdesk&rsquo;s
          share of the upstream&rsquo;s {headroom.key.upstreamLimit} per app).
        </p>
      ) : null}
    </>
  );
}
