import { describe, expect, it } from "vitest";
import { analyzeImportFile } from "./reader";
import { MAX_FIELD_WARNINGS_PER_FILE, MAX_FIELD_WARNINGS_PER_LINK } from "./limits";
import { nearestField, OTHER_FIELDS_PATH, validateImportLink } from "./validate";

// Nothing silent: every field of a link the upstream does not take is named, with how often and where first, and a
// misspelt one with the field it most likely meant; a file's warnings add up kind by kind. A webhook from a file is a
// web address or the link is refused.

const account = (id: string, extra: Record<string, unknown> = {}) => ({
  account_id: id,
  name: `Account ${id}`,
  type: "checking",
  balances: { current: 10 },
  ...extra,
});
const txn = (n: number, extra: Record<string, unknown> = {}) => ({
  account_id: "a1",
  transaction_id: `t-${n}`,
  amount: "-2.50",
  date: "2024-03-01",
  ...extra,
});
const link = (extra: Record<string, unknown> = {}) => ({
  customer_user: { id: "user-1" },
  institution_id: "chase",
  accounts: [account("a1")],
  transactions: [txn(1)],
  ...extra,
});
const bytes = (value: unknown) => new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));

describe("fields the upstream does not take", () => {
  it("a clean link has no warnings", () => {
    expect(
      validateImportLink(link({ webhook: "https://hooks.example/x", provider: "mx", link_tags: ["a:b"] })).warnings,
    ).toEqual([]);
  });

  it("sends amounts as the decimal strings the upstream types them as, whether the file has numbers or strings", () => {
    const checked = validateImportLink(link({ transactions: [txn(1, { amount: -12.5 }), txn(2, { amount: "3.10" })] }));
    expect(checked.problems).toEqual([]);
    expect(checked.body?.transactions.map((t) => t.amount)).toEqual(["-12.5", "3.10"]);
  });

  it("warns of a provider the upstream dropped and imports the link without it", () => {
    const checked = validateImportLink(link({ provider: "sophtron" }));
    expect(checked.problems).toEqual([]);
    expect(checked.body).not.toHaveProperty("provider");
    expect(checked.warnings).toEqual([
      expect.objectContaining({
        code: "provider_dropped",
        path: "provider",
        message: expect.stringMatching(/2024-08/),
      }),
    ]);
  });

  it("names a misspelt key at the link level and suggests the field it meant", () => {
    const checked = validateImportLink(link({ webhok: "https://hooks.example/x" }));
    // Left out: the link itself is fine, only without a webhook.
    expect(checked.problems).toEqual([]);
    expect(checked.body).not.toHaveProperty("webhok");
    expect(checked.warnings).toEqual([
      {
        code: "unknown_field",
        path: "webhok",
        example: "webhok",
        count: 1,
        message: 'is not a field the upstream takes, so Linkdesk leaves it out (did you mean "webhook"?)',
      },
    ]);
  });

  it("names a misspelt key in an account, counted over the link's accounts, with the first place it is found", () => {
    const misspelt = (id: string) => ({
      account_id: id,
      name: `Account ${id}`,
      type: "checking",
      balanses: { current: 1 },
    });
    const checked = validateImportLink(link({ accounts: [account("a1"), misspelt("a2"), misspelt("a3")] }));
    // The schema wants balances: the misspelling is a problem and a warning that explains it.
    expect(checked.problems.map((p) => p.path)).toEqual(["accounts[1].balances", "accounts[2].balances"]);
    expect(checked.warnings).toEqual([
      {
        code: "unknown_field",
        path: "accounts[].balanses",
        example: "accounts[1].balanses",
        count: 2,
        message: 'is not a field the upstream takes here, so Linkdesk leaves it out (did you mean "balances"?)',
      },
    ]);
  });

  it("checks every level of a link, but not inside provider_data (the provider's credentials, free-form)", () => {
    const checked = validateImportLink(
      link({
        customer_user: {
          id: "u",
          userId: "u",
          email: { address: "u@example.com", verified: true },
          phone: { number: "+15550100", contry: "US" },
        },
        accounts: [account("a1", { balances: { current: 1, curent: 2 } })],
        transactions: [txn(1, { Amount: "1" })],
        provider_data: { user_id: "u-1", anything: { at: "all" } },
      }),
    );
    expect(checked.warnings.map((w) => [w.path, w.message.match(/did you mean "(.+)"/)?.[1] ?? null])).toEqual([
      ["customer_user.userId", null],
      ["customer_user.email.verified", null],
      ["customer_user.phone.contry", "country"],
      ["accounts[].balances.curent", "current"],
      ["transactions[].Amount", "amount"],
    ]);
  });

  it("a transaction's category and enrichment get their own words: carried over later as corrections, if ops choose", () => {
    const checked = validateImportLink(
      link({
        transactions: [
          txn(1, { category: "groceries" }),
          txn(2, { category: "food_and_drinks.restaurants", enrichment: { category: { value: "food_and_drink" } } }),
          txn(3, { category: "mystery" }),
        ],
      }),
    );
    expect(checked.problems).toEqual([]);
    expect(checked.warnings.map(({ code, path, example, count }) => ({ code, path, example, count }))).toEqual([
      { code: "category_not_imported", path: "transactions[].category", example: "transactions[0].category", count: 3 },
      {
        code: "category_not_imported",
        path: "transactions[].enrichment",
        example: "transactions[1].enrichment",
        count: 1,
      },
    ]);
    expect(checked.warnings[0]!.message).toContain("not taken by the upstream on import");
    expect(checked.warnings[0]!.message).toContain("category correction");
    expect(checked.legacyCategories).toEqual({
      mappable: 2,
      unmapped: 1,
      unmappedValues: [{ value: "mystery", path: "transactions[2]" }],
    });
  });

  it("quotes a key that is not a plain name, and cuts a long one", () => {
    const long = "x".repeat(60);
    const checked = validateImportLink(link({ "amount (USD)": 1, [long]: 2 }));
    expect(checked.warnings.map((w) => w.path)).toEqual([
      '["amount (USD)"]',
      `[${JSON.stringify(`${"x".repeat(40)}…`)}]`,
    ]);
  });

  it("a file with a new key on every transaction still gets a short list: kinds beyond the limit are counted together", () => {
    const transactions = Array.from({ length: 100 }, (_, n) => txn(n, { [`legacy_${n}`]: n }));
    const checked = validateImportLink(link({ transactions }));
    expect(checked.warnings).toHaveLength(MAX_FIELD_WARNINGS_PER_LINK + 1);
    expect(checked.warnings.at(-1)).toMatchObject({
      code: "unknown_field",
      path: OTHER_FIELDS_PATH,
      example: `transactions[${MAX_FIELD_WARNINGS_PER_LINK}].legacy_${MAX_FIELD_WARNINGS_PER_LINK}`,
      count: 100 - MAX_FIELD_WARNINGS_PER_LINK,
    });
  });

  it("keeps the notes on transaction ids: repeated ids and transactions without one", () => {
    const checked = validateImportLink(
      link({ transactions: [txn(1), txn(1), txn(2), txn(1), { account_id: "a1", amount: "1", date: "2024-01-01" }] }),
    );
    expect(checked.warnings).toEqual([
      {
        code: "repeated_transaction_id",
        path: "transactions[].transaction_id",
        example: "transactions[1].transaction_id",
        count: 2,
        message: expect.stringContaining("the upstream keeps one transaction per id (the last)"),
      },
      {
        code: "transaction_without_id",
        path: "transactions[].transaction_id",
        example: "transactions[4].transaction_id",
        count: 1,
        message: expect.stringContaining("linkdesk-<n>"),
      },
    ]);
  });

  it.each([
    ["webhok", ["webhook"], "webhook"],
    ["balanses", ["balances"], "balances"],
    ["institutionId", ["institution_id", "provider"], "institution_id"],
    ["Customer-User", ["customer_user"], "customer_user"],
    ["amonut", ["amount", "account_id"], "amount"],
    ["typo", ["type", "mask"], "type"],
    ["legacy_ref", ["account_id", "amount", "date"], null],
    ["x", ["id"], null],
  ])("%s → did you mean %j", (key, names, meant) => {
    expect(nearestField(key, names)).toBe(meant);
  });
});

