import { describe, expect, it } from "vitest";
import { CATEGORIES, SUBCATEGORIES, TAXONOMY, categoryOf } from "../upstream/taxonomy";
import { legacyCategoryOf, normaliseCategoryName } from "./legacy-categories";

// A legacy transaction's category, in the upstream's taxonomy: what a "carry over categories" correction would send,
// or the text Linkdesk cannot place (shown, never guessed), or nothing when the transaction carries none.

describe("a transaction's own category", () => {
  it.each([
    ["a category", "food_and_drink", { category: "food_and_drink" }],
    ["a subcategory: its category from the taxonomy", "coffee", { category: "food_and_drink", subcategory: "coffee" }],
    ["charity is both: the category", "charity", { category: "charity" }],
    ["dotted category.subcategory", "banking.atm_fees", { category: "banking", subcategory: "atm_fees" }],
    ["case, spaces and hyphens", "  Food-And Drink . COFFEE ", { category: "food_and_drink", subcategory: "coffee" }],
    [
      "a label of the taxonomy",
      "Buy now, pay later",
      { category: "borrowing_and_loans", subcategory: "buy_now_pay_later" },
    ],
    ["& for and", "Food & drink", { category: "food_and_drink" }],
    [
      "category.other: that category's other",
      "transport.other",
      { category: "transport", subcategory: "other_transport" },
    ],
    [
      "the deprecated dotted form",
      "food_and_drinks.restaurants",
      { category: "food_and_drink", subcategory: "eating_out_and_takeaways" },
    ],
    ["the deprecated form's primary alone", "food_and_drinks", { category: "food_and_drink" }],
    [
      "the deprecated primary with a subcategory of its category",
      "food_and_drinks.groceries",
      { category: "food_and_drink", subcategory: "groceries" },
    ],
    ["the deprecated other with its free detail", "fee.other.misc_charge", { category: "banking" }],
    [
      "the deprecated other, keeping what the primary says",
      "wages.other.supplemental",
      { category: "income", subcategory: "employment_income" },
    ],
    [
      "a subcategory renamed upstream",
      "banking.overdraft_fees",
      { category: "banking", subcategory: "nsf_and_overdraft_fees" },
    ],
    [
      "a renamed subcategory alone",
      "bank_fees_and_currency_exchange",
      { category: "banking", subcategory: "account_fees_and_other_bank_charges" },
    ],
    [
      "a subcategory removed upstream keeps its category",
      "borrowing_and_loans.deferred_bills",
      { category: "borrowing_and_loans" },
    ],
  ])("%s: %j", (_name, category, expected) => {
    expect(legacyCategoryOf({ category })).toEqual(expected);
  });

  it.each([
    ["an unknown name", "mystery", "mystery"],
    ["a subcategory under another category", "food_and_drink.rent", "food_and_drink.rent"],
    ["an unknown subcategory of a deprecated primary", "food_and_drinks.bakery", "food_and_drinks.bakery"],
    ["an unknown primary", "shopping_stuff.clothes", "shopping_stuff.clothes"],
    ["a number", 42, "42"],
    ["an object", { name: "Food" }, '{"name":"Food"}'],
    ["only dots", "...", "..."],
  ])("%s is unmapped, with the text the file has", (_name, category, unmapped) => {
    expect(legacyCategoryOf({ category })).toEqual({ unmapped });
  });

  it("cuts a long unmapped text", () => {
    const result = legacyCategoryOf({ category: "x".repeat(500) });
    expect(result).toEqual({ unmapped: `${"x".repeat(100)}…` });
  });

  it.each([
    [{}],
    [{ category: null }],
    [{ category: "" }],
    [{ category: undefined, enrichment: null }],
    [null],
    ["coffee"],
    [[{ category: "coffee" }]],
  ])("none in %j", (transaction) => {
    expect(legacyCategoryOf(transaction)).toBeNull();
  });
});

