import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AddStaffForm } from "@/components/staff/add-staff-form";
import { StaffTable } from "@/components/staff/staff-table";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { ROLE_LABELS, can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { listStaff } from "@/lib/staff/manage";

export const metadata: Metadata = { title: "Staff" };

export default async function StaffPage() {
  const me = await currentStaff();
  if (!me) redirect("/sign-in?callbackUrl=/admin/staff");
  if (!can(me.role, "manageStaff")) {
    return (
      <Callout tone="error" title="Only admins manage staff accounts">
        You are signed in as {ROLE_LABELS[me.role]}. Ask an admin to add, change or disable an account.
      </Callout>
    );
  }

  const { db } = await getDb();
  const accounts = await listStaff(db);
  return (
    <>
      <PageHeader
        title="Staff"
        description="Who may sign in to Linkdesk, and with which role. Every change is recorded in the audit trail."
      />
      <div className="space-y-6">
        <AddStaffForm />
        <StaffTable accounts={accounts} currentStaffId={me.id} />
      </div>
    </>
  );
}
