import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

/** An admin adds an account on the Staff page; returns the one-time password it shows. */
async function addStaffMember(
  page: Page,
  email: string,
  name: string,
  role: string,
): Promise<{ password: string; row: Locator }> {
  await page.goto("/admin/staff");
  const form = page.getByRole("form", { name: "Add staff" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Role").selectOption(role);
  await form.getByRole("button", { name: "Add staff" }).click();
  const password = (await page.getByTestId("one-time-password").textContent())?.trim() ?? "";
  expect(password.length).toBeGreaterThanOrEqual(16);
  return { password, row: page.getByRole("row", { name: new RegExp(email.replace(/\./g, "\\.")) }) };
}

async function signInWith(page: Page, email: string, password: string) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

async function choosePassword(page: Page, current: string, chosen: string, submit: string) {
  const form = page.getByRole("form", { name: "Change password" });
  await form.getByLabel("Current password").fill(current);
  await form.getByLabel("New password", { exact: true }).fill(chosen);
  await form.getByLabel("New password again").fill(chosen);
  await form.getByRole("button", { name: submit }).click();
}

test("an admin adds a staff member whose one-time password serves only to choose their own, then disables them", async ({
  page,
  browser,
  baseURL,
  signIn,
}) => {
  await signIn(page, "admin");
  const email = `casey.${Date.now()}@example.com`;
  const { password, row } = await addStaffMember(page, email, "Casey Support", "support");
  await expect(row).toContainText("Support");

  // The new person, in a browser of their own: signed in, but nothing is theirs until they choose a password.
  const other = await browser.newContext({ baseURL });
  const theirPage = await other.newPage();
  await signInWith(theirPage, email, password);
  await expect(theirPage).toHaveURL(/\/change-password/);
  await expect(theirPage.getByRole("heading", { name: "Choose your own password" })).toBeVisible();
  await theirPage.goto(`/links`);
  await expect(theirPage).toHaveURL(/\/change-password\?callbackUrl=%2Flinks/);
  // A script with their session is refused too.
  expect((await theirPage.request.get("/api/links/mk_any")).status()).toBe(401);

  // The sign-in rules hold, then their own password lets them in, back where they were going.
  await choosePassword(theirPage, password, "too-short", "Save and continue");
  await expect(theirPage.getByRole("form", { name: "Change password" })).toContainText(
    "Choose a password of at least 12 characters",
  );
  const chosen = `casey's own ${Date.now()}`;
  await choosePassword(theirPage, password, chosen, "Save and continue");
  await expect(theirPage).toHaveURL(/\/links$/);
  await expect(theirPage.getByTestId("signed-in-as")).toContainText("Casey Support");
  await expect(theirPage.getByRole("heading", { level: 1, name: "Links" })).toBeVisible();

  // The one-time password is spent; their own works.
  const third = await browser.newContext({ baseURL });
  const thirdPage = await third.newPage();
  await signInWith(thirdPage, email, password);
  await expect(thirdPage.locator("form").first().getByRole("alert")).toHaveText("Wrong email or password.");
  await signInWith(thirdPage, email, chosen);
  await expect(thirdPage.getByTestId("signed-in-as")).toContainText("Casey Support");
  await third.close();

  // Disabled: their very next request finds them signed out, and signing in again fails.
  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row).toContainText("Disabled");
  await theirPage.goto("/links");
  await expect(theirPage).toHaveURL(/\/sign-in/);
  await signInWith(theirPage, email, chosen);
  await expect(theirPage.locator("form").first().getByRole("alert")).toHaveText("Wrong email or password.");
  await other.close();

  await page.goto("/audit?action=auth.change_password&outcome=ok");
  await expect(page.getByRole("table")).toContainText(email);
  await page.goto("/audit?action=staff.add&outcome=ok");
  await expect(page.getByRole("row").filter({ hasText: "Staff added" }).first()).toContainText(
    "admin@demo.linkdesk.test",
  );
  await expect(page.getByRole("table")).toContainText(email);
});

test("a signed-in person changes their own password from the user menu", async ({ page, browser, baseURL, signIn }) => {
  await signIn(page, "admin");
  const email = `dana.${Date.now()}@example.com`;
  const { password } = await addStaffMember(page, email, "Dana Ops", "ops");
  const theirs = await browser.newContext({ baseURL });
  const theirPage = await theirs.newPage();
  await signInWith(theirPage, email, password);
  const first = `dana first ${Date.now()}`;
  await choosePassword(theirPage, password, first, "Save and continue");
  // Home is the links list (a redirect after the page changed: it may take a while on a busy machine).
  await expect(theirPage).toHaveURL(/\/links$/, { timeout: 30_000 });
  await expect(theirPage.getByTestId("signed-in-as")).toContainText("Dana Ops");

  await theirPage.getByRole("button", { name: /Dana Ops/ }).click();
  await theirPage.getByRole("link", { name: "Change password" }).click();
  await expect(theirPage.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
  await choosePassword(theirPage, "not my password", `dana second ${Date.now()}`, "Change password");
  await expect(theirPage.getByRole("form", { name: "Change password" }).getByRole("alert")).toHaveText(
    "That is not your current password. Nothing was changed.",
  );
  const second = `dana second ${Date.now()}`;
  await choosePassword(theirPage, first, second, "Change password");
  await expect(theirPage.getByRole("status").filter({ hasText: "Password changed" })).toBeVisible();
  // Still signed in here; the new password is the one that works from now on.
  await theirPage.goto("/health");
  await expect(theirPage.getByTestId("signed-in-as")).toContainText("Dana Ops");
  await theirPage.getByRole("button", { name: "Sign out" }).click();
  await signInWith(theirPage, email, first);
  await expect(theirPage.locator("form").first().getByRole("alert")).toHaveText("Wrong email or password.");
  await signInWith(theirPage, email, second);
  await expect(theirPage.getByTestId("signed-in-as")).toContainText("Dana Ops");
  await theirs.close();
});

test("a bad email on the Staff form is explained and the input kept", async ({ page, signIn }) => {
  await signIn(page, "admin");
  await page.goto("/admin/staff");
  const form = page.getByRole("form", { name: "Add staff" });
  await form.getByLabel("Email").fill("not-an-email");
  await form.getByRole("button", { name: "Add staff" }).click();
  await expect(form).toContainText("Enter an email address");
  await expect(form.getByLabel("Email")).toHaveValue("not-an-email");
});
