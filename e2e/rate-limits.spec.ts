import { expect, test } from "@playwright/test";
import { plainLinkId, signInAs } from "./session";

const CORRECTION = "POST /links/{id}/transactions/{txn_id}/enrichment";

test("the Rate limits page shows the used count going up after a correction made in another tab", async ({ page, context }) => {
  await signInAs(page, "support");
  await page.goto("/rate-limits");
  const perApp = page.locator(`[data-testid="rate-limit-row"][data-endpoint="${CORRECTION}"][data-scope="app"]`);
  await expect(perApp).toBeVisible();
  const meter = perApp.getByRole("meter");
  const before = Number(await meter.getAttribute("aria-valuenow"));

  // Another tab of the same person corrects a category.
  const other = await context.newPage();
  const linkId = await plainLinkId();
  await other.goto(`/links/${linkId}`);
  const left = other.getByTestId("corrections-left");
  await expect(left).toContainText("Corrections left this minute");
  const row = other.getByTestId("transaction-row").nth(1);
  await row.getByLabel("Category", { exact: true }).selectOption({ label: "Travel" });
  await row.getByRole("button", { name: "Save" }).click();
  await expect(row.getByRole("status")).toContainText("Corrected to Travel");

  // The first tab refreshes itself every few seconds.
  await expect(meter).toHaveAttribute("aria-valuenow", String(before + 1), { timeout: 15_000 });
  const perLink = page.locator(`[data-testid="rate-limit-row"][data-endpoint="${CORRECTION}"][data-scope="link"]`);
  await expect(perLink).toContainText(linkId);
  await expect(page.getByRole("list").filter({ hasText: linkId })).toBeVisible();
});

test("scripts reading a link over HTTP get the RateLimit headers of the budget keys it used", async ({ page }) => {
  await signInAs(page, "viewer");
  const linkId = await plainLinkId();
  const response = await page.request.get(`/api/links/${linkId}`);
  expect(response.status()).toBe(200);
  expect((await response.json()).link.link_id).toBe(linkId);
  // GET /links/{id}: 30 per link and 1,000 per app upstream, half of each Linkdesk's.
  expect(response.headers()["ratelimit-policy"]).toBe('"link";q=15;w=61, "app";q=500;w=61');
  expect(response.headers()["ratelimit"]).toMatch(/^"link";r=\d+;t=\d+, "app";r=\d+;t=\d+$/);

  const anonymous = await page.context().browser()!.newContext({ baseURL: new URL(page.url()).origin });
  expect((await anonymous.request.get(`/api/links/${linkId}`)).status()).toBe(401);
  await anonymous.close();
});

test("support applies a correction to the similar transactions as a queued job, seeing its cost first", async ({ page }) => {
  await signInAs(page, "support");
  const linkId = await plainLinkId();
  await page.goto(`/links/${linkId}`);
  // A transaction whose merchant comes again further down (older) has similar past ones.
  const descriptions = await page.getByTestId("transaction-row").locator("td:nth-child(2) > div:first-child").allTextContents();
  const index = descriptions.findIndex((d, i) => descriptions.indexOf(d, i + 1) > i);
  expect(index, "the seeded link has a repeated merchant on its first page").toBeGreaterThanOrEqual(0);
  const row = page.getByTestId("transaction-row").nth(index);
  await row.getByLabel("Category", { exact: true }).selectOption({ label: "Shopping" });
  await row.getByRole("button", { name: "Save" }).click();
  await expect(row.getByRole("status").first()).toContainText(/\d+ similar past transactions found/);
  await expect(row.getByTestId("bulk-cost")).toHaveText(/^\d+ calls, .+ at the per-(link|app) limit \(\d+\/min, \d+ left now\)$/);
  await row.getByRole("button", { name: /Apply to the \d+ similar/ }).click();
  await expect(row.getByTestId("bulk-progress")).toContainText(/Done: \d+ of \d+ corrected\./, { timeout: 30_000 });

  await page.goto("/audit?action=transaction.correct_bulk");
  await expect(page.getByRole("row").filter({ hasText: "support@demo.linkdesk.test" }).first()).toContainText("Done");
});
