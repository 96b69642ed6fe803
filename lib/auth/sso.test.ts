import { describe, expect, it } from "vitest";
import { decideSso } from "./sso";

const rule = { allowedDomains: ["example.com"], defaultRole: "viewer" as const };

describe("single sign-on rule", () => {
  it("admits verified users of an allowed domain with the default role", () => {
    expect(decideSso(rule, { email: "Ana@Example.com", email_verified: true })).toEqual({
      admit: true,
      email: "ana@example.com",
      role: "viewer",
    });
  });

  it("refuses other domains, unverified or missing emails", () => {
    expect(decideSso(rule, { email: "eve@example.org" })).toMatchObject({
      admit: false,
      reason: "Accounts of example.org may not use Linkdesk.",
    });
    expect(decideSso(rule, { email: "ana@example.com", email_verified: false }).admit).toBe(false);
    expect(decideSso(rule, { email: null }).admit).toBe(false);
    expect(decideSso({ ...rule, allowedDomains: [] }, { email: "ana@example.com" }).admit).toBe(false);
  });

  it("does not admit look-alike domains", () => {
    expect(decideSso(rule, { email: "mallory@evil-example.com" }).admit).toBe(false);
    expect(decideSso(rule, { email: "mallory@example.com.evil.io" }).admit).toBe(false);
  });
});
