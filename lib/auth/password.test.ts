import { describe, expect, it } from "vitest";
import { generatePassword, hashPassword, verifyAgainstDecoy, verifyPassword } from "./password";

describe("passwords", () => {
  it("verifies the right password and rejects a wrong one", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", hash)).toBe(false);
  });

  it("verifies a hash at the cost it names, so the cost can be raised without locking anyone out", async () => {
    const hash = await hashPassword("older", { n: 2 ** 10, r: 8, p: 1 });
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword("older", hash)).toBe(true);
    expect(await verifyPassword("newer", hash)).toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });

  it("rejects a malformed stored hash instead of throwing", async () => {
    expect(await verifyPassword("x", "md5$abc")).toBe(false);
    expect(await verifyPassword("x", "")).toBe(false);
  });

  it("answers false for unknown accounts after doing the same work", async () => {
    expect(await verifyAgainstDecoy("anything")).toBe(false);
  });

  it("generates long random passwords", () => {
    const a = generatePassword();
    expect(a).toHaveLength(20);
    expect(a).not.toBe(generatePassword());
  });
});
