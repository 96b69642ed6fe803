import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ChangePasswordForm } from "@/components/account/change-password-form";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff, sessionAccount } from "@/lib/auth";
import { isDemoEmail } from "@/lib/auth/demo";
import { ROLE_LABELS } from "@/lib/auth/roles";

export const metadata: Metadata = { title: "Your account" };

export default async function AccountPage() {
  const staff = await currentStaff();
  const account = await sessionAccount();
  if (!staff || !account) redirect("/sign-in?callbackUrl=/account");
  return (
    <>
      <PageHeader title="Your account" description={`${account.email} · ${ROLE_LABELS[account.role]}`} />
      <section
        aria-labelledby="password-heading"
        className="max-w-2xl space-y-3 rounded-lg border border-slate-200 bg-white p-4"
      >
        <h2 id="password-heading" className="text-base font-semibold text-slate-900">
          Password
        </h2>
        {account.authSource !== "password" ? (
          <p className="text-sm text-slate-600">
            You sign in through the company identity provider: there is no Linkdesk password to change.
          </p>
        ) : isDemoEmail(account.email) ? (
          <p className="text-sm text-slate-600">
            Demo accounts keep the password shown on the sign-in page, for everyone trying the sandbox.
          </p>
        ) : (
          <>
            <p className="text-sm text-slate-600">
              Changing it ends your sessions in other browsers; this one goes on.
            </p>
            <ChangePasswordForm />
          </>
        )}
      </section>
    </>
  );
}
