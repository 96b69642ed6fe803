import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_REDIRECT_TARGET_LENGTH, START_PAGE, safeRedirectPath, sameOriginPath } from "./redirect-target";

// Where a browser lands for a Location, read as browsers read it: Node's URL is the WHATWG parser browsers use (it
// drops tabs and line breaks and reads backslashes as slashes). A server or proxy on the way may decode once more.
const OWN = "https://linkdesk.example";
const landsOn = (location: string) => new URL(location, OWN).origin;
const decodedOnce = (location: string) => {
  try {
    return decodeURIComponent(location);
  } catch {
    return location;
  }
};

/** The shape every answer has, whatever came in: a path on the dashboard's own origin, as a browser reads it. */
function expectStaysHome(target: string) {
  expect(target.startsWith("/")).toBe(true);
  expect(target.startsWith("//")).toBe(false);
  // Printable ASCII only: a Location header can carry it, and there is nothing a browser would drop.
  expect(target).toMatch(/^[\x21-\x7e]+$/);
  expect(target).not.toContain("\\");
  expect(landsOn(target)).toBe(OWN);
  expect(landsOn(decodedOnce(target))).toBe(OWN);
  expect(landsOn(decodedOnce(decodedOnce(target)))).toBe(OWN);
}

// The forms the outside test sent, and their relatives.
const HOSTILE = [
  "/\t/evil.example/x",
  "/%09/evil.example/x",
  "/\n/evil.example/x",
  "/%0a/evil.example/x",
  "/\r\n/evil.example/x",
  "/%0d%0a/evil.example/x",
  "/x\r\nSet-Cookie: a=b",
  "//evil.example",
  "///evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "/\\/evil.example",
  "/%5cevil.example",
  "/%5Cevil.example",
  "/%2f%2fevil.example",
  "/%2F%2Fevil.example",
  "/%252f%252fevil.example",
  "/%2f/evil.example",
  "/.//evil.example",
  "/..//evil.example",
  "/a/..//evil.example",
  "https://evil.example",
  "https://evil.example/links",
  "http:evil.example",
  "https:/evil.example",
  "//linkdesk.example@evil.example",
  "https://linkdesk.example.evil.example/",
  "https://linkdesk.example@evil.example/",
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  " javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "evil.example",
  " /links",
  "/links ",
  "/ /evil.example",
  "\u0000/links",
  "/\u0000/evil.example",
  "/\u00a0/evil.example",
  "/\u2028/evil.example",
  "/\uff0f\uff0fevil.example",
  "/%",
  "/%zz",
  "/%E0%A4%A",
  "",
  `/${"a".repeat(MAX_REDIRECT_TARGET_LENGTH)}`,
];

describe("safeRedirectPath", () => {
  it.each(HOSTILE)("sends %j to the start page", (value) => {
    expect(safeRedirectPath(value)).toBe(START_PAGE);
    expect(safeRedirectPath(value, OWN)).toBe(START_PAGE);
  });

  it("sends anything but a string to the start page", () => {
    for (const value of [undefined, null, 0, ["/links"], { toString: () => "/links" }])
      expect(safeRedirectPath(value)).toBe(START_PAGE);
  });

  it("keeps a path on the dashboard, its query and fragment as they were", () => {
    for (const value of [
      "/",
      "/links",
      "/links?state=error&sort=-updated",
      "/audit?action=auth.sign_in",
      "/links/lnk_1#transactions",
      "/links?q=caf%C3%A9%20au%20lait",
      "/jobs/8c1e?state=failed",
    ]) {
      expect(safeRedirectPath(value)).toBe(value);
    }
  });

  it("sends the sign-in and password pages to the start page, where they would send the person round in a circle", () => {
    for (const value of [
      "/sign-in",
      "/sign-in?callbackUrl=/links",
      "/sign-in/",
      "/change-password?callbackUrl=%2F",
      "/api/auth/signout",
      "/sign%2Din",
    ]) {
      expect(safeRedirectPath(value)).toBe(START_PAGE);
    }
    expect(safeRedirectPath("/sign-in-help")).toBe("/sign-in-help");
  });

  it("accepts an absolute URL on exactly its own origin when told the origin, as a path", () => {
    expect(safeRedirectPath(`${OWN}/links?state=error`, OWN)).toBe("/links?state=error");
    expect(safeRedirectPath(`${OWN}/links`)).toBe(START_PAGE);
    expect(safeRedirectPath("http://linkdesk.example/links", OWN)).toBe(START_PAGE);
    expect(safeRedirectPath("https://linkdesk.example:444/links", OWN)).toBe(START_PAGE);
    expect(sameOriginPath(`${OWN}//evil.example`, OWN)).toBeNull();
  });

  it("answers a path on its own origin for any input at all (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.webUrl(), fc.webPath()), (value) =>
        expectStaysHome(safeRedirectPath(value)),
      ),
      { numRuns: 2_000 },
    );
  });

  it("answers a path on its own origin for any mix of the pieces open redirects are made of (property)", () => {
    const piece = fc.constantFrom(
      "/",
      "//",
      "\\",
      "%2f",
      "%2F",
      "%5c",
      "%5C",
      "%252f",
      "%255c",
      "%09",
      "\t",
      "\n",
      "\r",
      "%0a",
      "%0d",
      "%00",
      " ",
      "%20",
      "\u00a0",
      "\u2028",
      "\uff0f",
      ".",
      "..",
      "%2e",
      "@",
      ":",
      "?",
      "#",
      "%",
      "%25",
      "evil.example",
      "linkdesk.example",
      "http:",
      "https:",
      "javascript:",
      "data:",
      "links",
      "x",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.boolean(), (pieces, withOrigin) => {
        const value = pieces.join("");
        expectStaysHome(safeRedirectPath(value, withOrigin ? OWN : undefined));
        const path = sameOriginPath(value, withOrigin ? OWN : undefined);
        if (path !== null) expectStaysHome(path);
      }),
      { numRuns: 5_000 },
    );
  });

  it("leaves an ordinary path of the dashboard as it is (property)", () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
    const query = fc.array(fc.tuple(segment, fc.string({ maxLength: 12 })), { maxLength: 3 });
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), query, (segments, pairs) => {
        const path = `/${segments.join("/")}`;
        fc.pre(!/^\/(sign-in|change-password|api)(\/|$)/.test(path));
        const search = pairs.length > 0 ? `?${new URLSearchParams(pairs).toString()}` : "";
        expect(safeRedirectPath(`${path}${search}`)).toBe(`${path}${search}`);
      }),
      { numRuns: 1_000 },
    );
  });
});
