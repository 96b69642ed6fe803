import { describe, expect, it } from "vitest";
import { isInCategory, splitCorrectionAnswer } from "./rows";

// Correct Enrichment answers "the updated transaction together with similar past transactions" (the spec), in no
// promised order: the desk's "N similar" and the review's ticks come from this split.

const row = (id: string, category: string, subcategory: string | null = null) => ({ id, category, subcategory });

describe("splitCorrectionAnswer", () => {
  const target = { category: "food_and_drink", subcategory: "coffee" };

  it("finds the corrected transaction by its id wherever it stands, and keeps every similar one, the newest included", () => {
    const answer = [row("newest", "shopping"), row("fixed", "food_and_drink", "coffee"), row("older", "travel")];
    const split = splitCorrectionAnswer(answer, "fixed", target);
    expect(split.updated?.id).toBe("fixed");
    expect(split.similar.map((r) => r.id)).toEqual(["newest", "older"]);
  });

  it("counts only the similar ones not in the target category yet: the count the review ticks", () => {
    const answer = [
      row("fixed", "food_and_drink", "coffee"),
      row("a", "food_and_drink", "coffee"),
      row("b", "shopping"),
      row("c", "food_and_drink", "groceries"),
    ];
    const split = splitCorrectionAnswer(answer, "fixed", target);
    expect(split.similar).toHaveLength(3);
    expect(split.toChange).toBe(2);
    expect(split.similar.filter((r) => !isInCategory(r, target)).map((r) => r.id)).toEqual(["b", "c"]);
  });

  it("answers no corrected row when the upstream left it out, and every row is a similar one", () => {
    const split = splitCorrectionAnswer([row("a", "shopping")], "fixed", target);
    expect(split.updated).toBeNull();
    expect(split.toChange).toBe(1);
  });
});
