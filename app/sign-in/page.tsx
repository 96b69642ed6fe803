import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { signInWithSso } from "@/lib/actions/auth";
import { sessionAccount, ssoProvider } from "@/lib/auth";
import { DEMO_ACCOUNTS } from "@/lib/auth/demo";
import { ROLE_LABELS } from "@/lib/auth/roles";
import { getEnv } from "@/lib/env";
import { safeRedirectPath } from "@/lib/http/redirect-target";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ callbackUrl?: string; error?: string }>;
}) {
  const { callbackUrl, error } = await searchParams;
  const target = safeRedirectPath(callbackUrl);
  const account = await sessionAccount();
  if (account?.passwordChangeRequired) redirect(`/change-password?callbackUrl=${encodeURIComponent(target)}`);
  if (account) redirect(target);
  const demo = getEnv().UPSTREAM_SANDBOX;
  const sso = ssoProvider();
  return (
    <main className="grid min-h-screen place-items-center bg-slate-50 px-4">
      <div className="w-full max-w-sm space-y-6 rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Sign in to Linkdesk</h1>
          <p className="mt-1 text-sm text-slate-600">
            {callbackUrl
              ? "Your session has ended or you are not signed in. Sign in to continue."
              : "Staff accounts only."}
          </p>
        </div>
        {error && error !== "CredentialsSignin" ? (
          <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
            Sign-in through the identity provider was refused.
          </p>
        ) : null}
        <SignInForm
          callbackUrl={target}
          demoAccounts={
            demo ? DEMO_ACCOUNTS.map((a) => ({ email: a.email, password: a.password, role: ROLE_LABELS[a.role] })) : []
          }
        />
        {sso ? (
          <form action={signInWithSso.bind(null, target)}>
            <button
              type="submit"
              className="w-full rounded-md border border-slate-300 px-3 py-2 text-sm font-medium hover:bg-slate-50"
            >
              Sign in with {sso.name}
            </button>
          </form>
        ) : null}
      </div>
    </main>
  );
}
