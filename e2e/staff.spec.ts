import { expect, test } from "@playwright/test";
import { signInAs } from "./session";

test("an admin adds a staff member who signs in with the one-time password, then disables them", async ({ page, browser, baseURL }) => {
  await signInAs(page, "admin");
  await page.goto("/admin/staff");
  const email = `casey.${Date.now()}@example.com`;
  const form = page.getByRole("form", { name: "Add staff" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill("Casey Support");
  await form.getByLabel("Role").selectOption("support");
  await form.getByRole("button", { name: "Add staff" }).click();
  const password = (await page.getByTestId("one-time-password").textContent())?.trim() ?? "";
  expect(password.length).toBeGreaterThanOrEqual(16);
  const row = page.getByRole("row", { name: new RegExp(email.replace(/\./g, "\\.")) });
  await expect(row).toContainText("Support");

  // The new person, in a browser of their own.
  const other = await browser.newContext({ baseURL });
  const theirPage = await other.newPage();
  await theirPage.goto("/sign-in");
  await theirPage.getByLabel("Email").fill(email);
  await theirPage.getByLabel("Password").fill(password);
  await theirPage.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(theirPage.getByTestId("signed-in-as")).toContainText("Casey Support");

  // Disabled: their very next request finds them signed out, and signing in again fails.
  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row).toContainText("Disabled");
  await theirPage.goto("/links");
  await expect(theirPage).toHaveURL(/\/sign-in/);
  await theirPage.getByLabel("Email").fill(email);
  await theirPage.getByLabel("Password").fill(password);
  await theirPage.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(theirPage.locator("form").first().getByRole("alert")).toHaveText("Wrong email or password.");
  await other.close();

  await page.goto("/audit?action=staff.add&outcome=ok");
  await expect(page.getByRole("row").filter({ hasText: "Staff added" }).first()).toContainText("admin@demo.linkdesk.test");
  await expect(page.getByRole("table")).toContainText(email);
});

test("a bad email on the Staff form is explained and the input kept", async ({ page }) => {
  await signInAs(page, "admin");
  await page.goto("/admin/staff");
  const form = page.getByRole("form", { name: "Add staff" });
  await form.getByLabel("Email").fill("not-an-email");
  await form.getByRole("button", { name: "Add staff" }).click();
  await expect(form).toContainText("Enter an email address");
  await expect(form.getByLabel("Email")).toHaveValue("not-an-email");
});
