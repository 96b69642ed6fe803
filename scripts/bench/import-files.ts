// Import files for the benchmarks: a link of `transactions` legacy transactions (about 250 bytes each, as a legacy
// export's are), and a fleet of such links.

const account = (id: string) => ({
  account_id: id,
  name: `Checking ${id}`,
  type: "checking",
  mask: "0042",
  balances: { currency: "USD", current: 1520.33 },
});

export function legacyLink(marker: string, transactions: number) {
  return {
    customer_user: { id: `legacy-${marker}`, email: { address: `${marker}@example.com` } },
    institution_id: "chase",
    provider: "mx",
    accounts: [account("acc-1"), account("acc-2")],
    transactions: Array.from({ length: transactions }, (_, k) => ({
      account_id: k % 3 === 0 ? "acc-2" : "acc-1",
      transaction_id: `${marker}-txn-${k}`,
      amount: k % 7 === 0 ? "2500.00" : `-${(k % 97) + 0.25}`,
      date: `20${20 + (k % 5)}-${String(1 + (k % 12)).padStart(2, "0")}-${String(1 + (k % 28)).padStart(2, "0")}`,
      description: `CARD PURCHASE ${k} CORNER STORE #${k % 1000} SPRINGFIELD US REF ${String(k).padStart(10, "0")} POS TERMINAL 4471`,
      type: k % 7 === 0 ? "income" : "general",
    })),
  };
}

/** NDJSON of `links` links of `transactions` each. */
export function legacyFleet(marker: string, links: number, transactions: number): string {
  return Array.from({ length: links }, (_, i) => JSON.stringify(legacyLink(`${marker}-${i}`, transactions))).join("\n");
}
