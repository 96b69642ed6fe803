import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionAccount } from "@/lib/auth";
import { findElement, redirectedTo } from "@/lib/testing/redirects";

// The sign-in page, rendered as Next.js renders it for `GET /sign-in?callbackUrl=…`: a signed-in person is sent on at
// once, so the target is a Location header; anyone else gets the form, which carries the target along.

let account: SessionAccount | null = null;

vi.mock("@/lib/auth", () => ({ sessionAccount: async () => account, ssoProvider: () => null }));
vi.mock("@/lib/actions/auth", () => ({ signInWithSso: async () => undefined }));
vi.mock("@/lib/env", () => ({ getEnv: () => ({ UPSTREAM_SANDBOX: false }) }));
vi.mock("@/components/auth/sign-in-form", () => ({ SignInForm: () => null }));

const { default: SignInPage } = await import("./page");
const { SignInForm } = await import("@/components/auth/sign-in-form");

const signedIn: SessionAccount = {
  id: "s-1",
  email: "kim@example.com",
  name: null,
  role: "support",
  authSource: "password",
  passwordChangeRequired: false,
};

// What the outside test sent, as Next.js hands the query to the page (decoded once).
const HOSTILE = [
  "/\t/evil.example/x",
  "/\n/evil.example/x",
  "/\r\n/evil.example/x",
  "//evil.example/x",
  "/\\evil.example",
  "/%5cevil.example",
  "/%2f%2fevil.example",
  "https://evil.example/x",
  "javascript:alert(1)",
  "/ /evil.example",
];

async function render(callbackUrl: string | string[] | undefined) {
  return SignInPage({ searchParams: Promise.resolve({ callbackUrl } as { callbackUrl?: string }) });
}

beforeEach(() => {
  account = null;
});

describe("the sign-in page, signed in", () => {
  beforeEach(() => {
    account = signedIn;
  });

  it("sends the person on to the page they asked for", async () => {
    expect(await redirectedTo(() => render("/links?state=error"))).toBe("/links?state=error");
    expect(await redirectedTo(() => render(undefined))).toBe("/");
  });

  it.each(HOSTILE)("sends the person to the start page, not to %j", async (callbackUrl) => {
    const location = await redirectedTo(() => render(callbackUrl));
    expect(location).toBe("/");
  });

  it("sends the person to the start page when the target is given twice (Next.js hands the page an array)", async () => {
    expect(await redirectedTo(() => render(["/links", "//evil.example"]))).toBe("/");
  });

  it("passes only a checked target on to the password page", async () => {
    account = { ...signedIn, passwordChangeRequired: true };
    expect(await redirectedTo(() => render("/\t/evil.example/x"))).toBe("/change-password?callbackUrl=%2F");
    expect(await redirectedTo(() => render("/audit"))).toBe("/change-password?callbackUrl=%2Faudit");
  });
});

describe("the sign-in page, signed out", () => {
  it.each(HOSTILE)("gives the form the start page as its target, not %j", async (callbackUrl) => {
    const form = findElement(await render(callbackUrl), SignInForm);
    expect(form?.props.callbackUrl).toBe("/");
  });

  it("gives the form the page the person came from", async () => {
    const form = findElement(await render("/links?state=error"), SignInForm);
    expect(form?.props.callbackUrl).toBe("/links?state=error");
  });
});
