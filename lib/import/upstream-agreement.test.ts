import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, validationLocations, type TestSandbox } from "../../sandbox/test-support";
import { IMPORT_MAX_BYTES, IMPORT_MAX_TRANSACTIONS, linkSchema, transactionsPageSchema } from "../upstream/schemas";
import { analyzeImportFile } from "./reader";
import { importTag, withImportTags } from "./plan";
import { IDENTITY_TAG_PREFIX } from "./identity";

// Validation must never drift from the upstream's rules. Each bad body below is refused by lib/import (naming the
// field) AND by the sandbox when sent to it directly, bypassing Linkdesk; each good body is accepted by lib/import, and
// the calls it plans are all accepted by the sandbox, which then holds every transaction exactly once.

let t: TestSandbox;
beforeAll(async () => {
  t = await startSandbox({ links: 10 });
});
afterAll(() => t.close());

const account = (id: string) => ({
  account_id: id,
  name: `Account ${id}`,
  type: "checking",
  balances: { current: 100 },
});
const txn = (n: number, extra: Record<string, unknown> = {}) => ({
  account_id: "a1",
  transaction_id: `t-${n}`,
  amount: "-1.25",
  date: "2024-03-01",
  description: `Shop ${n}`,
  ...extra,
});
const good = (extra: Record<string, unknown> = {}) => ({
  customer_user: { id: "user-1", email: { address: "u@example.com" } },
  institution_id: "chase",
  provider: "mx",
  accounts: [account("a1"), account("a2")],
  transactions: [txn(1), txn(2, { account_id: "a2", date: "2024-03-02T10:00:00Z", amount: 12.5 })],
  ...extra,
});

async function linkImport(body: unknown) {
  return analyzeImportFile(new TextEncoder().encode(JSON.stringify(body)), { keepPlans: true });
}

/** [name, body, the field lib/import names, the location the sandbox names] */
const refused: [string, unknown, string, string][] = [
  [
    "customer_user.id missing",
    good({ customer_user: { email: { address: "x@example.com" } } }),
    "customer_user.id",
    "body.customer_user.id",
  ],
  ["customer_user missing", { institution_id: "chase" }, "customer_user", "body.customer_user"],
  [
    "a transaction of no imported account",
    good({ transactions: [txn(1, { account_id: "zz" })] }),
    "transactions[0].account_id",
    "body.transactions.0.account_id",
  ],
  [
    "an amount that is not a number",
    good({ transactions: [txn(1, { amount: "12,50" })] }),
    "transactions[0].amount",
    "body.transactions.0.amount",
  ],
  [
    "an amount that is a boolean",
    good({ transactions: [txn(1, { amount: true })] }),
    "transactions[0].amount",
    "body.transactions.0.amount",
  ],
  [
    "a date that is not a date",
    good({ transactions: [txn(1, { date: "2024-02-30" })] }),
    "transactions[0].date",
    "body.transactions.0.date",
  ],
  [
    "a date in another format",
    good({ transactions: [txn(1, { date: "03/01/2024" })] }),
    "transactions[0].date",
    "body.transactions.0.date",
  ],
  ["a provider outside the known set", good({ provider: "acme" }), "provider", "body.provider"],
  [
    "an institution id that is neither an id nor <provider>.<id>",
    good({ institution_id: "First Bank" }),
    "institution_id",
    "body.institution_id",
  ],
  [
    "an institution id with an unknown provider",
    good({ institution_id: "acme.first_bank" }),
    "institution_id",
    "body.institution_id",
  ],
  [
    "duplicated account ids",
    good({ accounts: [account("a1"), account("a1")], transactions: [] }),
    "accounts[1].account_id",
    "body.accounts.1.account_id",
  ],
  [
    "an account without a name",
    good({ accounts: [{ account_id: "a1", type: "checking", balances: {} }], transactions: [] }),
    "accounts[0].name",
    "body.accounts.0.name",
  ],
  ["a webhook that is not a URL", good({ webhook: "not a url" }), "webhook", "body.webhook"],
  ["a missing institution id", good({ institution_id: undefined }), "institution_id", "body.institution_id"],
];

