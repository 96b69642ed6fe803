"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import type { z } from "zod";
import { addStaff } from "@/lib/actions/staff";
import { ROLE_DESCRIPTIONS, ROLE_LABELS, ROLES } from "@/lib/auth/roles";
import { addStaffSchema } from "@/lib/schemas/staff";

type AddStaffFields = z.input<typeof addStaffSchema>;
const FIELDS = ["email", "name", "role"] as const satisfies readonly (keyof AddStaffFields)[];

/** What a failed staff action hands its hook's onError: the action client's safe message, or nothing when the call never arrived. */
export interface StaffActionFailure {
  serverError?: string;
  validationErrors?: { formErrors: string[]; fieldErrors: Partial<Record<string, string[]>> };
  thrownError?: Error;
}

/** One sentence for an alert box. Field errors are shown beside their fields where there are fields to show them. */
export function staffActionFailureMessage(failure: StaffActionFailure): string {
  if (failure.serverError) return failure.serverError;
  const validation = failure.validationErrors;
  const first = validation?.formErrors[0] ?? Object.values(validation?.fieldErrors ?? {}).flat()[0];
  if (first) return first;
  // No answer from the server (network down, server restarted): nothing was necessarily done.
  return "Linkdesk did not answer. Check your connection, reload the page and look before trying again.";
}

/** A freshly made password, shown to the admin who asked and then gone: it is stored only as a hash. */
export function OneTimePassword({ email, password, onDone }: { email: string; password: string; onDone: () => void }) {
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <div className="mt-3 rounded-md border-2 border-amber-400 bg-amber-50 px-4 py-3 text-sm text-amber-950">
      <p className="font-semibold">One-time password for {email}</p>
      <p className="mt-1">
        Copy it now: it will not be shown again. Hand it over privately; it works until changed or reset.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code
          data-testid="one-time-password"
          className="select-all rounded border border-amber-300 bg-white px-2 py-1 font-mono text-base text-slate-900"
        >
          {password}
        </code>
        <button
          type="button"
          className="rounded-md border border-amber-400 bg-white px-2.5 py-1 text-sm font-medium hover:bg-amber-100"
          onClick={() =>
            navigator.clipboard.writeText(password).then(
              () => setCopy("copied"),
              () => setCopy("failed"),
            )
          }
        >
          Copy password
        </button>
        <button
          type="button"
          className="rounded-md px-2.5 py-1 text-sm font-medium text-amber-900 underline hover:bg-amber-100"
          onClick={onDone}
        >
          Done, hide it
        </button>
        <span aria-live="polite" className="text-xs">
          {copy === "copied"
            ? "Copied."
            : copy === "failed"
              ? "The browser refused: select the password and copy it by hand."
              : ""}
        </span>
      </div>
    </div>
  );
}

const inputClass =
  "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm aria-[invalid=true]:border-red-400 focus:border-indigo-500 focus:outline-none";

export function AddStaffForm() {
  const router = useRouter();
  const form = useForm<AddStaffFields, unknown, z.output<typeof addStaffSchema>>({
    resolver: zodResolver(addStaffSchema),
    defaultValues: { email: "", name: "", role: "viewer" },
  });
  const { errors } = form.formState;
  const adding = useAction(addStaff, {
    onSuccess: () => {
      form.reset();
      router.refresh();
    },
    onError: ({ error }) => {
      // Beside the fields, like the browser-side checks; they clear as soon as the field is edited into shape.
      for (const field of FIELDS) {
        const message = error.validationErrors?.fieldErrors[field]?.[0];
        if (message) form.setError(field, { type: "server", message });
      }
    },
  });
  const role = useWatch({ control: form.control, name: "role" });
  const created = adding.hasSucceeded ? adding.result.data : undefined;
  // Field errors alone need no alert: they sit beside their fields.
  const onlyFieldErrors =
    adding.hasErrored && !adding.result.serverError && adding.result.validationErrors?.formErrors.length === 0;
  const failure = adding.hasErrored && !onlyFieldErrors ? staffActionFailureMessage(adding.result) : undefined;

  const fieldError = (field: (typeof FIELDS)[number]) => errors[field]?.message;
  const describedBy = (field: (typeof FIELDS)[number], help?: string) =>
    [help, fieldError(field) ? `add-staff-${field}-error` : undefined].filter(Boolean).join(" ") || undefined;

  return (
    <form
      aria-labelledby="add-staff-heading"
      noValidate
      onSubmit={form.handleSubmit((values) => adding.execute(values))}
      className="space-y-4 rounded-lg border border-slate-200 bg-white p-4"
    >
      <h2 id="add-staff-heading" className="text-base font-semibold text-slate-900">
        Add staff
      </h2>
      {failure ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {failure}
        </p>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-3">
        <div>
          <label htmlFor="add-staff-email" className="block text-sm font-medium text-slate-700">
            Email
          </label>
          <input
            id="add-staff-email"
            type="email"
            autoComplete="off"
            aria-invalid={fieldError("email") ? true : undefined}
            aria-describedby={describedBy("email")}
            className={inputClass}
            {...form.register("email")}
          />
          {fieldError("email") ? (
            <p id="add-staff-email-error" className="mt-1 text-sm text-red-700">
              {fieldError("email")}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor="add-staff-name" className="block text-sm font-medium text-slate-700">
            Name
          </label>
          <input
            id="add-staff-name"
            type="text"
            autoComplete="off"
            aria-invalid={fieldError("name") ? true : undefined}
            aria-describedby={describedBy("name", "add-staff-name-help")}
            className={inputClass}
            {...form.register("name")}
          />
          <p id="add-staff-name-help" className="mt-1 text-xs text-slate-500">
            Optional.
          </p>
          {fieldError("name") ? (
            <p id="add-staff-name-error" className="mt-1 text-sm text-red-700">
              {fieldError("name")}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor="add-staff-role" className="block text-sm font-medium text-slate-700">
            Role
          </label>
          <select
            id="add-staff-role"
            aria-invalid={fieldError("role") ? true : undefined}
            aria-describedby={describedBy("role", "add-staff-role-help")}
            className={`${inputClass} bg-white`}
            {...form.register("role")}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
          <p id="add-staff-role-help" className="mt-1 text-xs text-slate-500">
            {ROLE_DESCRIPTIONS[role]}
          </p>
          {fieldError("role") ? (
            <p id="add-staff-role-error" className="mt-1 text-sm text-red-700">
              {fieldError("role")}
            </p>
          ) : null}
        </div>
      </div>
      <div className="flex items-center gap-3">
        <button
          type="submit"
          disabled={adding.isPending}
          aria-busy={adding.isPending || undefined}
          className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
        >
          Add staff
        </button>
        <p className="text-xs text-slate-500">
          The new account signs in with a password Linkdesk makes up and shows you once.
        </p>
      </div>
      {created ? (
        <div
          role="status"
          className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900"
        >
          <p>
            Added {created.email}
            {adding.input ? ` as ${ROLE_LABELS[adding.input.role]}` : ""}.
          </p>
          <OneTimePassword email={created.email} password={created.password} onDone={adding.reset} />
        </div>
      ) : null}
    </form>
  );
}
