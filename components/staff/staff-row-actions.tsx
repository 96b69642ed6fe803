"use client";

import { useAction } from "next-safe-action/hooks";
import { useState } from "react";
import { changeRole, disableStaff, enableStaff, resetStaffPassword } from "@/lib/actions/staff";
import { ROLE_LABELS, ROLES, type Role, isRole } from "@/lib/auth/roles";
import type { AuthSource } from "@/lib/db/schema";
import { OneTimePassword, type StaffActionFailure, staffActionFailureMessage } from "./add-staff-form";
import { useHydrated } from "@/components/ui/use-hydrated";

export interface StaffRowAccount {
  id: string;
  email: string;
  role: Role;
  authSource: AuthSource;
  disabled: boolean;
}

type Feedback = { kind: "done"; text: string; password?: string } | { kind: "failed"; text: string };

// Small controls: the row's controls stay in view at the table's right edge (StaffTable), so the narrower they are, the
// more of the row shows beside them on a small screen.
const buttonClass =
  "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-700 hover:bg-slate-50 disabled:cursor-not-allowed disabled:opacity-50";

/**
 * Role, access and password controls for someone else's account. The actions refuse your own account as well; this
 * component is simply not shown on your row. The page refreshes itself after a change (the actions revalidate it).
 */
export function StaffRowActions({ account }: { account: StaffRowAccount }) {
  const [chosenRole, setChosenRole] = useState<Role>(account.role);
  // When the page brings a role changed elsewhere, show that one (adjusting state while rendering, not in an effect).
  const [shownAccountRole, setShownAccountRole] = useState<Role>(account.role);
  if (shownAccountRole !== account.role) {
    setShownAccountRole(account.role);
    setChosenRole(account.role);
  }
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const outcome = <Data,>(done: (data: Data) => Feedback) => ({
    onExecute: () => setFeedback(null),
    onSuccess: ({ data }: { data: Data }) => setFeedback(done(data)),
    onError: ({ error }: { error: StaffActionFailure }) =>
      setFeedback({ kind: "failed", text: staffActionFailureMessage(error) }),
  });

  const changingRole = useAction(
    changeRole,
    outcome((data: { role: Role }) => ({ kind: "done", text: `Role changed to ${ROLE_LABELS[data.role]}.` })),
  );
  const disabling = useAction(
    disableStaff,
    outcome(() => ({ kind: "done", text: "Disabled: this account can no longer sign in." })),
  );
  const enabling = useAction(
    enableStaff,
    outcome(() => ({ kind: "done", text: "Enabled: this account can sign in again." })),
  );
  const resetting = useAction(
    resetStaffPassword,
    outcome((data: { password: string }) => ({
      kind: "done",
      text: "Password reset: the old one no longer works.",
      password: data.password,
    })),
  );
  const hydrated = useHydrated();
  const busy = !hydrated || changingRole.isPending || disabling.isPending || enabling.isPending || resetting.isPending;
  const hidePassword = () => {
    setFeedback(null);
    resetting.reset();
  };

  const roleSelectId = `role-${account.id}`;
  return (
    // relative: the select's visually hidden label stays inside the scrolling table instead of widening the page.
    <div className="relative space-y-2">
      <div className="flex items-center gap-1.5">
        <label htmlFor={roleSelectId} className="sr-only">
          Role for {account.email}
        </label>
        <select
          id={roleSelectId}
          value={chosenRole}
          disabled={busy}
          onChange={(event) => {
            if (isRole(event.target.value)) setChosenRole(event.target.value);
          }}
          className="rounded-md border border-slate-300 bg-white px-1.5 py-1 text-xs"
        >
          {ROLES.map((role) => (
            <option key={role} value={role}>
              {ROLE_LABELS[role]}
            </option>
          ))}
        </select>
        <button
          type="button"
          className={buttonClass}
          disabled={busy || chosenRole === account.role}
          onClick={() => changingRole.execute({ staffId: account.id, role: chosenRole })}
        >
          Change role
        </button>
        {account.disabled ? (
          <button
            type="button"
            className={buttonClass}
            disabled={busy}
            onClick={() => enabling.execute({ staffId: account.id })}
          >
            Enable
          </button>
        ) : (
          <button
            type="button"
            className={buttonClass}
            disabled={busy}
            onClick={() => disabling.execute({ staffId: account.id })}
          >
            Disable
          </button>
        )}
        {account.authSource === "password" ? (
          <button
            type="button"
            className={buttonClass}
            disabled={busy}
            onClick={() => resetting.execute({ staffId: account.id })}
          >
            Reset password
          </button>
        ) : null}
      </div>
      {feedback?.kind === "failed" ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-2 py-1 text-sm text-red-800">
          {feedback.text}
        </p>
      ) : null}
      {feedback?.kind === "done" ? (
        <div role="status" className="text-sm text-emerald-800">
          <p>{feedback.text}</p>
          {feedback.password ? (
            <OneTimePassword email={account.email} password={feedback.password} onDone={hidePassword} />
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
