import { describe, expect, it } from "vitest";
import { sessionStands } from "./session";

const live = { demoMode: false };
const demo = { demoMode: true };
const at = Date.parse("2026-11-20T10:00:00Z");
const account = { email: "ana@example.com", role: "ops", disabledAt: null, sessionsValidAfter: null };

describe("whether a session stands", () => {
  it("for an enabled account with no cutoff", () => {
    expect(sessionStands(account, at, live)).toBe(true);
  });

  it("not for a disabled account or an unknown role", () => {
    expect(sessionStands({ ...account, disabledAt: new Date(at + 1000) }, at, live)).toBe(false);
    expect(sessionStands({ ...account, role: "owner" }, at, live)).toBe(false);
  });

  it("not when it began at or before the account's cutoff", () => {
    expect(sessionStands({ ...account, sessionsValidAfter: new Date(at) }, at, live)).toBe(false);
    expect(sessionStands({ ...account, sessionsValidAfter: new Date(at) }, undefined, live)).toBe(false);
    expect(sessionStands({ ...account, sessionsValidAfter: new Date(at - 1) }, at, live)).toBe(true);
  });

  it("for a demo account only on a demo instance, whatever the cookie says", () => {
    const demoAdmin = { ...account, email: "admin@demo.linkdesk.test", role: "admin" };
    expect(sessionStands(demoAdmin, at, demo)).toBe(true);
    expect(sessionStands(demoAdmin, at, live)).toBe(false);
  });
});
