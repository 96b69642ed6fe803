import { expect, test } from "./fixtures";
import { plainLinkId } from "./session";

const CORRECTION = "POST /links/{id}/transactions/{txn_id}/enrichment";

test("the Rate limits page shows the used count going up after a correction made in another tab", async ({
  page,
  context,
  signIn,
}) => {
  // Up to 75 s waiting for this worker's earlier corrections to age out, then the correction itself.
  test.setTimeout(120_000);
  await signIn(page, "support");
  // The per-link row names the busiest link: corrections that specs before this one (in this worker) made on other
  // links age out of the upstream's rolling minute first, so the link corrected below is the one it names.
  await expect
    .poll(
      async () => {
        const view = (await (await page.request.get("/api/rate-limits")).json()) as {
          rows: { endpoint: string; scope: string; activeKeys: number }[];
        };
        return view.rows.find((row) => row.endpoint === CORRECTION && row.scope === "link")?.activeKeys;
      },
      { timeout: 75_000, intervals: [2_000] },
    )
    .toBe(0);
  await page.goto("/rate-limits");
  // How often the numbers move, in words a person can read (it once said "Updates every NaN s.").
  await expect(page.getByText("Updates every 5 s.")).toBeVisible();
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
  await row.getByRole("button", { name: /^Change category of/ }).click();
  await row.getByRole("combobox").fill("Travel");
  await other.keyboard.press("Enter");
  await row.getByRole("combobox").fill("Other travel");
  await other.keyboard.press("Enter");
  await expect(other.getByTestId("desk-announcement")).toContainText("is now Travel › Other travel");

  // The first tab refreshes itself every few seconds.
  await expect(meter).toHaveAttribute("aria-valuenow", String(before + 1), { timeout: 15_000 });
  const perLink = page.locator(`[data-testid="rate-limit-row"][data-endpoint="${CORRECTION}"][data-scope="link"]`);
  await expect(perLink).toContainText(linkId);
  await expect(page.getByRole("list").filter({ hasText: linkId })).toBeVisible();
});

test("scripts reading a link over HTTP get the RateLimit headers of the budget keys it used", async ({
  page,
  signIn,
}) => {
  await signIn(page, "viewer");
  const linkId = await plainLinkId();
  const response = await page.request.get(`/api/links/${linkId}`);
  expect(response.status()).toBe(200);
  expect((await response.json()).link.link_id).toBe(linkId);
  // GET /links/{id}: 30 per link and 1,000 per app upstream, half of each Linkdesk's.
  expect(response.headers()["ratelimit-policy"]).toBe('"link";q=15;w=61, "app";q=500;w=61');
  expect(response.headers()["ratelimit"]).toMatch(/^"link";r=\d+;t=\d+, "app";r=\d+;t=\d+$/);

  const anonymous = await page
    .context()
    .browser()!
    .newContext({ baseURL: new URL(page.url()).origin });
  expect((await anonymous.request.get(`/api/links/${linkId}`)).status()).toBe(401);
  await anonymous.close();
});

test("support applies a correction to the similar transactions as a queued job, seeing its cost first", async ({
  page,
  signIn,
}) => {
  await signIn(page, "support");
  const linkId = await plainLinkId();
  await page.goto(`/links/${linkId}`);
  // A transaction whose merchant comes again further down (older) has similar past ones.
  await expect(page.getByTestId("transaction-description").first()).toBeVisible();
  const descriptions = await page.getByTestId("transaction-description").allTextContents();
  const index = descriptions.findIndex((d, i) => descriptions.indexOf(d, i + 1) > i);
  expect(index, "the seeded link has a repeated merchant among its newest transactions").toBeGreaterThanOrEqual(0);
  const row = page.getByTestId("transaction-row").nth(index);
  await row.getByRole("button", { name: /^Change category of/ }).click();
  await row.getByRole("combobox").fill("Shopping");
  await page.keyboard.press("Enter");
  await row.getByRole("combobox").fill("Other shopping");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("desk-announcement")).toContainText(/found \d+ similar/);
  await page.getByRole("button", { name: /^Review the \d+ similar/ }).click();
  await expect(page.getByTestId("bulk-cost")).toHaveText(
    /^Before it starts: \d+ upstream calls?, .+ at the per-(link|app) limit \(\d+\/min, \d+ left now\)\.$/,
  );
  await page.getByRole("button", { name: /^Apply to \d+ ticked$/ }).click();
  await expect(page.getByTestId("job-progress")).toContainText(/Finished: \d+ done(, \d+ skipped)? of \d+\./, {
    timeout: 60_000,
  });

  await page.goto("/audit?action=transaction.correct_bulk");
  await expect(page.getByRole("row").filter({ hasText: "support@demo.linkdesk.test" }).first()).toContainText("Done");
});
