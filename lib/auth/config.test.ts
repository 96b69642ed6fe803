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
