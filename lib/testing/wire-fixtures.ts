import type { WireLink, WireTransaction } from "../upstream/schemas";

// Wire objects shaped like the spec's samples, for unit tests of code that reads them.

export function wireLink(overrides: Partial<WireLink> = {}): WireLink {
  return {
    link_id: "mk_eqkWN34UEoa2NxyALG8pcV",
    institution_id: "chase",
    institution_name: "Chase",
    institution_avatar: "https://cdn.example.com/chase.png",
    state: "connected",
    error_code: null,
    last_synced_at: "2026-11-19T08:00:00Z",
    auth_expired_at: null,
    provider: "plaid",
    link_tags: ["team:retail"],
    tags: [],
    webhook: "https://hooks.example.com/links",
    products: {
      accounts: { refreshed_at: "2026-11-19T08:00:00Z", last_attempted_at: "2026-11-19T08:00:00Z" },
      transactions: { refreshed_at: "2026-11-19T08:00:00Z", last_enriched: "2026-11-19T08:05:00Z" },
    },
    available_products: ["identity"],
    ...overrides,
  };
}

export function wireTransaction(overrides: Partial<WireTransaction> = {}): WireTransaction {
  return {
    transaction_id: "0c6a4a0e-4f5e-4b8e-9a51-6f0b0c9d1e2f",
    account_id: "acc_6Tef269B6ZArSVpYrxtjBV",
    amount: 4.5,
    type: "debit",
    currency: "USD",
    date: "2026-11-18",
    datetime: "2026-11-18T08:12:00Z",
    description: "Starbucks",
    raw_description: "STARBUCKS STORE 1234",
    pending: false,
    enrichment: {
      category: { value: "food_and_drink", confidence: 92 },
      subcategory: { value: "coffee", confidence: 88 },
      merchant: {
        id: "m_1",
        name: "Starbucks",
        display_name: "Starbucks",
        logo: "https://logo.example.com/sb.png",
        website: "starbucks.com",
      },
      processor: null,
      recurrence: null,
    },
    original_id: null,
    ...overrides,
  };
}
