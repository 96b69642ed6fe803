"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import { changeOwnPassword } from "@/lib/actions/account";
import { type ChangePasswordInput, MIN_PASSWORD_LENGTH, changePasswordSchema } from "@/lib/schemas/auth";

const FIELDS = [
  { name: "currentPassword", label: "Current password", autoComplete: "current-password" },
  {
    name: "newPassword",
    label: "New password",
    autoComplete: "new-password",
    help: `At least ${MIN_PASSWORD_LENGTH} characters.`,
  },
  { name: "confirmPassword", label: "New password again", autoComplete: "new-password" },
] as const satisfies readonly { name: keyof ChangePasswordInput; label: string; autoComplete: string; help?: string }[];

const inputClass =
  "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm aria-[invalid=true]:border-red-400 focus:border-indigo-500 focus:outline-none";

/**
 * Current password, then the new one twice. On success the person carries on to `next` with a fresh session (the
 * change ended their other sessions); the fields are never kept in the page once done.
 */
export function ChangePasswordForm({ next, submitLabel = "Change password" }: { next?: string; submitLabel?: string }) {
  const router = useRouter();
  const form = useForm<ChangePasswordInput>({
    resolver: zodResolver(changePasswordSchema),
    defaultValues: { currentPassword: "", newPassword: "", confirmPassword: "" },
  });
  const { errors } = form.formState;
  const changing = useAction(changeOwnPassword, {
    onSuccess: ({ data }) => {
      form.reset();
      if (!data?.signedInAgain) router.replace("/sign-in");
      else if (next) router.replace(next);
      else router.refresh();
    },
    onError: ({ error }) => {
      for (const { name } of FIELDS) {
        const message = error.validationErrors?.fieldErrors[name]?.[0];
        if (message) form.setError(name, { type: "server", message });
      }
    },
  });
  const failure =
    changing.result.serverError ??
    (changing.hasErrored && !changing.result.validationErrors
      ? "Linkdesk did not answer. Check your connection and try again."
      : undefined);
  const done = changing.hasSucceeded && !next;

  return (
    <form
      aria-label="Change password"
      noValidate
      onSubmit={form.handleSubmit((values) => changing.execute(values))}
      className="max-w-md space-y-4"
    >
      {failure ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {failure}
        </p>
      ) : null}
      {done ? (
        <p
          role="status"
          className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900"
        >
          Password changed. Your other sessions have ended; this one goes on.
        </p>
      ) : null}
      {FIELDS.map((field) => {
        const error = errors[field.name]?.message;
        const help = "help" in field ? field.help : undefined;
        const describedBy = [help ? `${field.name}-help` : undefined, error ? `${field.name}-error` : undefined]
          .filter(Boolean)
          .join(" ");
        return (
          <div key={field.name}>
            <label htmlFor={field.name} className="block text-sm font-medium text-slate-700">
              {field.label}
            </label>
            <input
              id={field.name}
              type="password"
              autoComplete={field.autoComplete}
              aria-invalid={error ? true : undefined}
              aria-describedby={describedBy || undefined}
              className={inputClass}
              {...form.register(field.name)}
            />
            {help ? (
              <p id={`${field.name}-help`} className="mt-1 text-xs text-slate-500">
                {help}
              </p>
            ) : null}
            {error ? (
              <p id={`${field.name}-error`} className="mt-1 text-sm text-red-700">
                {error}
              </p>
            ) : null}
          </div>
        );
      })}
      <button
        type="submit"
        disabled={changing.isPending}
        aria-busy={changing.isPending || undefined}
        className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
      >
        {changing.isPending ? "Saving…" : submitLabel}
      </button>
    </form>
  );
}
