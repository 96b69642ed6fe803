import { readFileSync } from "node:fs";
import path from "node:path";
import { visibleNavItems } from "../components/shell/nav-items";
import { DEMO_ACCOUNTS } from "../lib/auth/demo";
import { ROLES } from "../lib/auth/roles";
import { expect, test } from "./fixtures";
import { plainLinkId, signInAs } from "./session";

test("a visitor without a session is sent to sign in and then back to the page", async ({ page }) => {
  await page.goto("/audit?action=auth.sign_in");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Faudit%3Faction%3Dauth.sign_in$/);
  await expect(page.getByText("Sign in to continue")).toBeVisible();
  await page.getByRole("button", { name: "Use Viewer" }).click();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/audit\?action=auth\.sign_in$/);
});

test("a sign-in sent before the page's script runs is posted, never put in the address, and signs in", async ({
  browser,
  baseURL,
}) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  const viewer = DEMO_ACCOUNTS.find((a) => a.role === "viewer")!;
  await page.goto("/sign-in?callbackUrl=%2Fhealth");
  await page.getByLabel("Email").fill(viewer.email);
  await page.getByLabel("Password").fill(viewer.password);
  const request = page.waitForRequest((r) => r.url().includes("/sign-in"));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  expect((await request).method()).toBe("POST");
  await expect(page).toHaveURL(/\/health$/);
  expect(page.url()).not.toContain(encodeURIComponent(viewer.password));
  await context.close();
});

test("before the page's script runs, controls only it can answer are disabled: no click is lost, no token goes in the address", async ({
  page,
}) => {
  await signInAs(page, "admin");
  const linkId = await plainLinkId();
  /** The server's HTML (streamed parts included) for the buttons named so: each must carry `disabled`. */
  const serverButtons = async (path: string, label: RegExp) => {
    const html = await (await page.request.get(path)).text();
    return [...html.matchAll(/<button\b[^>]*>[\s\S]*?<\/button>/g)]
      .map((m) => m[0])
      .filter((button) => label.test(button))
      .map((button) => button.slice(0, button.indexOf(">") + 1));
  };
  const change = await serverButtons(`/links/${linkId}`, /aria-label="Change category of/);
  expect(change.length).toBeGreaterThan(0);
  for (const tag of change) expect(tag).toMatch(/\sdisabled=""/);
  const exchange = await serverButtons("/exchange", />Exchange token<\/button>$/);
  expect(exchange).toHaveLength(1);
  expect(exchange[0]).toMatch(/\sdisabled=""/);

  // Once the script runs, the same controls work.
  await page.goto(`/links/${linkId}`);
  await expect(page.getByRole("button", { name: /^Change category of/ }).first()).toBeEnabled();
  await page.goto("/exchange");
  await expect(page.getByRole("button", { name: "Exchange token" })).toBeEnabled();
});

test("a wrong password and an unknown email get the same answer", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill("ops@demo.linkdesk.test");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  const form = page.locator("form").first();
  await expect(form.getByRole("alert")).toHaveText("Wrong email or password.");
  await page.getByLabel("Email").fill("nobody@example.com");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(form.getByRole("alert")).toHaveText("Wrong email or password.");
  await expect(page.getByLabel("Email")).toHaveValue("nobody@example.com");
});

for (const role of ROLES) {
  test(`${role} sees exactly the navigation and buttons the role may use`, async ({ page }) => {
    await signInAs(page, role);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("listitem")).toHaveText(visibleNavItems(role).map((i) => i.label));
    await expect(page.getByTestId("signed-in-as")).toContainText(role, { ignoreCase: true });

    await page.goto("/exchange");
    const mayExchange = role === "ops" || role === "admin";
    await expect(page.getByRole("button", { name: "Exchange token" })).toHaveCount(mayExchange ? 1 : 0);
    if (!mayExchange) await expect(page.getByText("Not available for your role")).toBeVisible();

    await page.goto(`/links/${await plainLinkId()}`);
    await expect(page.getByTestId("transaction-row").first()).toBeVisible();
    const change = page.getByRole("button", { name: /^Change category of/ });
    if (role === "viewer") await expect(change).toHaveCount(0);
    else await expect(change.first()).toBeVisible();

    await page.goto("/admin/staff");
    await expect(page.getByRole("button", { name: "Add staff" })).toHaveCount(role === "admin" ? 1 : 0);
  });
}

test("signing out ends the session on the server, even if the old cookie comes back", async ({ page, context }) => {
  await signInAs(page, "support");
  const before = await context.cookies();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await page.goto("/links");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Flinks/);

  // A response in flight (or a copied cookie) re-setting the old session must not sign the person back in.
  await context.clearCookies();
  await context.addCookies(before);
  await page.goto("/audit");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Faudit/);
});

test("a tampered session cookie counts as signed out", async ({ page, context, browser, baseURL }) => {
  await signInAs(page, "admin");
  const session = (await context.cookies()).find((c) => c.name.includes("session-token"));
  expect(session, "Auth.js sets a session cookie").toBeTruthy();
  // Flip characters in the middle of the encrypted token.
  const value = session!.value;
  const middle = Math.floor(value.length / 2);
  const tampered = `${value.slice(0, middle)}${value[middle] === "x" ? "y" : "x"}${value[middle + 1] === "x" ? "y" : "x"}${value.slice(middle + 2)}`;
  expect(tampered).not.toBe(value);
  // A fresh browser holding only the tampered cookie: no response still in flight for the signed-in page can put the
  // valid cookie back, so the outcome depends on the server alone.
  const stranger = await browser.newContext({ baseURL });
  try {
    await stranger.addCookies([{ ...session!, value: tampered }]);
    const strangerPage = await stranger.newPage();
    await strangerPage.goto("/audit");
    await expect(strangerPage).toHaveURL(/\/sign-in/);
    expect((await stranger.cookies()).some((c) => c.value === value)).toBe(false);
  } finally {
    await stranger.close();
  }
});

