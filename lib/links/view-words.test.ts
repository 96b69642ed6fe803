import { describe, expect, it } from "vitest";
import { describeLinkView } from "./view-words";

describe("a links view in words", () => {
  it("names each filter in words, never the raw query string", () => {
    expect(describeLinkView({})).toBe("Every link");
    expect(describeLinkView({ error_code: "auth_expired", institution: "Chase", tag: "campaign:q3" })).toBe(
      "Error: Authorization expired · Institution: Chase · Tag: campaign:q3",
    );
  });

  it("shows a code the upstream added since as sent, marked as not known", () => {
    expect(describeLinkView({ error_code: "brand_new_code" })).toMatch(/^Error: brand_new_code \(.+\)$/);
  });
});
