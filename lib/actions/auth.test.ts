import { beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_REDIRECT_TARGET_LENGTH } from "../http/redirect-target";
import { redirectedTo } from "../testing/redirects";

// The sign-in actions, called as the form (or a direct POST) calls them: wherever the form says to go afterwards,
// the person lands on a path of Linkdesk's own, or on the start page.

const signIns: { provider: string; options: Record<string, unknown> }[] = [];

vi.mock("next-auth", () => ({}));
vi.mock("../auth", () => ({
  sessionAccount: async () => null,
  clientAddress: () => "203.0.113.5",
  ssoProvider: () => ({ id: "oidc", name: "Company account" }),
  signIn: async (provider: string, options: Record<string, unknown>) => {
    signIns.push({ provider, options });
  },
  signOut: async () => undefined,
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));

const { signInAction, signInWithSso } = await import("./auth");

function signInForm(callbackUrl?: string): FormData {
  const form = new FormData();
  form.set("email", "kim@example.com");
  form.set("password", "a long enough password");
  if (callbackUrl !== undefined) form.set("callbackUrl", callbackUrl);
  return form;
}

const HOSTILE = [
  "/\t/evil.example/x",
  "/%09/evil.example/x",
  "/\n/evil.example/x",
  "//evil.example/x",
  "/\\evil.example",
  "/%5cevil.example",
  "/%2f%2fevil.example",
  "https://evil.example/x",
  "javascript:alert(1)",
  " /links",
];

beforeEach(() => {
  signIns.length = 0;
});

describe("signInAction", () => {
  it("goes on to the page the person came from", async () => {
    expect(await redirectedTo(() => signInAction(undefined, signInForm("/links?state=error")))).toBe(
      "/links?state=error",
    );
    expect(await redirectedTo(() => signInAction(undefined, signInForm()))).toBe("/");
  });

  it.each(HOSTILE)("goes to the start page instead of %j", async (callbackUrl) => {
    expect(await redirectedTo(() => signInAction(undefined, signInForm(callbackUrl)))).toBe("/");
    expect(signIns).toHaveLength(1);
  });

  it("signs in all the same with an overlong target, and goes to the start page", async () => {
    const overlong = `/${"a".repeat(MAX_REDIRECT_TARGET_LENGTH + 1)}`;
    expect(await redirectedTo(() => signInAction(undefined, signInForm(overlong)))).toBe("/");
    expect(signIns).toHaveLength(1);
  });
});

describe("signInWithSso", () => {
  it("hands Auth.js a path of Linkdesk's own, or the start page", async () => {
    await signInWithSso("/audit?action=auth.sign_in");
    for (const target of [...HOSTILE, 42, undefined]) await signInWithSso(target);
    expect(signIns.map((s) => s.options.redirectTo)).toEqual([
      "/audit?action=auth.sign_in",
      ...Array(HOSTILE.length + 2).fill("/"),
    ]);
  });
});
