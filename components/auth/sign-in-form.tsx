"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useActionState, useTransition } from "react";
import { useForm } from "react-hook-form";
import { type SignInState, signInAction } from "@/lib/actions/auth";
import { type SignInInput, signInSchema } from "@/lib/schemas/auth";

export interface DemoAccount {
  email: string;
  password: string;
  role: string;
}

export function SignInForm({ callbackUrl, demoAccounts }: { callbackUrl?: string; demoAccounts: DemoAccount[] }) {
  const [state, formAction] = useActionState<SignInState, FormData>(signInAction, undefined);
  const [pending, startTransition] = useTransition();
  const form = useForm<SignInInput>({
    resolver: zodResolver(signInSchema),
    defaultValues: { email: "", password: "", callbackUrl },
  });
  const { errors } = form.formState;
  const emailError = errors.email?.message ?? state?.fieldErrors?.email?.[0];
  const passwordError = errors.password?.message ?? state?.fieldErrors?.password?.[0];

  const submit = form.handleSubmit((values) => {
    const data = new FormData();
    data.set("email", values.email);
    data.set("password", values.password);
    if (values.callbackUrl) data.set("callbackUrl", values.callbackUrl);
    startTransition(() => formAction(data));
  });

  return (
    <div className="space-y-6">
      {/* The action too, so a form sent before the page's script runs posts to the server (never a GET that puts the
          password in the address); once hydrated, onSubmit validates first and sends it itself. */}
      <form action={formAction} onSubmit={submit} noValidate className="space-y-4">
        {callbackUrl ? <input type="hidden" name="callbackUrl" defaultValue={callbackUrl} /> : null}
        {state?.error ? (
          <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
            {state.error}
          </p>
        ) : null}
        <div>
          <label htmlFor="email" className="block text-sm font-medium text-slate-700">
            Email
          </label>
          <input
            id="email"
            type="email"
            autoComplete="username"
            aria-invalid={emailError ? true : undefined}
            aria-describedby={emailError ? "email-error" : undefined}
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
            {...form.register("email")}
          />
          {emailError ? (
            <p id="email-error" className="mt-1 text-sm text-red-700">
              {emailError}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor="password" className="block text-sm font-medium text-slate-700">
            Password
          </label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            aria-invalid={passwordError ? true : undefined}
            aria-describedby={passwordError ? "password-error" : undefined}
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
            {...form.register("password")}
          />
          {passwordError ? (
            <p id="password-error" className="mt-1 text-sm text-red-700">
              {passwordError}
            </p>
          ) : null}
        </div>
        <button
          type="submit"
          disabled={pending}
          className="w-full rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
        >
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {demoAccounts.length > 0 ? (
        <section
          aria-labelledby="demo-accounts"
          className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm"
        >
          <h2 id="demo-accounts" className="font-medium text-amber-900">
            Demo accounts (sandbox only)
          </h2>
          <ul className="mt-2 space-y-1">
            {demoAccounts.map((account) => (
              <li key={account.email} className="flex items-center justify-between gap-2">
                <span>
                  <span className="font-medium">{account.role}</span>{" "}
                  <span className="font-mono text-xs text-amber-900">
                    {account.email} / {account.password}
                  </span>
                </span>
                <button
                  type="button"
                  className="rounded border border-amber-300 bg-white px-2 py-0.5 text-xs text-amber-900 hover:bg-amber-100"
                  onClick={() => {
                    form.setValue("email", account.email);
                    form.setValue("password", account.password);
                  }}
                >
                  Use {account.role}
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
