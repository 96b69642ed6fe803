import { describe, expect, it } from "vitest";
import { parseTagLines, updateLinkDefaults, updateLinkSchema } from "./link-operations";

// The tags-and-webhook form's one schema, as the form and the action both apply it.

const form = (over: Partial<ReturnType<typeof updateLinkDefaults>> = {}) => ({
  ...updateLinkDefaults({ link_id: "mk_1", webhook: "https://hooks.example/a", link_tags: ["team:ops"] }),
  ...over,
});

const problems = (input: unknown) => {
  const result = updateLinkSchema.safeParse(input);
  return result.success ? {} : result.error.flatten().fieldErrors;
};

describe("parseTagLines", () => {
  it("takes one tag a line, trimmed, without blank lines or repeats, in the order written", () => {
    expect(parseTagLines(" b:2 \r\n\na:1\nb:2\n")).toEqual(["b:2", "a:1"]);
    expect(parseTagLines("")).toEqual([]);
  });
});

describe("updateLinkSchema", () => {
  it("starts from the link's own values, which pass unchanged", () => {
    expect(form()).toEqual({
      linkId: "mk_1",
      webhook: "https://hooks.example/a",
      tags: "team:ops",
      seen: { webhook: "https://hooks.example/a", tags: ["team:ops"] },
    });
    expect(problems(form())).toEqual({});
  });

  it("takes an http(s) address, or none, and nothing else", () => {
    expect(problems(form({ webhook: "http://hooks.example/b" }))).toEqual({});
    expect(problems(form({ webhook: "" }))).toEqual({});
    for (const webhook of [
      "javascript:alert(1)",
      "data:text/html,x",
      "//hooks.example/x",
      "https://",
      "https://hooks.example/a b",
    ]) {
      expect(problems(form({ webhook })).webhook, webhook).toEqual([
        "Enter a whole web address starting with https:// or http://",
      ]);
    }
    expect(problems(form({ webhook: "https://me:pw@hooks.example/" })).webhook?.[0]).toMatch(
      /^Leave the user name and password out/,
    );
    expect(problems(form({ webhook: `https://hooks.example/${"x".repeat(65_536)}` })).webhook?.[0]).toMatch(
      /at most 65536 characters/,
    );
  });

  it("holds tags to the upstream's rule, saying which ones break it", () => {
    expect(problems(form({ tags: "a\n9lives\nZ:z" }))).toEqual({});
    expect(problems(form({ tags: "ok\n_under\n:colon" })).tags).toEqual([
      "“_under” must start with a letter or digit; “:colon” must start with a letter or digit",
    ]);
    expect(problems(form({ tags: "x".repeat(99) }))).toEqual({});
    expect(problems(form({ tags: "x".repeat(100) })).tags?.[0]).toMatch(/is 100 characters long; a tag has at most 99/);
    expect(problems(form({ tags: "a\tb" })).tags?.[0]).toMatch(/holds a control character/);
    expect(problems(form({ tags: Array.from({ length: 101 }, (_, i) => `t${i}`).join("\n") })).tags).toEqual([
      "101 tags; a link has at most 100",
    ]);
  });

  it("lets a value the upstream already holds stand, so it does not block a change of the other field", () => {
    const odd = updateLinkDefaults({ link_id: "mk_1", webhook: "not a url", link_tags: ["-legacy"] });
    expect(problems(odd)).toEqual({});
    expect(problems({ ...odd, webhook: "https://hooks.example/new" })).toEqual({});
    // Once the tags change, the whole list is sent, so all of it must pass.
    expect(problems({ ...odd, tags: "-legacy\n-more" }).tags).toEqual([
      "“-legacy” must start with a letter or digit; “-more” must start with a letter or digit",
    ]);
  });
});
