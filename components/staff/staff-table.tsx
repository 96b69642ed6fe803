import { isDemoEmail } from "@/lib/auth/demo";
import { ROLE_LABELS } from "@/lib/auth/roles";
import type { AuthSource } from "@/lib/db/schema";
import type { StaffListing } from "@/lib/staff/manage";
import { ScrollTable } from "@/components/ui/scroll-table";
import { StaffRowActions } from "./staff-row-actions";

export const SIGN_IN_METHOD_LABELS: Record<AuthSource, string> = {
  password: "Password",
  oidc: "Company identity provider",
};

const day = (date: Date) => date.toISOString().slice(0, 10);
const utc = (date: Date) => `${date.toISOString().replace("T", " ").slice(0, 19)} UTC`;

function Tag({
  tone,
  children,
}: {
  tone: "slate" | "emerald" | "red" | "amber" | "indigo";
  children: React.ReactNode;
}) {
  const tones = {
    slate: "bg-slate-100 text-slate-700",
    emerald: "bg-emerald-50 text-emerald-800",
    red: "bg-red-50 text-red-800",
    amber: "bg-amber-50 text-amber-900",
    indigo: "bg-indigo-50 text-indigo-800",
  } as const;
  return <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${tones[tone]}`}>{children}</span>;
}

/**
 * Every staff account, by email; controls on every row but the viewer's own, in a column kept at the box's right edge
 * so they are on screen without scrolling at any width.
 */
export function StaffTable({ accounts, currentStaffId }: { accounts: StaffListing[]; currentStaffId: string }) {
  return (
    <ScrollTable>
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        <caption className="sr-only">Staff accounts</caption>
        <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="px-3 py-2">
              Email
            </th>
            <th scope="col" className="px-3 py-2">
              Name
            </th>
            <th scope="col" className="px-3 py-2">
              Role
            </th>
            <th scope="col" className="px-3 py-2">
              Sign-in method
            </th>
            <th scope="col" className="px-3 py-2">
              Status
            </th>
            <th scope="col" className="px-3 py-2">
              Created
            </th>
            <th scope="col" className="sticky-end px-3 py-2">
              Actions
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {accounts.map((account) => {
            const isSelf = account.id === currentStaffId;
            return (
              // One line a row: the table scrolls sideways on a small screen rather than wrapping addresses and buttons.
              <tr
                key={account.id}
                className={`whitespace-nowrap ${account.disabledAt ? "bg-slate-50 text-slate-500" : ""}`}
              >
                <th scope="row" className="px-3 py-2 text-left font-medium text-slate-900">
                  <span className="mr-1.5">{account.email}</span>
                  {isSelf ? <Tag tone="indigo">You</Tag> : null}
                  {isDemoEmail(account.email) ? <Tag tone="amber">Demo</Tag> : null}
                </th>
                <td className="px-3 py-2">{account.name ?? <span className="text-slate-500">—</span>}</td>
                <td className="px-3 py-2">{ROLE_LABELS[account.role]}</td>
                <td className="px-3 py-2">{SIGN_IN_METHOD_LABELS[account.authSource]}</td>
                <td className="px-3 py-2">
                  {account.disabledAt ? (
                    <span title={`Disabled since ${utc(account.disabledAt)}`}>
                      <Tag tone="red">Disabled</Tag>
                    </span>
                  ) : (
                    <Tag tone="emerald">Active</Tag>
                  )}
                </td>
                <td className="whitespace-nowrap px-3 py-2">
                  <time dateTime={account.createdAt.toISOString()} title={utc(account.createdAt)}>
                    {day(account.createdAt)}
                  </time>
                </td>
                <td className={account.disabledAt ? "sticky-end bg-slate-50 px-3 py-2" : "sticky-end px-3 py-2"}>
                  {isSelf ? (
                    <span className="text-xs text-slate-500">Your own account: another admin changes it.</span>
                  ) : (
                    <StaffRowActions
                      account={{
                        id: account.id,
                        email: account.email,
                        role: account.role,
                        authSource: account.authSource,
                        disabled: account.disabledAt !== null,
                      }}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollTable>
  );
}