describe("a file's warnings add up kind by kind", () => {
  it("a category on every transaction of several links is one line: how many, in how many links, where first", async () => {
    const withCategories = (id: string, n: number) =>
      link({
        customer_user: { id },
        transactions: Array.from({ length: n }, (_, k) =>
          txn(k, { category: k % 4 === 0 ? "no such thing" : "coffee" }),
        ),
      });
    const text = [
      withCategories("a", 40),
      link({ customer_user: { id: "b" } }),
      withCategories("c", 60),
      withCategories("d", 20),
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    const { report } = await analyzeImportFile(bytes(text));
    expect(report.valid).toBe(4);
    expect(report.warnings).toEqual([
      {
        code: "category_not_imported",
        path: "transactions[].category",
        count: 120,
        links: 3,
        message: expect.stringContaining("category correction"),
        example: { position: 0, line: 1, path: "transactions[0].category" },
      },
    ]);
    expect(report.links[1]!.warnings).toEqual([]);
    expect(report.links[2]!.warnings[0]).toMatchObject({ count: 60, example: "transactions[0].category" });
    // Every fourth is not a category Linkdesk knows: 10 + 15 + 5.
    // The unmapped one is listed once, by its text, with the first transaction carrying it.
    expect(report.legacyCategories).toEqual({
      mappable: 90,
      unmapped: 30,
      links: 3,
      unmappedList: [{ value: "no such thing", links: 3, example: { position: 0, line: 1, path: "transactions[0]" } }],
    });
  });

  it("warnings of links that cannot be imported count too (a misspelt key often explains the problem); categories only where the link goes", async () => {
    const { report } = await analyzeImportFile(
      bytes([
        link({ customer_user: { id: "a" }, webhok: "https://x.example" }),
        {
          customer_usr: { id: "b" },
          institution_id: "chase",
          transactions: [{ transaction_id: "t", category: "coffee" }],
        },
      ]),
    );
    expect(report).toMatchObject({ valid: 1, invalid: 1 });
    expect(report.links[1]!.problems.map((p) => p.path)).toContain("customer_user");
    expect(report.warnings.map((w) => [w.path, w.count, w.links])).toEqual([
      ["webhok", 1, 1],
      ["customer_usr", 1, 1],
      ["transactions[].category", 1, 1],
    ]);
    expect(report.warnings[1]!.message).toContain('did you mean "customer_user"?');
    expect(report.legacyCategories).toEqual({ mappable: 0, unmapped: 0, links: 0, unmappedList: [] });
  });

  it("kinds of unknown field beyond the file's limit are counted together, each link once", async () => {
    const links = Array.from({ length: MAX_FIELD_WARNINGS_PER_FILE + 10 }, (_, i) =>
      link({ customer_user: { id: `u${i}` }, [`legacy_${i}`]: i }),
    );
    const { report } = await analyzeImportFile(bytes(links));
    expect(report.warnings).toHaveLength(MAX_FIELD_WARNINGS_PER_FILE + 1);
    expect(report.warnings.at(-1)).toMatchObject({
      path: OTHER_FIELDS_PATH,
      count: 10,
      links: 10,
      example: { position: MAX_FIELD_WARNINGS_PER_FILE, path: `legacy_${MAX_FIELD_WARNINGS_PER_FILE}` },
    });
  });

  it("a file without warnings says so: none", async () => {
    const { report } = await analyzeImportFile(bytes(link()));
    expect(report.warnings).toEqual([]);
  });
});

describe("webhook: a web address, or the link is refused", () => {
  it.each([
    ["ftp://x", "ftp://x"],
    ["javascript:alert(1)", "javascript:alert(1)"],
    ["/hooks/import", "/hooks/import"],
    ["not a url", "not a url"],
    ["file:///etc/passwd", "file:///etc/passwd"],
  ])("%s is refused at webhook, in words", (webhook, shown) => {
    const checked = validateImportLink(link({ webhook }));
    expect(checked.body).toBeNull();
    // One problem for the field, not zod's "is not a URL" beside it.
    expect(checked.problems).toEqual([
      {
        path: "webhook",
        message: `must be a web address starting with http:// or https://, not "${shown}" (Linkdesk gives the upstream no other kind of webhook)`,
      },
    ]);
  });

  it.each(["https://hooks.example/import", "http://hooks.example:8080/x?y=1", "HTTPS://HOOKS.EXAMPLE/"])(
    "%s is taken",
    (webhook) => {
      const checked = validateImportLink(link({ webhook }));
      expect(checked.problems).toEqual([]);
      expect(checked.body?.webhook).toBe(webhook);
    },
  );

  it("a webhook that is not text keeps zod's words", () => {
    expect(validateImportLink(link({ webhook: 42 })).problems).toEqual([
      { path: "webhook", message: "must be text, not 42" },
    ]);
  });
});
