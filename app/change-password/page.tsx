import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ChangePasswordForm } from "@/components/account/change-password-form";
import { signOutAction } from "@/lib/actions/auth";
import { sessionAccount } from "@/lib/auth";
import { safeRedirectPath } from "@/lib/http/redirect-target";

export const metadata: Metadata = { title: "Choose your password" };

// Where a person who signed in with a one-time password lands, whatever they asked for: outside the console's shell,
// since nothing else is theirs to use until they have chosen their own password.
export default async function ChangePasswordPage({
  searchParams,
}: {
  searchParams: Promise<{ callbackUrl?: string }>;
}) {
  const target = safeRedirectPath((await searchParams).callbackUrl);
  const account = await sessionAccount();
  if (!account) redirect("/sign-in");
  if (!account.passwordChangeRequired) redirect(target);
  return (
    <main className="grid min-h-screen place-items-center bg-slate-50 px-4">
      <div className="w-full max-w-sm space-y-6 rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Choose your own password</h1>
          <p className="mt-1 text-sm text-slate-600">
            Signed in as <span className="font-medium text-slate-800">{account.email}</span> with a password someone
            else set. It serves once: choose your own to continue.
          </p>
        </div>
        <ChangePasswordForm next={target} submitLabel="Save and continue" />
        <form action={signOutAction} className="border-t border-slate-200 pt-4">
          <button type="submit" className="text-sm text-slate-600 underline hover:text-slate-900">
            Sign out instead
          </button>
        </form>
      </div>
    </main>
  );
}
