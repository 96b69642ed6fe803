import { describe, expect, it } from "vitest";
import { wireLink, wireTransaction } from "../testing/wire-fixtures";
import {
  correctEnrichmentRequestSchema,
  errorEnvelopeSchema,
  importLinkRequestSchema,
  linkSchema,
  linksPageSchema,
  transactionsPageSchema,
  transactionSchema,
  userAccountsResponseSchema,
  userTransactionsPageSchema,
} from "./schemas";
import { noticing } from "./reading";

describe("wire schemas", () => {
  it("reads a link with every field of the spec", () => {
    const link = linkSchema.parse(wireLink({ state: "error", error_code: "auth_expired" }));
    expect(link.state).toBe("error");
    expect(link.error_code).toBe("auth_expired");
    expect(link.products.transactions?.last_enriched).toBe("2026-11-19T08:05:00Z");
  });

  it("tolerates omitted and null optional fields and an unlisted provider", () => {
    const minimal = {
      link_id: "mk_1",
      institution_id: "inst",
      institution_name: "Bank",
      state: "connecting",
      provider: "some_future_aggregator",
      products: {},
      error_code: null,
      webhook: null,
    };
    expect(linkSchema.parse(minimal).provider).toBe("some_future_aggregator");
  });

  it("keeps a state, an error code, a provider and products outside today's lists, noting each once per value", () => {
    const raw = wireLink({
      state: "relinking",
      error_code: "consent_revoked",
      provider: "truelayer",
      products: {
        transactions: { refreshed_at: "2026-11-19T08:00:00Z", error_code: "consent_expired" },
        payment_initiation: { refreshed_at: null },
      },
      available_products: ["identity", "payment_initiation"],
    });
    const { result, notices } = noticing(() => linkSchema.parse(raw));
    expect(result).toMatchObject({
      state: "relinking",
      error_code: "consent_revoked",
      provider: "truelayer",
      available_products: ["identity", "payment_initiation"],
    });
    expect(result.products.transactions?.error_code).toBe("consent_expired");
    expect(Object.keys(result.products)).toEqual(["transactions", "payment_initiation"]);
    expect(notices.map((n) => `${n.field}=${n.value}`).sort()).toEqual([
      "link.available_products=payment_initiation",
      "link.error_code=consent_revoked",
      "link.products.error_code=consent_expired",
      "link.products=payment_initiation",
      "link.provider=truelayer",
      "link.state=relinking",
    ]);
    // Known values are not noted.
    expect(noticing(() => linkSchema.parse(wireLink())).notices).toEqual([]);
  });

  it("reads null product entries (both SDKs type them nullable) as products without a status", () => {
    const link = linkSchema.parse({ ...wireLink(), products: { identity: null, transactions: {} }, link_tags: null });
    expect(Object.keys(link.products)).toEqual(["transactions"]);
    expect(link.link_tags ?? []).toEqual([]);
  });

  it("reads old- and new-taxonomy categories as sent", () => {
    const old = transactionSchema.parse(
      wireTransaction({
        enrichment: { category: { value: "banking" }, subcategory: { value: "overdraft_fees", confidence: 70 } },
      }),
    );
    expect(old.enrichment?.subcategory?.value).toBe("overdraft_fees");
    const { result, notices } = noticing(() =>
      transactionSchema.parse(
        wireTransaction({
          enrichment: { category: { value: "subscriptions" }, subcategory: { value: "software_subscriptions" } },
        }),
      ),
    );
    expect(result.enrichment?.category.value).toBe("subscriptions");
    expect(notices.map((n) => n.value)).toEqual(["subscriptions", "software_subscriptions"]);
  });

  it("reads a page of transactions item by item: one it cannot read is set aside with its id and why", () => {
    const broken = { ...wireTransaction({ transaction_id: "txn_broken" }), date: "not-a-date", amount: undefined };
    const { result, notices } = noticing(() =>
      transactionsPageSchema.parse({
        total: 3,
        page: 1,
        size: 3,
        accounts: [],
        link: wireLink(),
        transactions: [
          wireTransaction({ transaction_id: "txn_1" }),
          broken,
          wireTransaction({ transaction_id: "txn_3" }),
        ],
      }),
    );
    expect(result.transactions.map((t) => t.transaction_id)).toEqual(["txn_1", "txn_3"]);
    expect(result.unreadableTransactions).toEqual([{ id: "txn_broken", reason: expect.stringMatching(/amount/) }]);
    expect(notices).toEqual([
      { kind: "unreadable", field: "transaction.amount", value: expect.any(String), itemId: "txn_broken" },
    ]);
  });

  it("sets aside the link an answer carries when it cannot read it, keeping the transactions", () => {
    const page = transactionsPageSchema.parse({
      total: 1,
      page: 1,
      size: 1,
      accounts: [],
      link: { link_id: "mk_1" },
      transactions: [wireTransaction()],
    });
    expect(page.link).toBeNull();
    expect(page.transactions).toHaveLength(1);
  });

  it("reads amounts in every decimal form the SDKs may send", () => {
    const amountOf = (amount: unknown) => transactionSchema.parse({ ...wireTransaction(), amount }).amount;
    expect(amountOf(12.3)).toBe(12.3);
    expect(amountOf("12.30")).toBe(12.3);
    expect(amountOf("12.5")).toBe(12.5);
    expect(amountOf("1E+2")).toBe(100);
    expect(amountOf("0E-8")).toBe(0);
    expect(amountOf(".5")).toBe(0.5);
    expect(transactionSchema.safeParse({ ...wireTransaction(), amount: "12,30" }).success).toBe(false);
    expect(transactionSchema.safeParse({ ...wireTransaction(), amount: "1E" }).success).toBe(false);
  });

  it("reads the links page and the error envelope", () => {
    expect(
      linksPageSchema.parse({ links: [{ link_id: "mk_1", created_at: "2026-01-01T00:00:00Z" }], next_cursor: "" })
        .links,
    ).toHaveLength(1);
    expect(linksPageSchema.parse({}).links).toEqual([]);
    const envelope = errorEnvelopeSchema.parse({
      error_code: "link_error.bad_state",
      error_message: "Link is not connected",
      documentation_url: "https://docs.example.com/errors",
      link_error_code: "link_not_ready",
    });
    expect(envelope.link_error_code).toBe("link_not_ready");
  });

  it("accepts a correction only inside the taxonomy, with the subcategory of its category", () => {
    expect(correctEnrichmentRequestSchema.safeParse({ category: "banking" }).success).toBe(true);
    expect(
      correctEnrichmentRequestSchema.safeParse({ category: "transport", subcategory: "petrol_and_vehicle_charging" })
        .success,
    ).toBe(true);
    const mismatch = correctEnrichmentRequestSchema.safeParse({ category: "banking", subcategory: "coffee" });
    expect(mismatch.error?.issues[0]?.path).toEqual(["subcategory"]);
    expect(correctEnrichmentRequestSchema.safeParse({ category: "groceries" }).success).toBe(false);
  });

  it("requires the import request's customer_user and institution_id", () => {
    const result = importLinkRequestSchema.safeParse({ accounts: [] });
    expect(result.error?.issues.map((i) => i.path[0]).sort()).toEqual(["customer_user", "institution_id"]);
    const ok = importLinkRequestSchema.parse({ customer_user: { id: "user_1" }, institution_id: "mx.chase" });
    expect(ok.accounts).toEqual([]);
    expect(ok.transactions).toEqual([]);
  });

  it("reads a customer's accounts link by link and account by account, setting aside what it cannot read", () => {
    const account = (id: string, extra: Record<string, unknown> = {}) => ({
      account_id: id,
      account_type: "depository.checking",
      name: "Checking",
      account_mask: "0042",
      balances: { currency: "USD", current: "12.50", available: null },
      original_id: null,
      ...extra,
    });
    const { result, notices } = noticing(() =>
      userAccountsResponseSchema.parse({
        links: {
          mk_a: {
            accounts: [account("acc_1"), account("acc_broken", { balances: "unknown" })],
            last_synced_at: "2026-11-19T08:00:00Z",
          },
          mk_b: { accounts: "none" },
          mk_c: { accounts: [account("acc_2", { nickname: null, closed: null })], last_synced_at: "yesterday" },
          mk_d: { accounts: null },
        },
      }),
    );
    expect(Object.keys(result.links)).toEqual(["mk_a", "mk_c", "mk_d"]);
    expect(result.links.mk_a).toEqual({
      accounts: [expect.objectContaining({ account_id: "acc_1", account_mask: "0042" })],
      lastSyncedAt: "2026-11-19T08:00:00Z",
    });
    expect(result.links.mk_a?.accounts[0]?.balances?.current).toBe(12.5);
    // A time it cannot read is unknown, not a failed link.
    expect(result.links.mk_c).toEqual({
      accounts: [expect.objectContaining({ account_id: "acc_2" })],
      lastSyncedAt: null,
    });
    expect(result.links.mk_d).toEqual({ accounts: [], lastSyncedAt: null });
    expect(result.unreadableLinks).toEqual([{ id: "mk_b", reason: expect.stringMatching(/accounts/) }]);
    expect(result.unreadableAccounts).toEqual([
      { id: "acc_broken", linkId: "mk_a", reason: expect.stringMatching(/balances/) },
    ]);
    expect(notices.map((n) => [n.kind, n.field, n.itemId])).toEqual([
      ["unreadable", "account.balances", "acc_broken"],
      ["unreadable", "links.accounts", "mk_b"],
      ["unreadable", "links.last_synced_at", undefined],
    ]);
    expect(userAccountsResponseSchema.parse({ links: {} })).toEqual({
      links: {},
      unreadableLinks: [],
      unreadableAccounts: [],
    });
  });

  it("reads a customer's transactions page item by item, with its accounts as a map by id", () => {
    const broken = { ...wireTransaction({ transaction_id: "txn_broken" }), amount: undefined };
    const page = userTransactionsPageSchema.parse({
      total: 3,
      page: 1,
      size: 3,
      transactions: [wireTransaction({ transaction_id: "txn_1", account_id: "acc_1" }), broken],
      accounts: {
        acc_1: { name: "Checking", last_synced_at: "2026-11-19T08:00:00Z", link_id: "mk_a" },
        acc_2: { link_id: "mk_b" },
        acc_3: "Savings",
      },
    });
    expect(page).toMatchObject({ total: 3, page: 1, size: 3 });
    expect(page.transactions.map((t) => t.transaction_id)).toEqual(["txn_1"]);
    expect(page.unreadableTransactions).toEqual([{ id: "txn_broken", reason: expect.stringMatching(/amount/) }]);
    expect(page.accounts).toEqual({
      acc_1: { name: "Checking", linkId: "mk_a", lastSyncedAt: "2026-11-19T08:00:00Z" },
      acc_2: { name: null, linkId: "mk_b", lastSyncedAt: null },
    });
    expect(page.unreadableAccounts).toEqual([{ id: "acc_3", reason: expect.any(String) }]);
    // No accounts map at all reads as none.
    expect(userTransactionsPageSchema.parse({ total: 0, page: 1, size: 0, transactions: [] }).accounts).toEqual({});
    // A list where the map should be is not this answer.
    expect(userTransactionsPageSchema.safeParse({ total: 0, page: 1, size: 0, accounts: [] }).success).toBe(false);
  });
});
