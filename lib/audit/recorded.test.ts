import { describe, expect, it } from "vitest";
import { describeKey, describeRecorded, NOTHING_RECORDED, recordedText } from "./recorded";

describe("describeRecorded", () => {
  it("shows a category correction in the desk's labels, the codes kept for the hover", () => {
    expect(describeRecorded({ category: "food_and_drink", subcategory: "coffee" })).toEqual({
      kind: "text",
      text: "Food and drink › Coffee",
      raw: "food_and_drink › coffee",
    });
    expect(describeRecorded({ category: "taxes" })).toEqual({ kind: "text", text: "Taxes", raw: "taxes" });
    expect(describeRecorded({ category: "taxes", subcategory: null })).toEqual({
      kind: "text",
      text: "Taxes",
      raw: "taxes",
    });
  });

  it("reads a pair inside a larger value as one Category field, the other keys in words", () => {
    const view = describeRecorded({ category: "food_and_drink", subcategory: "coffee", transactions: 3 });
    expect(recordedText(view)).toBe("Category: Food and drink › Coffee; Transactions: 3");
    // A bulk job's item: before and after are pairs, the before may be missing.
    expect(
      recordedText(
        describeRecorded({
          transactionId: "txn_1",
          before: null,
          after: { category: "food_and_drink", subcategory: "coffee" },
        }),
      ),
    ).toBe("Transaction id: txn_1; Before: none; After: Food and drink › Coffee");
    expect(recordedText(describeRecorded({ undoes: "c0ffee", category: "banking", subcategory: "atm_fees" }))).toBe(
      "Undoes: c0ffee; Category: Banking › ATM fees",
    );
  });

  it("keeps codes it does not know as they were recorded", () => {
    expect(describeRecorded({ category: "not_a_category", subcategory: "coffee" })).toEqual({
      kind: "fields",
      fields: [
        { key: "category", label: "Category", value: { kind: "text", text: "not_a_category" } },
        { key: "subcategory", label: "Subcategory", value: { kind: "text", text: "coffee" } },
      ],
    });
    expect(recordedText(describeRecorded({ category: "banking", subcategory: "retired_code" }))).toBe(
      "Banking › retired_code (not known to this version of Linkdesk)",
    );
    // A subcategory from before the taxonomy's revision of 2025-01-13 reads with its old name and the date.
    expect(recordedText(describeRecorded({ category: "banking", subcategory: "overdraft_fees" }))).toBe(
      "Banking › Overdraft fees (before 2025-01-13)",
    );
  });

  it("never lets null, undefined, NaN or an object's default text through", () => {
    const odd = {
      a: null,
      b: undefined,
      c: Number.NaN,
      d: Infinity,
      e: {},
      f: [],
      g: "",
      h: { nested: { deep: [null, 1, { x: false }] } },
      i: true,
    };
    const text = recordedText(describeRecorded(odd));
    for (const bad of ["null", "undefined", "NaN", "Infinity", "[object Object]"]) expect(text).not.toContain(bad);
    expect(text).toBe("A: none; C: –; D: –; E: none; F: none; G: none; H: (Nested: (Deep: none, 1, (X: no))); I: yes");
    expect(recordedText(describeRecorded(null))).toBe(NOTHING_RECORDED);
    expect(recordedText(describeRecorded(undefined))).toBe(NOTHING_RECORDED);
    expect(recordedText(describeRecorded(["paused"]))).toBe("paused");
  });

  it("writes keys as words", () => {
    expect(describeKey("alreadyImported")).toBe("Already imported");
    expect(describeKey("error_code")).toBe("Error code");
    expect(describeKey("passwordChangeRequired")).toBe("Password change required");
  });
});
