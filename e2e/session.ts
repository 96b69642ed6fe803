import { type Page, expect } from "@playwright/test";
import { DEMO_ACCOUNTS } from "../lib/auth/demo";
import type { Role } from "../lib/auth/roles";

/** Signs in through the sign-in page as the demo account of a role, as staff would. */
export async function signInAs(page: Page, role: Role, opts: { baseURL?: string; from?: string } = {}) {
  const account = DEMO_ACCOUNTS.find((a) => a.role === role);
  if (!account) throw new Error(`no demo account for ${role}`);
  await page.goto(`${opts.baseURL ?? ""}${opts.from ?? "/sign-in"}`);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).not.toHaveURL(/\/sign-in/);
  return account;
}

/** A seeded sandbox link with enriched transactions and the transactions product. */
export async function plainLinkId(): Promise<string> {
  const response = await fetch(`${process.env.E2E_SANDBOX_URL}/_sandbox/fixtures`);
  const fixtures = (await response.json()) as Record<string, string[]>;
  const id = fixtures.plain?.[0];
  if (!id) throw new Error("the sandbox offers no plain link fixture");
  return id;
}
