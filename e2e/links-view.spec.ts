import type { BrowserContext, Page } from "@playwright/test";
import { LINK_ERROR_INFO } from "../lib/links/error-codes";
import { expect, test } from "./fixtures";

// The links list as managers scan it: what a chip means on hover or focus, the whole id one click away, their own
// columns and row height kept for them, and a name's initials wherever a logo cannot load. One viewer signs in once;
// every test goes on in that page.

test.describe.configure({ mode: "serial", timeout: 120_000 });

let context: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser, signIn, linksSynced }) => {
  void linksSynced;
  test.setTimeout(180_000);
  context = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
  page = await context.newPage();
  await signIn(page, "viewer");
  await expect(async () => {
    await page.goto("/links?state=error");
    await expect(page.getByTestId("error-code-chip").first()).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 120_000 });
});

test.afterAll(() => context.close());

test.beforeEach(async () => {
  await page.goto("/links?state=error");
});

test("an error code's chip explains itself on hover and on keyboard focus, and Escape closes it", async () => {
  const chip = page.getByTestId("error-code-chip").first();
  const label = (await chip.innerText()).trim();
  const info = Object.values(LINK_ERROR_INFO).find((i) => i.label === label);
  expect(info, `a known code's label: ${label}`).toBeTruthy();
  const tip = page.getByRole("tooltip").filter({ hasText: info!.remedy });

  await chip.hover();
  await expect(tip).toBeVisible();
  await expect(tip).toContainText(info!.meaning);
  await page.mouse.move(0, 0);
  await expect(tip).toBeHidden();

  await chip.focus();
  await expect(tip).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(tip).toBeHidden();

  // The products' marks say each product's status in words.
  const products = page.getByRole("button", { name: /^Products: / }).first();
  await products.hover();
  await expect(
    page
      .getByRole("tooltip")
      .filter({ hasText: /refreshed|failing|unavailable|not refreshed yet/ })
      .first(),
  ).toBeVisible();
});

test("the copy button puts the whole link id on the clipboard", async () => {
  const link = page.getByRole("table").getByRole("link", { name: /^mk_/ }).first();
  const id = (await link.getAttribute("href"))!.replace("/links/", "");
  await expect(link).toHaveAccessibleName(id);
  await page.getByRole("button", { name: `Copy link id ${id}` }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);
  await expect(page.getByRole("button", { name: `Copied link id ${id}` })).toBeVisible();
});

test("a person's columns and row height are kept for them, and only for them", async ({ browser, signIn }) => {
  const table = page.getByRole("table", { name: "Links" });
  await expect(table.getByRole("columnheader", { name: /Provider/ })).toBeVisible();
  await page.getByRole("button", { name: /Columns and rows/ }).click();
  await page.getByRole("checkbox", { name: "Provider" }).uncheck();
  await page.getByRole("radio", { name: "Compact" }).check();
  await expect(page.getByText("View saved")).toBeVisible();
  await expect(table.getByRole("columnheader", { name: /Provider/ })).toHaveCount(0);
  await expect(table).toHaveAttribute("data-density", "compact");
  // Escape closes the panel and gives the focus back to its button; a press outside closes it too.
  const viewButton = page.getByRole("button", { name: /Columns and rows/ });
  await page.keyboard.press("Escape");
  await expect(page.getByRole("checkbox", { name: "Provider" })).toHaveCount(0);
  await expect(viewButton).toBeFocused();
  await viewButton.click();
  await expect(page.getByRole("checkbox", { name: "Provider" })).toBeVisible();
  await page.getByRole("heading", { level: 1 }).click();
  await expect(page.getByRole("checkbox", { name: "Provider" })).toHaveCount(0);

  await page.reload();
  await expect(page.getByRole("table", { name: "Links" }).getByRole("columnheader", { name: /Provider/ })).toHaveCount(
    0,
  );
  await expect(page.getByRole("table", { name: "Links" })).toHaveAttribute("data-density", "compact");

  const other = await browser.newPage();
  await signIn(other, "support", { from: "/links" });
  await other.goto("/links");
  await expect(
    other.getByRole("table", { name: "Links" }).getByRole("columnheader", { name: /Provider/ }),
  ).toBeVisible();
  await expect(other.getByRole("table", { name: "Links" })).toHaveAttribute("data-density", "comfortable");
  await other.close();

  // Back to the default for the next run of the suite.
  await page.getByRole("button", { name: /Columns and rows/ }).click();
  await page.getByRole("button", { name: "Reset" }).click();
  await expect(page.getByText("View saved")).toBeVisible();
  await expect(
    page.getByRole("table", { name: "Links" }).getByRole("columnheader", { name: /Provider/ }),
  ).toBeVisible();
});

test("logos that cannot load give way to initials, with no broken image left", async () => {
  await page.route("**/_sandbox/logos/**", (route) => route.abort("namenotresolved"));
  await page.goto("/links");
  await expect(page.getByTestId("avatar-placeholder").first()).toBeVisible();
  await expect
    .poll(() =>
      page.evaluate(() => [...document.images].filter((img) => img.complete && img.naturalWidth === 0).length),
    )
    .toBe(0);
  const link = (await page.getByRole("table").getByRole("link", { name: /^mk_/ }).first().getAttribute("href"))!;
  await page.goto(link);
  await expect(page.getByTestId("avatar-placeholder").first()).toBeVisible();
  await page.unroute("**/_sandbox/logos/**");
});

test("the sandbox's own logos show in the list", async () => {
  await page.goto("/links");
  const logo = page.getByRole("table").locator('img[src*="/_sandbox/logos/institutions/"]').first();
  await expect(logo).toBeVisible();
  expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
});

test("the Health charts read out each snapshot by keyboard, and a legend entry hides its series", async () => {
  await page.goto("/health?days=90");
  const chart = page.getByRole("group", { name: /^Links by state: \d+ snapshots/ });
  await expect(chart).toBeVisible();
  await chart.focus();
  await expect(page.getByTestId("chart-tooltip")).toBeVisible();
  await page.keyboard.press("Home");
  await expect(page.getByTestId("chart-tooltip")).toContainText("Demo history");
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: /Connected [\d,]+/ })
      .first(),
  ).toBeAttached();

  const figure = page.getByRole("figure", { name: "Links by state" });
  const areas = figure.locator("svg path");
  const before = await areas.count();
  const connected = figure.getByRole("button", { name: "Connected" });
  await connected.click();
  await expect(connected).toHaveAttribute("aria-pressed", "false");
  await expect(areas).toHaveCount(before - 1);
});
