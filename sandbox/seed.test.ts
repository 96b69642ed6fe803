import { describe, expect, it } from "vitest";
import { CATALOG, HOSTILE_AVATAR_INSTITUTION_ID, HOSTILE_NAME_INSTITUTION_ID } from "./catalog";
import { matchCatalog } from "./enrich";
import { mulberry32 } from "./random";
import { fillTemplate, seedLinkData } from "./seed-data";
import { ROLE_CYCLE, seedLink, seedSkeletons } from "./seed-links";
import { createSandbox, DEFAULT_ANCHOR_DATE } from "./server";
import { toWireLink } from "./wire";
import { accountShape, linkShape, transactionShape } from "./wire-shapes";
import { LINK_ERROR_CODES, LINK_STATES, PROVIDERS, categoryOf } from "./wire-vocabulary";

const anchorMs = Date.parse(`${DEFAULT_ANCHOR_DATE}T00:00:00Z`);

describe("seeded links", () => {
  const links = seedSkeletons(1, ROLE_CYCLE, anchorMs).map((skeleton) => seedLink(1, skeleton, anchorMs, ROLE_CYCLE));

  it("hold, within the newest 64, every state, every error_code, every provider and the hostile institutions", () => {
    for (const link of links) linkShape.parse(toWireLink(link));
    expect(new Set(links.map((link) => link.state))).toEqual(new Set(LINK_STATES));
    expect(new Set(links.map((link) => link.error_code).filter(Boolean))).toEqual(new Set(LINK_ERROR_CODES));
    expect(new Set(links.map((link) => link.provider))).toEqual(new Set(PROVIDERS));
    const hostileAvatar = links.find((link) => link.institution_id === HOSTILE_AVATAR_INSTITUTION_ID);
    expect(hostileAvatar?.institution_avatar).toMatch(/^javascript:/);
    expect(links.find((link) => link.institution_id === HOSTILE_NAME_INSTITUTION_ID)?.institution_name).toContain(
      "<script>",
    );
    expect(new Set(links.map((link) => link.institution_id)).size).toBeGreaterThanOrEqual(8);
    expect(links.filter((link) => link.state === "connected").length).toBeGreaterThan(links.length / 2);
  });

  it("carry tags, webhooks, product errors, unavailable reasons and links without the transactions product", () => {
    expect(links.some((link) => link.link_tags.some((tag) => /^(team|plan|region):/.test(tag)))).toBe(true);
    expect(links.some((link) => link.tags && link.tags.length > 0)).toBe(true);
    expect(links.some((link) => link.webhook?.startsWith("https://"))).toBe(true);
    const productErrors = new Set(
      links.flatMap((link) => Object.values(link.products).map((product) => product.error_code)).filter(Boolean),
    );
    for (const code of ["rate_limit", "timeout", "institution_error", "no_permission", "auth_expired"])
      expect(productErrors).toContain(code);
    expect(links.some((link) => Object.values(link.products).some((product) => product.unavailable))).toBe(true);
    expect(links.some((link) => link.state === "connected" && !link.products.transactions)).toBe(true);
    expect(
      links.every(
        (link) =>
          !link.products.transactions ||
          link.state === "connecting" ||
          link.state === "awaiting_token_exchange" ||
          link.products.transactions.last_enriched,
      ),
    ).toBe(true);
    expect(links.every((link) => link.available_products.every((product) => !link.products[product]))).toBe(true);
  });

  it("spread created_at over about 18 months, newest first", () => {
    const skeletons = seedSkeletons(1, 2000, anchorMs);
    const span = (skeletons[0]?.createdAtMs ?? 0) - (skeletons.at(-1)?.createdAtMs ?? 0);
    expect(span / 86_400_000).toBeGreaterThan(500);
    expect(span / 86_400_000).toBeLessThan(560);
  });
});