describe("enrichment", () => {
  it.each([
    [
      "as the upstream writes it",
      { category: { value: "food_and_drink", confidence: 90 }, subcategory: { value: "coffee", confidence: 80 } },
      { category: "food_and_drink", subcategory: "coffee" },
    ],
    ["a category alone", { category: { value: "transport" } }, { category: "transport" }],
    [
      "flattened by an export tool",
      { category: "Food and Drink", subcategory: "Groceries" },
      { category: "food_and_drink", subcategory: "groceries" },
    ],
    ["a subcategory alone", { subcategory: { value: "taxi" } }, { category: "transport", subcategory: "taxi" }],
    [
      "a category written as its subcategory, agreeing",
      { category: "coffee", subcategory: "coffee" },
      { category: "food_and_drink", subcategory: "coffee" },
    ],
    [
      "a renamed subcategory",
      { category: "banking", subcategory: "overdraft_fees" },
      { category: "banking", subcategory: "nsf_and_overdraft_fees" },
    ],
    ["a plain text", "groceries", { category: "food_and_drink", subcategory: "groceries" }],
  ])("%s", (_name, enrichment, expected) => {
    expect(legacyCategoryOf({ enrichment })).toEqual(expected);
  });

  it.each([
    [
      "a subcategory of another category",
      { category: { value: "transport" }, subcategory: { value: "coffee" } },
      "transport.coffee",
    ],
    ["an unknown category", { category: { value: "misc" } }, "misc"],
    ["a category that is not text", { category: { value: 7 } }, "7"],
    ["a category written as another subcategory", { category: "taxi", subcategory: "coffee" }, "taxi.coffee"],
  ])("%s is unmapped", (_name, enrichment, unmapped) => {
    expect(legacyCategoryOf({ enrichment })).toEqual({ unmapped });
  });

  it("enrichment without a category is none; the transaction's category is read then", () => {
    expect(legacyCategoryOf({ enrichment: { merchant: { name: "Shop" } } })).toBeNull();
    expect(legacyCategoryOf({ enrichment: { category: null }, category: "taxi" })).toEqual({
      category: "transport",
      subcategory: "taxi",
    });
  });

  it("enrichment is read before category; a category that maps wins over an enrichment that does not", () => {
    expect(legacyCategoryOf({ enrichment: { category: { value: "travel" } }, category: "coffee" })).toEqual({
      category: "travel",
    });
    expect(legacyCategoryOf({ enrichment: { category: { value: "misc" } }, category: "coffee" })).toEqual({
      category: "food_and_drink",
      subcategory: "coffee",
    });
    expect(legacyCategoryOf({ enrichment: { category: { value: "misc" } }, category: "other misc" })).toEqual({
      unmapped: "misc",
    });
  });
});

describe("over the whole taxonomy", () => {
  it("every category and every subcategory maps to itself, alone, dotted, as a label and as enrichment", () => {
    for (const category of CATEGORIES) {
      expect(legacyCategoryOf({ category })).toEqual({ category });
      expect(legacyCategoryOf({ category: TAXONOMY[category].label })).toEqual({ category });
    }
    for (const subcategory of SUBCATEGORIES) {
      const category = categoryOf(subcategory)!;
      const label = (TAXONOMY[category].subcategories as Record<string, string>)[subcategory]!;
      // `charity` names the category first.
      if (subcategory !== "charity")
        expect(legacyCategoryOf({ category: subcategory })).toEqual({ category, subcategory });
      expect(legacyCategoryOf({ category: `${category}.${subcategory}` })).toEqual({ category, subcategory });
      expect(legacyCategoryOf({ category: `${TAXONOMY[category].label}.${label}` })).toEqual({ category, subcategory });
      expect(
        legacyCategoryOf({ enrichment: { category: { value: category }, subcategory: { value: subcategory } } }),
      ).toEqual({ category, subcategory });
    }
  });

  it("every answer is in the taxonomy, and a subcategory always belongs to its category (the correction call refuses otherwise)", () => {
    const names = [
      ...CATEGORIES,
      ...SUBCATEGORIES,
      "other",
      "food_and_drinks",
      "fee",
      "wages",
      "overdraft_fees",
      "deferred_bills",
      "mystery",
    ];
    for (const a of names) {
      for (const b of names) {
        for (const result of [
          legacyCategoryOf({ category: `${a}.${b}` }),
          legacyCategoryOf({ enrichment: { category: a, subcategory: b } }),
        ]) {
          if (!result || "unmapped" in result) continue;
          expect(CATEGORIES).toContain(result.category);
          if (result.subcategory) expect(categoryOf(result.subcategory)).toBe(result.category);
        }
      }
    }
  });

  it("answers are copies: changing one does not change the next", () => {
    const first = legacyCategoryOf({ category: "coffee" }) as { category: string };
    first.category = "changed";
    expect(legacyCategoryOf({ category: "coffee" })).toEqual({ category: "food_and_drink", subcategory: "coffee" });
  });

  it("normalises case, spaces, hyphens, & and punctuation of labels", () => {
    expect(normaliseCategoryName("  Children's  expenses ")).toBe("childrens_expenses");
    expect(normaliseCategoryName("Theatre, concerts and tickets")).toBe("theatre_concerts_and_tickets");
    expect(normaliseCategoryName("ATM-fees")).toBe("atm_fees");
    expect(normaliseCategoryName("Food & Drink")).toBe("food_and_drink");
  });
});
