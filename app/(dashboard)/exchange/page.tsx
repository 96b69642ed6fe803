import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ExchangeForm } from "@/components/links/exchange-form";
import { NotPermitted } from "@/components/ui/not-permitted";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { PERMISSION_LABELS, can } from "@/lib/auth/roles";
import { getEnv } from "@/lib/env";

export const metadata: Metadata = { title: "Exchange token" };

export default async function ExchangePage() {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/exchange");
  return (
    <>
      <PageHeader
        title="Exchange token"
        description="After an end user finishes linking, the front end receives an exchangeable token; exchanging it creates the link."
      />
      {can(staff.role, "exchange") ? (
        <ExchangeForm demo={getEnv().UPSTREAM_SANDBOX} />
      ) : (
        <NotPermitted what={PERMISSION_LABELS.exchange} />
      )}
    </>
  );
}