describe("seeded transactions", () => {
  const all = Array.from({ length: 300 }, (_, i) => seedLinkData(1000 + i, anchorMs, 50));
  const transactions = all.flatMap((data) => data.transactions);

  it("are valid wire transactions and accounts, with 1–3 accounts per link", () => {
    for (const transaction of transactions.slice(0, 2000)) transactionShape.parse(transaction);
    for (const data of all) {
      expect(data.accounts.length).toBeGreaterThanOrEqual(1);
      expect(data.accounts.length).toBeLessThanOrEqual(3);
      for (const account of data.accounts) {
        accountShape.parse(account);
        expect(account.account_id).toMatch(/^acc_[1-9A-HJ-NP-Za-km-z]{22}$/);
      }
    }
    expect(new Set(all.flatMap((data) => data.accounts.map((account) => account.account_type)))).toEqual(
      new Set(["depository.checking", "depository.savings", "liability.credit_card"]),
    );
  });

  it("look like a year of real spending: credits and debits, pending, recurring, processors, 2-decimal amounts", () => {
    const minDate = new Date(anchorMs - 366 * 86_400_000).toISOString().slice(0, 10);
    const maxDate = new Date(anchorMs).toISOString().slice(0, 10);
    expect(transactions.every((row) => row.date >= minDate && row.date <= maxDate)).toBe(true);
    expect(transactions.every((row) => Number(row.amount.toFixed(2)) === row.amount && row.amount > 0)).toBe(true);
    expect(
      transactions.every((row) =>
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(row.transaction_id),
      ),
    ).toBe(true);
    const credits = transactions.filter((row) => row.type === "credit");
    expect(credits.length / transactions.length).toBeGreaterThan(0.08);
    expect(credits.some((row) => row.enrichment.subcategory?.value === "employment_income")).toBe(true);
    expect(credits.some((row) => row.enrichment.subcategory?.value === "refunds_and_reversals")).toBe(true);
    expect(transactions.some((row) => row.pending)).toBe(true);
    const recurring = transactions.filter((row) => row.enrichment.recurrence);
    expect(recurring.length / transactions.length).toBeGreaterThan(0.15);
    expect(recurring.every((row) => (row.enrichment.recurrence?.next_predicted_date ?? "") > row.date)).toBe(true);
    expect(transactions.some((row) => row.enrichment.processor?.name === "Square")).toBe(true);
    expect(new Set(transactions.map((row) => row.enrichment.merchant?.id).filter(Boolean)).size).toBeGreaterThan(50);
  });

  it("are ~8 % low confidence and ~3 % plainly miscategorised", () => {
    const low = transactions.filter((row) => row.enrichment.category.confidence < 60).length / transactions.length;
    expect(low).toBeGreaterThan(0.05);
    expect(low).toBeLessThan(0.11);
    const wrong = transactions.filter(
      (row) => row.enrichment.merchant && matchCatalog(row.raw_description)?.category !== row.enrichment.category.value,
    );
    expect(wrong.length / transactions.length).toBeGreaterThan(0.015);
    expect(wrong.length / transactions.length).toBeLessThan(0.045);
    expect(
      transactions.every(
        (row) =>
          !row.enrichment.subcategory || categoryOf(row.enrichment.subcategory.value) === row.enrichment.category.value,
      ),
    ).toBe(true);
    expect(
      transactions.every((row) => row.enrichment.category.confidence >= 40 && row.enrichment.category.confidence <= 99),
    ).toBe(true);
  });
});

describe("merchant catalog", () => {
  it("recognises its own statement descriptions, so imports enrich like the seed", () => {
    const rng = mulberry32(7);
    expect(CATALOG.length).toBeGreaterThanOrEqual(60);
    for (const entry of CATALOG) {
      for (const template of entry.raw) {
        const matched = matchCatalog(fillTemplate(rng, template));
        expect({ template, slug: matched?.slug }).toEqual({ template, slug: entry.slug });
      }
    }
  });
});

describe("start-up", () => {
  // How fast it starts is measured by `npm run bench sandbox`, not asserted here: a loaded machine would fail it.
  it("builds 100,000 links, serving any of them", () => {
    const sandbox = createSandbox({ links: 100_000 });
    const last = sandbox.state.store.listLinks(null, 5000);
    expect(last.links).toHaveLength(5000);
    expect(sandbox.state.store.linkCount).toBe(100_000);
  });
});
