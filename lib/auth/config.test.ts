import { Auth } from "@auth/core";
import { encode } from "@auth/core/jwt";
import { describe, expect, it } from "vitest";
import { authConfig } from "./config";

type JwtCallback = (params: { token: Record<string, unknown>; user?: { id: string } }) => unknown;
const jwtOf = (config: ReturnType<typeof authConfig>) => config.callbacks!.jwt! as JwtCallback;

describe("session lifetime", () => {
  const config = authConfig({ secret: "x".repeat(32), maxAgeHours: 8, demoMode: false });
  const jwt = jwtOf(config);

  it("stamps the sign-in time and keeps the session within the working day", () => {
    const token = jwt({ token: {}, user: { id: "staff-1" } }) as Record<string, unknown>;
    expect(token.sub).toBe("staff-1");
    expect(typeof token.signedInAt).toBe("number");
    expect(jwt({ token: { sub: "staff-1", signedInAt: Date.now() - 7 * 3600_000, issuer: "live" } })).toMatchObject({
      sub: "staff-1",
    });
  });

  it("ends the session 8 hours after sign-in whatever the activity", () => {
    expect(jwt({ token: { sub: "staff-1", signedInAt: Date.now() - 8 * 3600_000 - 1000, issuer: "live" } })).toBeNull();
    expect(jwt({ token: { sub: "staff-1" } })).toBeNull();
    expect(config.session?.maxAge).toBe(8 * 3600);
  });
});

describe("sessions carry the mode of the instance that issued them", () => {
  // A demo and a live instance configured with the same AUTH_SECRET: each can read the other's cookies.
  const secret = "shared-secret-0123456789abcdef0123456789";
  const demo = authConfig({ secret, maxAgeHours: 8, demoMode: true });
  const live = authConfig({ secret, maxAgeHours: 8, demoMode: false });

  it("refuses a demo-issued token on a live instance, and a live one on a demo", () => {
    const fromDemo = jwtOf(demo)({ token: {}, user: { id: "demo-admin" } }) as Record<string, unknown>;
    expect(fromDemo.issuer).toBe("demo");
    expect(jwtOf(demo)({ token: { ...fromDemo } })).toMatchObject({ sub: "demo-admin" });
    expect(jwtOf(live)({ token: { ...fromDemo } })).toBeNull();
    const fromLive = jwtOf(live)({ token: {}, user: { id: "ops-1" } }) as Record<string, unknown>;
    expect(jwtOf(demo)({ token: { ...fromLive } })).toBeNull();
  });

  it("refuses a token that names no issuer (issued before the claim existed)", () => {
    expect(jwtOf(live)({ token: { sub: "staff-1", signedInAt: Date.now() } })).toBeNull();
  });

  it("gives no session on a live instance for a demo admin's sealed cookie", async () => {
    const cookieName = "authjs.session-token";
    const token = jwtOf(demo)({ token: {}, user: { id: "demo-admin" } }) as Record<string, unknown>;
    const cookie = await encode({ token, secret, salt: cookieName });
    const sessionOn = async (config: ReturnType<typeof authConfig>) => {
      const request = new Request("http://linkdesk.test/api/auth/session", {
        headers: { cookie: `${cookieName}=${cookie}` },
      });
      const response = await Auth(request, { ...config, basePath: "/api/auth" } as Parameters<typeof Auth>[1]);
      return (await response.json()) as { user?: { id?: string } } | null;
    };
    expect((await sessionOn(demo))?.user?.id).toBe("demo-admin");
    expect(await sessionOn(live)).toBeNull();
  });
});

describe("where Auth.js may redirect", () => {
  const config = authConfig({ secret: "x".repeat(32), maxAgeHours: 8, demoMode: false });
  const redirect = config.callbacks!.redirect! as (params: { url: string; baseUrl: string }) => string;
  const baseUrl = "https://linkdesk.example.com";

  it("to a path on Linkdesk's own origin, the sign-in page included (signing out goes there)", () => {
    expect(redirect({ url: "/links?state=error", baseUrl })).toBe("https://linkdesk.example.com/links?state=error");
    expect(redirect({ url: "/sign-in", baseUrl })).toBe("https://linkdesk.example.com/sign-in");
    expect(redirect({ url: "https://linkdesk.example.com/audit", baseUrl })).toBe("https://linkdesk.example.com/audit");
  });

  it.each([
    "/\t/evil.example/x",
    "/%09/evil.example/x",
    "/\n/x",
    "//evil.example",
    "/\\evil.example",
    "/%5cevil.example",
    "/%2f%2fevil.example",
    "https://evil.example/",
    "https://linkdesk.example.com.evil.example/",
    "javascript:alert(1)",
  ])("never elsewhere: %j goes to the start page", (url) => {
    expect(redirect({ url, baseUrl })).toBe("https://linkdesk.example.com/");
  });
});
