import type { LinkAccount } from "@/lib/links/types";
import { ScrollTable } from "@/components/ui/scroll-table";
import { Time } from "./format";

const COLUMNS = ["Account", "Type", "Number", "Current", "Available", "Limit", "Balance as of"] as const;

/** "depository.credit_card" → { kind: "depository", label: "Credit card" }; the upstream names no fixed list. */
export function accountTypeParts(type: string | null | undefined): { kind: string | null; label: string } {
  if (!type) return { kind: null, label: "Unknown" };
  const dot = type.indexOf(".");
  const kind = dot > 0 ? type.slice(0, dot) : null;
  const rest = (dot > 0 ? type.slice(dot + 1) : type).replaceAll("_", " ");
  return { kind, label: rest.charAt(0).toUpperCase() + rest.slice(1) };
}

/** An amount in the account's currency; an unknown currency code is shown beside the plain number. */
export function money(amount: number | null | undefined, currency: string | null | undefined): string | null {
  if (amount === null || amount === undefined) return null;
  if (currency) {
    try {
      return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(amount);
    } catch {
      // not an ISO 4217 code: fall through
    }
  }
  return `${amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}${currency ? ` ${currency}` : ""}`;
}

const none = <span className="text-slate-500">—</span>;

/** The link's accounts as the upstream reports them. Names are the institution's or the user's: text only. */
export function AccountsTable({ accounts }: { accounts: LinkAccount[] }) {
  if (accounts.length === 0)
    return <p className="text-sm text-slate-500">The upstream reports no accounts for this link.</p>;
  return (
    <ScrollTable>
      <table className="min-w-full text-left text-sm">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            {COLUMNS.map((name) => (
              <th
                key={name}
                scope="col"
                className={`px-2.5 py-2 ${name === "Balance as of" ? "" : "whitespace-nowrap"} ${["Current", "Available", "Limit"].includes(name) ? "text-right" : ""}`}
              >
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {accounts.map((account) => {
            const type = accountTypeParts(account.account_type);
            const currency = account.balances?.currency;
            // Liability accounts report the amount owed as a positive current balance.
            const owed = type.kind === "liability";
            return (
              <tr key={account.account_id} className="align-top" data-testid="account-row">
                <th scope="row" className="px-2.5 py-2 font-medium text-slate-800">
                  <span>{account.name || "Unnamed account"}</span>
                  {account.nickname ? (
                    <span className="ml-1 font-normal text-slate-500">({account.nickname})</span>
                  ) : null}
                  {account.closed ? (
                    <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs font-normal text-slate-600 ring-1 ring-inset ring-slate-200">
                      closed
                    </span>
                  ) : null}
                  <div className="font-mono text-xs font-normal text-slate-500">{account.account_id}</div>
                </th>
                <td className="whitespace-nowrap px-2.5 py-2">
                  {type.label}
                  {type.kind ? <div className="text-xs text-slate-500">{type.kind}</div> : null}
                </td>
                <td className="whitespace-nowrap px-2.5 py-2 font-mono text-xs">
                  {account.account_mask ? `•••• ${account.account_mask}` : none}
                </td>
                <td className="whitespace-nowrap px-2.5 py-2 text-right tabular-nums">
                  {money(account.balances?.current, currency) ?? none}
                  {owed && account.balances?.current != null ? (
                    <div className="text-xs text-slate-500">owed</div>
                  ) : null}
                </td>
                <td className="whitespace-nowrap px-2.5 py-2 text-right tabular-nums">
                  {money(account.balances?.available, currency) ?? none}
                </td>
                <td className="whitespace-nowrap px-2.5 py-2 text-right tabular-nums">
                  {money(account.balances?.limit, currency) ?? none}
                </td>
                {/* Date and time may take two lines: at 1024 px the table then fits without scrolling sideways. */}
                <td className="min-w-24 px-2.5 py-2 text-xs">
                  <Time value={account.balances?.balance_date} none="unknown" />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollTable>
  );
}
