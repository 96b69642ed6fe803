import { expect } from "vitest";

/** Words a person can read (an item's reason, an error's title): a sentence, not a stack, a JSON dump or an unfilled template. */
export function expectWords(text: string) {
  expect(text).toMatch(/^[A-Z]/);
  expect(text).not.toMatch(/\n\s+at |\[object |\bundefined\b|\bNaN\b|^\s*[{[]|Error:/);
  expect(text.length).toBeLessThan(600);
}
