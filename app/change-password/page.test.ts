import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionAccount } from "@/lib/auth";
import { findElement, redirectedTo } from "@/lib/testing/redirects";

// The password page, rendered as Next.js renders it for `GET /change-password?callbackUrl=…`: a person who has
// nothing to change is sent on at once; one who must choose a password gets the form, which goes on afterwards.

let account: SessionAccount | null = null;

vi.mock("@/lib/auth", () => ({ sessionAccount: async () => account }));
vi.mock("@/lib/actions/auth", () => ({ signOutAction: async () => undefined }));
vi.mock("@/components/account/change-password-form", () => ({ ChangePasswordForm: () => null }));

const { default: ChangePasswordPage } = await import("./page");
const { ChangePasswordForm } = await import("@/components/account/change-password-form");

const person: SessionAccount = {
  id: "s-1",
  email: "kim@example.com",
  name: null,
  role: "support",
  authSource: "password",
  passwordChangeRequired: false,
};

const HOSTILE = [
  "/\t/evil.example/x",
  "/\n/evil.example/x",
  "//evil.example/x",
  "/\\evil.example",
  "/%5cevil.example",
  "/%2f%2fevil.example",
  "https://evil.example/x",
  "javascript:alert(1)",
];

const render = (callbackUrl: string | undefined) =>
  ChangePasswordPage({ searchParams: Promise.resolve({ callbackUrl }) });

describe("the password page", () => {
  beforeEach(() => {
    account = person;
  });

  it("sends a person with nothing to change on to their page", async () => {
    expect(await redirectedTo(() => render("/links"))).toBe("/links");
  });

  it.each(HOSTILE)("sends a person with nothing to change to the start page, not to %j", async (callbackUrl) => {
    expect(await redirectedTo(() => render(callbackUrl))).toBe("/");
  });

  it.each(HOSTILE)(
    "has the form go on to the start page once the password is chosen, not to %j",
    async (callbackUrl) => {
      account = { ...person, passwordChangeRequired: true };
      expect(findElement(await render(callbackUrl), ChangePasswordForm)?.props.next).toBe("/");
    },
  );

  it("has the form go on to the page the person came from", async () => {
    account = { ...person, passwordChangeRequired: true };
    expect(findElement(await render("/audit?action=auth.sign_in"), ChangePasswordForm)?.props.next).toBe(
      "/audit?action=auth.sign_in",
    );
  });
});
