import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { WireAccount } from "@/lib/upstream/schemas";
import { AccountsTable, accountTypeParts, money } from "./accounts-table";

const account = (over: Partial<WireAccount> = {}): WireAccount => ({
  account_id: "acc_6Tef269B6ZArSVpYrxtjBV",
  account_type: "depository.checking",
  name: "Everyday Checking",
  nickname: null,
  account_mask: "4321",
  balances: { currency: "USD", available: 1200.5, current: 1250, limit: null, balance_date: "2026-11-01T08:00:00Z" },
  original_id: null,
  closed: false,
  ...over,
});

describe("AccountsTable", () => {
  it("shows each account's name, type, mask and balances in its currency", () => {
    const html = renderToStaticMarkup(
      <AccountsTable
        accounts={[
          account(),
          account({
            account_id: "acc_2",
            account_type: "liability.credit_card",
            name: "Platinum Card",
            account_mask: "0007",
            balances: { currency: "CAD", current: 80.25, available: 4919.75, limit: 5000 },
            closed: true,
          }),
        ]}
      />,
    );
    for (const text of [
      "Everyday Checking",
      "Checking",
      "depository",
      "•••• 4321",
      "$1,250.00",
      "$1,200.50",
      "Platinum Card",
      "Credit card",
      "liability",
      "owed",
      "CA$5,000.00",
      "closed",
      "2026-11-01 08:00:00 UTC",
    ]) {
      expect(html).toContain(text);
    }
  });

  it("renders names with markup as text", () => {
    const html = renderToStaticMarkup(
      <AccountsTable
        accounts={[account({ name: `<script>alert("account")</script> Checking`, nickname: "<b>x</b>" })]}
      />,
    );
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>");
    expect(html).toContain("&lt;script&gt;alert(&quot;account&quot;)&lt;/script&gt; Checking");
  });

  it("says when there are no accounts", () => {
    expect(renderToStaticMarkup(<AccountsTable accounts={[]} />)).toContain("no accounts");
  });
});

describe("formatting", () => {
  it("reads the dotted account types and survives odd currencies", () => {
    expect(accountTypeParts("depository.checking")).toEqual({ kind: "depository", label: "Checking" });
    expect(accountTypeParts("unknown")).toEqual({ kind: null, label: "Unknown" });
    expect(accountTypeParts(null)).toEqual({ kind: null, label: "Unknown" });
    expect(money(12.5, "USD")).toBe("$12.50");
    expect(money(12.5, "not a currency")).toBe("12.50 not a currency");
    expect(money(null, "USD")).toBeNull();
  });
});