describe("what lib/import refuses, the upstream refuses", () => {
  it.each(refused)("%s", async (_name, body, path, location) => {
    const { report } = await linkImport(body);
    expect(report.valid).toBe(0);
    expect(report.links[0]?.problems.map((p) => p.path)).toContain(path);
    const response = await t.api("POST", "/links/import", { body });
    expect(response.status).toBe(422);
    expect(validationLocations(response)).toContain(location);
  });

  it("4001 transactions: the upstream refuses them in one call; lib/import splits them into two", async () => {
    const many = Array.from({ length: IMPORT_MAX_TRANSACTIONS + 1 }, (_, n) => txn(n));
    expect((await t.api("POST", "/links/import", { body: good({ transactions: many }) })).status).toBe(422);
    const { report } = await linkImport(good({ transactions: many }));
    expect(report).toMatchObject({ valid: 1, calls: { imports: 1, batches: 1 } });
  });

  it("a single link of 1 MB + 1 byte: the upstream refuses it (413); lib/import splits it under 1 MB a call", async () => {
    const body = good({ transactions: [] as unknown[] });
    const transactions = body.transactions as unknown[];
    let size = JSON.stringify(body).length;
    for (let n = 0; size <= IMPORT_MAX_BYTES; n++) {
      const next = txn(n, { description: `Shop ${n} ${"x".repeat(200)}` });
      transactions.push(next);
      size += JSON.stringify(next).length + (transactions.length > 1 ? 1 : 0);
    }
    // Trim the last description so the body is exactly one byte over.
    const over = JSON.stringify(body).length - IMPORT_MAX_BYTES - 1;
    const last = transactions[transactions.length - 1] as { description: string };
    last.description = last.description.slice(0, last.description.length - over);
    expect(JSON.stringify(body).length).toBe(IMPORT_MAX_BYTES + 1);
    expect((await t.api("POST", "/links/import", { body })).status).toBe(413);
    const { report } = await linkImport(body);
    expect(report).toMatchObject({ valid: 1, calls: { imports: 1, batches: 1 } });
  });
});

describe("what lib/import accepts, the upstream accepts, and holds every transaction once", () => {
  const accepted: [string, unknown][] = [
    ["a full body", good()],
    [
      "customer_user with only an id, no provider, no accounts",
      { customer_user: { id: "u" }, institution_id: "ins_3" },
    ],
    [
      "<provider>.<id> institution, credentials, unknown extra fields",
      good({ institution_id: "yodlee.30188", provider_data: { user_id: "u-1" }, legacy_field: 1 }),
    ],
    [
      "transactions without ids and a date-time",
      good({
        transactions: [
          { account_id: "a1", amount: "10", date: "2024-01-01T00:00:00+02:00" },
          { account_id: "a1", amount: -3, date: "2024-01-02" },
        ],
      }),
    ],
    [
      "9,000 transactions (three calls)",
      good({ transactions: Array.from({ length: 9_000 }, (_, n) => txn(n, { date: `2024-0${1 + (n % 9)}-15` })) }),
    ],
  ];

  it.each(accepted)("%s", async (_name, body) => {
    const { report, plans } = await linkImport(body);
    expect(report.links[0]?.problems).toEqual([]);
    const plan = plans.get(0)!;
    const importBody = withImportTags(plan.body, [
      importTag("00000000-0000-0000-0000-000000000001", 0),
      `${IDENTITY_TAG_PREFIX}${"f".repeat(32)}`,
    ]);
    expect(JSON.stringify(importBody).length).toBeLessThanOrEqual(IMPORT_MAX_BYTES);
    const imported = await t.api("POST", "/links/import", { body: importBody });
    expect(imported.status).toBe(200);
    const link = linkSchema.parse(imported.json);
    expect(link.state).toBe(report.links[0]!.willBe === "connected" ? "connected" : "error");
    for (const batch of plan.batches) {
      expect(JSON.stringify({ transactions: batch.transactions }).length).toBe(batch.bytes);
      const response = await t.api("POST", `/links/${link.link_id}/import/transactions`, {
        body: { transactions: batch.transactions },
      });
      expect(response.status).toBe(200);
    }
    // Sent again (a retried batch): still once each.
    for (const batch of plan.batches.slice(0, 1))
      await t.api("POST", `/links/${link.link_id}/import/transactions`, { body: { transactions: batch.transactions } });
    const page = transactionsPageSchema.parse(
      (await t.api("GET", `/links/${link.link_id}/transactions?start_date=1900-01-01&size=1`)).json,
    );
    expect(page.total).toBe(report.links[0]!.transactions);
  });
});
