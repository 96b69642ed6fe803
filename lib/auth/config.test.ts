import { describe, expect, it } from "vitest";
import { authConfig } from "./config";

describe("session lifetime", () => {
  const config = authConfig({ secret: "x".repeat(32), maxAgeHours: 8 });
  const jwt = config.callbacks!.jwt! as (params: { token: Record<string, unknown>; user?: { id: string } }) => unknown;

  it("stamps the sign-in time and keeps the session within the working day", () => {
    const token = jwt({ token: {}, user: { id: "staff-1" } }) as Record<string, unknown>;
    expect(token.sub).toBe("staff-1");
    expect(typeof token.signedInAt).toBe("number");
    expect(jwt({ token: { sub: "staff-1", signedInAt: Date.now() - 7 * 3600_000 } })).toMatchObject({ sub: "staff-1" });
  });

  it("ends the session 8 hours after sign-in whatever the activity", () => {
    expect(jwt({ token: { sub: "staff-1", signedInAt: Date.now() - 8 * 3600_000 - 1000 } })).toBeNull();
    expect(jwt({ token: { sub: "staff-1" } })).toBeNull();
    expect(config.session?.maxAge).toBe(8 * 3600);
  });
});

describe("where Auth.js may redirect", () => {
  const config = authConfig({ secret: "x".repeat(32), maxAgeHours: 8 });
  const redirect = config.callbacks!.redirect! as (params: { url: string; baseUrl: string }) => string;
  const baseUrl = "https://linkdesk.example.com";

  it("to a path on Linkdesk's own origin, the sign-in page included (signing out goes there)", () => {
    expect(redirect({ url: "/links?state=error", baseUrl })).toBe("https://linkdesk.example.com/links?state=error");
    expect(redirect({ url: "/sign-in", baseUrl })).toBe("https://linkdesk.example.com/sign-in");
    expect(redirect({ url: "https://linkdesk.example.com/audit", baseUrl })).toBe("https://linkdesk.example.com/audit");
  });

  it.each(["/\t/evil.example/x", "/%09/evil.example/x", "/\n/x", "//evil.example", "/\\evil.example", "/%5cevil.example", "/%2f%2fevil.example", "https://evil.example/", "https://linkdesk.example.com.evil.example/", "javascript:alert(1)"])(
    "never elsewhere: %j goes to the start page",
    (url) => {
      expect(redirect({ url, baseUrl })).toBe("https://linkdesk.example.com/");
    },
  );
});
