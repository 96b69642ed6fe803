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
} from "./schemas";

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

  it("names the field that does not match", () => {
    const result = linkSchema.safeParse(wireLink({ state: "paused" as never }));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["state"]);

    const page = transactionsPageSchema.safeParse({
      total: 2,
      page: 1,
      size: 2,
      accounts: [],
      link: wireLink(),
      transactions: [wireTransaction(), wireTransaction({ enrichment: { category: { value: "groceries" as never } } })],
    });
    expect(page.error?.issues[0]?.path.join(".")).toBe("transactions.1.enrichment.category.value");
  });

  it("reads amounts given as numbers or decimal strings", () => {
    expect(transactionSchema.parse(wireTransaction({ amount: 12.3 })).amount).toBe(12.3);
    expect(transactionSchema.parse({ ...wireTransaction(), amount: "12.30" }).amount).toBe(12.3);
    expect(transactionSchema.safeParse({ ...wireTransaction(), amount: "12,30" }).success).toBe(false);
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
});
