import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { RateLimitsLive } from "@/components/limits/rate-limits-view";
import { RATE_LIMITS_REFRESH_MS } from "@/components/limits/refresh";
import { Callout } from "@/components/ui/callout";
import { NotPermitted } from "@/components/ui/not-permitted";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { PERMISSION_LABELS, can } from "@/lib/auth/roles";
import { type RateLimitsView, readRateLimitsView } from "@/lib/budget/view";

export const metadata: Metadata = { title: "Rate limits" };

const percent = (share: number) => `${Math.round(share * 100)} %`;

export default async function RateLimitsPage() {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/rate-limits");
  if (!can(staff.role, "read")) return <NotPermitted what={PERMISSION_LABELS.read} />;
  let data: RateLimitsView;
  try {
    data = await readRateLimitsView();
  } catch (error) {
    return (
      <>
        <PageHeader title="Rate limits" />
        <Callout tone="error" title="The rate budget cannot be read">
          {error instanceof Error ? error.message : "Unknown error"}
        </Callout>
      </>
    );
  }
  const { shares } = data;
  return (
    <>
      <PageHeader
        title="Rate limits"
        description={`Linkdesk's share of each upstream limit (per app ${percent(shares.app)}, per link ${percent(shares.link)}, per user ${percent(shares.user)}, per client ${percent(
          shares.client,
        )}), used in the last minute. Updates every ${RATE_LIMITS_REFRESH_MS / 1000} s.`}
      />
      <RateLimitsLive initial={data} />
    </>
  );
}
