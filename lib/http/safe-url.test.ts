import { describe, expect, it } from "vitest";
import { httpUrl, imageOrigins, imageUrl } from "./safe-url";

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

describe("imageUrl", () => {
  const origins = ["http://127.0.0.1:4010", "https://logos.example.com"];

  it("keeps an http(s) picture on an allowed origin", () => {
    expect(imageUrl("http://127.0.0.1:4010/_sandbox/logos/merchants/amazon.svg", origins)).toBe(
      "http://127.0.0.1:4010/_sandbox/logos/merchants/amazon.svg",
    );
    expect(imageUrl("HTTPS://LOGOS.example.com/a.png", origins)).toBe("https://logos.example.com/a.png");
  });

  it("refuses another host, another port or scheme of an allowed host, and anything not http(s)", () => {
    for (const value of [
      "https://evil.example.com/a.png",
      "http://127.0.0.1:4011/_sandbox/logos/merchants/amazon.svg",
      "http://logos.example.com/a.png",
      "https://logos.example.com.evil.test/a.png",
      "javascript:alert(1)",
      "data:image/png;base64,AAAA",
      null,
    ]) {
      expect(imageUrl(value, origins), String(value)).toBeNull();
    }
  });

  it("allows any http(s) host when no list is given, and still refuses other schemes", () => {
    expect(imageUrl("https://anywhere.example.com/a.png", null)).toBe("https://anywhere.example.com/a.png");
    expect(imageUrl("javascript:alert(1)", null)).toBeNull();
  });
});

describe("imageOrigins", () => {
  it("is the upstream's origin and the configured ones, without paths or duplicates", () => {
    expect(imageOrigins("http://127.0.0.1:4010", [])).toEqual(["http://127.0.0.1:4010"]);
    expect(
      imageOrigins("https://api.example.com/v1", ["https://cdn.example.com/logos/", "https://api.example.com"]),
    ).toEqual(["https://api.example.com", "https://cdn.example.com"]);
  });
});