function actionId(name: string): string {
  const manifest = JSON.parse(
    readFileSync(path.join(import.meta.dirname, "..", ".next", "server", "server-reference-manifest.json"), "utf8"),
  ) as {
    node: Record<string, { exportedName?: string; filename?: string }>;
  };
  const entry = Object.entries(manifest.node).find(([, v]) => v.exportedName === name);
  if (!entry) throw new Error(`server action ${name} is not in the build`);
  return entry[0];
}

test("a viewer's direct POST to the correction action is refused and audited", async ({ page, baseURL }) => {
  await signInAs(page, "viewer");
  const linkId = await plainLinkId();
  // What a crafted request looks like: the action id from the JS bundle, the viewer's own cookies.
  const response = await page.request.post(`/links/${linkId}`, {
    headers: {
      "Next-Action": actionId("correctCategory"),
      "Content-Type": "text/plain;charset=UTF-8",
      Origin: baseURL!,
    },
    data: JSON.stringify([{ linkId, transactionId: "any", category: "banking", subcategory: "atm_fees" }]),
  });
  const body = await response.text();
  expect(body).toContain("Your role (Viewer) may not correct transaction categories.");

  await page.goto("/audit?action=transaction.correct&outcome=refused");
  await expect(page.getByRole("row").filter({ hasText: "viewer@demo.linkdesk.test" }).first()).toBeVisible();
});

test("support corrects a category through the category control, sees it audited, and undoes it", async ({ page }) => {
  await signInAs(page, "support");
  const linkId = await plainLinkId();
  await page.goto(`/links/${linkId}`);
  const row = page.getByTestId("transaction-row").first();
  await row.getByRole("button", { name: /^Change category of/ }).click();
  const combobox = row.getByRole("combobox");
  await combobox.fill("Charity");
  await page.keyboard.press("Enter");
  // Only that category's subcategories, and no "keep or default" choice.
  await expect(row.getByRole("option")).toHaveText(["Charity", "Other charity"]);
  await combobox.fill("Other");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("desk-announcement")).toContainText("is now Charity › Other charity");
  await expect(row.getByTestId("transaction-category")).toContainText("Other charity");

  await row.getByRole("button", { name: /^Undo the correction of/ }).click();
  await expect(page.getByTestId("desk-announcement")).toContainText("Undone");

  await page.goto("/audit?action=transaction.correct");
  await expect(page.getByRole("row").filter({ hasText: "support@demo.linkdesk.test" }).first()).toContainText("Done");
  await page.goto("/audit?action=transaction.undo_correction");
  await expect(page.getByRole("row").filter({ hasText: "support@demo.linkdesk.test" }).first()).toContainText("Done");
});

test("support undoes a correction from the audit page; a second undo says it changed since", async ({ page }) => {
  await signInAs(page, "support");
  const linkId = await plainLinkId();
  await page.goto(`/links/${linkId}`);
  const row = page.getByTestId("transaction-row").nth(2);
  await row.getByRole("button", { name: /^Change category of/ }).click();
  await row.getByRole("combobox").fill("Education");
  await page.keyboard.press("Enter");
  await row.getByRole("combobox").fill("Driving lessons");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("desk-announcement")).toContainText("is now Education › Driving lessons");
  const id = await row.getAttribute("data-row-id");

  await page.goto(`/audit?action=transaction.correct&link=${linkId}`);
  const entry = page.getByRole("row").filter({ hasText: id! }).first();
  await entry.getByRole("button", { name: `Undo the correction of transaction ${id}` }).click();
  // The row's copy buttons announce through status regions of their own: the undo's is the one with words.
  await expect(entry.getByRole("status").filter({ hasText: "Put back" })).toBeVisible();
  await page.reload();
  await page
    .getByRole("row")
    .filter({ hasText: id! })
    .first()
    .getByRole("button", { name: `Undo the correction of transaction ${id}` })
    .click();
  await expect(page.getByRole("row").filter({ hasText: id! }).first().getByRole("alert")).toContainText(
    "Changed since: it is now",
  );
});

test("ops exchanges a sandbox token and gets the new link", async ({ page }) => {
  await signInAs(page, "ops");
  await page.goto("/exchange");
  await page.getByRole("button", { name: "Get a sandbox token" }).click();
  await expect(page.getByLabel("Exchangeable token")).toHaveValue(/^[0-9a-f-]{36}$/);
  const token = await page.getByLabel("Exchangeable token").inputValue();
  await page.getByRole("button", { name: "Exchange token" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Link created" })).toBeVisible();
  await expect(page.getByTestId("exchanged-link-id")).toHaveText(/^mk_/);

  // The same token again: the upstream refuses, and the page says why in words.
  await page.getByLabel("Exchangeable token").fill(token);
  await page.getByRole("button", { name: "Exchange token" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("The token cannot be exchanged");
});
