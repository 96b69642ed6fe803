import { describe, expect, it } from "vitest";
import {
  CATEGORIES,
  SUBCATEGORIES,
  TAXONOMY,
  categoryLabel,
  categoryOf,
  isCategory,
  isSubcategory,
  subcategoriesOf,
  subcategoryLabel,
} from "./taxonomy";

describe("taxonomy", () => {
  it("has the spec's 23 categories and 127 subcategories", () => {
    expect(CATEGORIES).toHaveLength(23);
    expect(SUBCATEGORIES).toHaveLength(127);
    expect(new Set(SUBCATEGORIES).size).toBe(127);
  });

  it("puts every subcategory in exactly one category", () => {
    for (const sub of SUBCATEGORIES) {
      const owners = CATEGORIES.filter((c) => (subcategoriesOf(c) as string[]).includes(sub));
      expect(owners, sub).toHaveLength(1);
      expect(categoryOf(sub)).toBe(owners[0]);
    }
  });

  it("gives each category its own other_<category> subcategory", () => {
    for (const category of CATEGORIES) {
      expect(categoryOf(`other_${category}`), category).toBe(category);
    }
  });

  it("files the groupings the upstream documents", () => {
    expect(categoryOf("petrol_and_vehicle_charging")).toBe("transport");
    expect(categoryOf("account_fees_and_other_bank_charges")).toBe("banking");
    expect(categoryOf("nsf_and_overdraft_fees")).toBe("banking");
    expect(categoryOf("coffee")).toBe("food_and_drink");
    expect(categoryOf("charity")).toBe("charity");
  });

  it("keeps the categories in the spec's order", () => {
    expect(CATEGORIES.slice(0, 3)).toEqual(["banking", "borrowing_and_loans", "charity"]);
    expect(CATEGORIES.at(-1)).toBe("utilities");
    expect(SUBCATEGORIES[0]).toBe("account_fees_and_other_bank_charges");
    expect(SUBCATEGORIES.at(-1)).toBe("waste_and_recycling");
  });

  it("labels every category and subcategory for humans", () => {
    for (const category of CATEGORIES) {
      expect(categoryLabel(category)).toMatch(/^[A-Z]/);
      const labels = subcategoriesOf(category).map((s) => subcategoryLabel(s));
      expect(new Set(labels).size, category).toBe(labels.length);
      for (const label of labels) expect(label).toMatch(/^[A-Z]/);
    }
    expect(subcategoryLabel("atm_fees")).toBe("ATM fees");
    expect(TAXONOMY.media_and_telecoms.subcategories.tv_streaming_services).toBe("TV streaming services");
  });

  it("rejects values outside the taxonomy", () => {
    expect(isCategory("groceries")).toBe(false);
    expect(isCategory("constructor")).toBe(false);
    expect(isSubcategory("food_and_drink")).toBe(false);
    expect(categoryOf("toString")).toBeUndefined();
    expect(categoryLabel("unknown_value")).toBe("unknown_value (not known to this version of Linkdesk)");
    expect(subcategoryLabel("overdraft_fees")).toBe("Overdraft fees (before 2025-01-13)");
  });
});
