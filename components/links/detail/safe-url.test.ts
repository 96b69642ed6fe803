import { describe, expect, it } from "vitest";
import { httpUrl } from "./safe-url";

describe("httpUrl", () => {
  it("keeps absolute http and https addresses", () => {
    expect(httpUrl("https://cdn.example.com/chase.png")).toBe("https://cdn.example.com/chase.png");
    expect(httpUrl("  http://example.com/a?b=1 ")).toBe("http://example.com/a?b=1");
    expect(httpUrl("HTTPS://EXAMPLE.COM/x")).toBe("https://example.com/x");
  });

  it("refuses every other scheme, relative paths and non-URLs", () => {
    for (const value of [
      "javascript:alert(1)",
      " JaVaScRiPt:alert(document.cookie)",
      "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=",
      "vbscript:msgbox(1)",
      "file:///etc/passwd",
      "ftp://example.com/a.png",
      "//evil.example.com/a.png",
      "/avatars/a.png",
      "not a url",
      "",
      null,
      undefined,
    ]) {
      expect(httpUrl(value), String(value)).toBeNull();
    }
  });
});
