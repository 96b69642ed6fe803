import { describe, expect, it } from "vitest";
import {
  describeUnstorable,
  findUnstorable,
  refuseUnreadableInput,
  storable,
  storableDeep,
  unreadableAddress,
  unstorableIn,
} from "./storable-input";

const LONE_HIGH = "\ud800";
const LONE_LOW = "\udc00";

describe("text the database cannot store", () => {
  it("is a NUL or half of a surrogate pair; whole pairs, right-to-left marks and the rest of Unicode are fine", () => {
    expect(unstorableIn("mk_\0")).toBe("a NUL character");
    expect(unstorableIn(`a${LONE_HIGH}b`)).toBe("half of a surrogate pair");
    expect(unstorableIn(`${LONE_LOW}`)).toBe("half of a surrogate pair");
    expect(unstorableIn(`${LONE_LOW}${LONE_HIGH}`)).toBe("half of a surrogate pair");
    for (const fine of ["", "mk_1", "café", "😀", "\u200f\u05d0\u202e", "\ufffd", "\u2400", "\x01\x7f"])
      expect(unstorableIn(fine)).toBeNull();
  });

  it("is replaced by visible stand-ins where it must be recorded", () => {
    expect(storable(`a\0b${LONE_HIGH}c😀`)).toBe("a\u2400b\ufffdc😀");
    expect(storableDeep({ [`k\0`]: [`v${LONE_LOW}`, 3, null], at: new Date(0) })).toEqual({
      "k\u2400": ["v\ufffd", 3, null],
      at: new Date(0),
    });
  });

  it("is found wherever an action's input holds it, field names and file names included", () => {
    expect(
      findUnstorable({ linkId: "mk_1", items: [{ transactionId: "t1" }, { transactionId: `t${LONE_HIGH}` }] }),
    ).toEqual({
      path: "items[1].transactionId",
      what: "half of a surrogate pair",
    });
    expect(findUnstorable({ a: { "b\0": 1 } })).toEqual({ path: "a field name in a", what: "a NUL character" });
    expect(findUnstorable("\0")).toEqual({ path: "the input", what: "a NUL character" });
    const form = new FormData();
    form.set("email", "x\0@example.com");
    expect(findUnstorable(form)).toEqual({ path: "email", what: "a NUL character" });
    expect(findUnstorable({ file: new File(["x"], "a\0.json") })).toEqual({
      path: "file's name",
      what: "a NUL character",
    });
    expect(findUnstorable(new Map([["k", new Set(["\0"])]]))).toEqual({ path: "k[…]", what: "a NUL character" });
    expect(findUnstorable({ linkId: "mk_1", n: 3, ok: true, list: ["😀", "\u200f"] })).toBeNull();
  });

  it("is found at any depth, in cycles, and in huge inputs without overflowing", () => {
    let deep: unknown = "\0";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorable(deep)?.what).toBe("a NUL character");
    const cycle: Record<string, unknown> = { a: "x" };
    cycle.self = cycle;
    expect(findUnstorable(cycle)).toBeNull();
    expect(findUnstorable(Array.from({ length: 200_000 }, (_, i) => `id-${i}`))).toBeNull();
  });

  it("is refused in words that say where and what", () => {
    expect(describeUnstorable({ path: "linkId", what: "a NUL character" })).toBe(
      "Refused: linkId holds a NUL character, which Linkdesk cannot store. Remove it and try again.",
    );
  });
});

describe("addresses", () => {
  it("must decode as UTF-8 without a NUL, in the path and in the query", () => {
    expect(unreadableAddress("/api/links/%ff%fe", "")).toBe(
      "Refused: the address's path holds a malformed %-escape (%ff%fe). Linkdesk reads addresses as %-escaped UTF-8.",
    );
    expect(unreadableAddress("/api/links/100%", "")).toContain("a malformed %-escape (%)");
    expect(unreadableAddress("/api/links/%00", "")).toContain("a NUL character (%00)");
    expect(unreadableAddress("/links", "?q=%C3")).toContain("query holds a malformed %-escape (%C3)");
    expect(unreadableAddress("/links", "?q=a&b=%00")).toContain("query holds a NUL character");
    for (const [path, search] of [
      ["/links/mk_1", ""],
      ["/links", "?q=caf%C3%A9&tag=a+b&&x"],
      ["/api/links/%F0%9F%98%80", "?q=%E2%80%8F"],
      ["/", "?"],
    ])
      expect(unreadableAddress(path!, search!)).toBeNull();
  });

  it("are refused by route handlers with 400 in words, params that Next.js decoded included", async () => {
    const refused = await refuseUnreadableInput(new Request("http://linkdesk.test/api/links/%ff%fe"));
    expect(refused?.status).toBe(400);
    expect(await refused?.json()).toEqual({ error: expect.stringContaining("malformed %-escape (%ff%fe)") });
    const nul = await refuseUnreadableInput(
      new Request("http://linkdesk.test/api/links/x"),
      Promise.resolve({ linkId: "mk\0" }),
    );
    expect(await nul?.json()).toEqual({
      error:
        "Refused: the linkId in the address holds a NUL character, which Linkdesk cannot store. Remove it and try again.",
    });
    for (const step of ["", ".", ".."]) {
      const refused = await refuseUnreadableInput(
        new Request("http://linkdesk.test/api/links/x"),
        Promise.resolve({ linkId: step }),
      );
      expect(refused?.status, step).toBe(400);
      expect(await refused?.json(), step).toEqual({
        error: expect.stringMatching(/^Refused: the linkId in the address is (empty|"\.\.?"), which names nothing\.$/),
      });
    }
    expect(
      await refuseUnreadableInput(
        new Request("http://linkdesk.test/api/links/mk_1?x=1"),
        Promise.resolve({ linkId: "mk_1" }),
      ),
    ).toBeNull();
  });
});
