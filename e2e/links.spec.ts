import { LINK_ERROR_INFO } from "../lib/links/error-codes";
import type { LinkErrorCode } from "../lib/upstream/schemas";
import { expect, test } from "./fixtures";

test("a viewer filters to the error links of one institution, opens one and reads what its error code means", async ({
  page,
  signIn,
}) => {
  await signIn(page, "viewer");
  // The background sync reads error-state links first: wait until some are in the read model.
  await expect(async () => {
    await page.goto("/links?state=error");
    await expect(page.getByRole("table").getByRole("link", { name: /^mk_/ }).first()).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });

  // Pick the institution of the first error link from the Institution filter, as staff would.
  const filters = page.getByRole("form", { name: "Filter the links" });
  const institution = filters.getByLabel("Institution");
  const options = await institution
    .locator("option")
    .evaluateAll((els) =>
      els
        .map((e) => ({ id: (e as HTMLOptionElement).value, name: e.textContent!.trim().replace(/ \([\d,]+\)$/, "") }))
        .filter((o) => o.id),
    );
  expect(options.length).toBeGreaterThan(0);
  // Rows name the institution; the filter's options carry its id as value and its name with a count as label.
  const firstRowText = await page.getByRole("table").getByRole("row").nth(1).innerText();
  const option = options.find((o) => firstRowText.includes(o.name)) ?? options[0]!;
  const chosen = option.id;
  await institution.selectOption(chosen);
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`state=error.*institution=${chosen}|institution=${chosen}.*state=error`));

  const rows = page.getByRole("table").getByRole("row");
  await expect(rows.nth(1)).toBeVisible();
  for (const text of await rows.allInnerTexts().then((t) => t.slice(1))) {
    expect(text).toContain(option.name);
    expect(text).toContain("Error");
  }

  await rows.nth(1).getByRole("link", { name: /^mk_/ }).click();
  await expect(page).toHaveURL(/\/links\/mk_/);
  const explainer = page.getByRole("status").filter({ has: page.getByTestId("error-meaning") });
  const code = (await explainer.innerText()).match(/\(([a-z_]+)\)/)?.[1] as LinkErrorCode | undefined;
  expect(code && code in LINK_ERROR_INFO, "the page names the link's error code").toBeTruthy();
  await expect(page.getByTestId("error-meaning")).toContainText(LINK_ERROR_INFO[code!].meaning);
  await expect(page.getByTestId("error-meaning")).toContainText(LINK_ERROR_INFO[code!].remedy);
});

test("ops exchanges a sandbox token and finds the new link in the list", async ({ page, signIn }) => {
  await signIn(page, "ops");
  await page.goto("/exchange");
  await page.getByRole("button", { name: "Get a sandbox token" }).click();
  await expect(page.getByLabel("Exchangeable token")).toHaveValue(/^[0-9a-f-]{36}$/);
  await page.getByRole("button", { name: "Exchange token" }).click();
  const linkId = (await page.getByTestId("exchanged-link-id").innerText()).trim();
  expect(linkId).toMatch(/^mk_/);
  // The new link's id leads to its page.
  await page.getByRole("link", { name: linkId }).click();
  await expect(page).toHaveURL(new RegExp(`/links/${linkId}$`));

  await page.goto("/links");
  const filters = page.getByRole("form", { name: "Filter the links" });
  await filters.getByLabel("Search").fill(linkId);
  await filters.getByRole("button", { name: "Apply" }).click();
  const row = page.getByRole("table").getByRole("row").filter({ hasText: linkId });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Connected");
});

test("a link that does not exist, and one with a hostile avatar, are shown in words without loading the avatar", async ({
  page,
  signIn,
}) => {
  await signIn(page, "viewer");
  await page.goto("/links/mk_doesnotexist0000000000");
  await expect(page.getByRole("main")).toContainText("This link does not exist upstream");

  const fixtures = (await (await fetch(`${process.env.E2E_SANDBOX_URL}/_sandbox/fixtures`)).json()) as Record<
    string,
    string[]
  >;
  const hostile = fixtures.hostile_avatar?.[0];
  expect(hostile).toBeTruthy();
  const loaded: string[] = [];
  page.on("request", (r) => {
    if (r.url().startsWith("javascript:")) loaded.push(r.url());
  });
  await page.goto(`/links/${hostile}`);
  await expect(page.getByTestId("avatar-placeholder").first()).toBeVisible();
  expect(loaded).toEqual([]);
  await expect(page.locator('img[src^="javascript:"]')).toHaveCount(0);
});

test("people opening the same link at once share its reads: every view shows the accounts, from one upstream read", async ({
  browser,
  signIn,
}) => {
  const sandbox = process.env.E2E_SANDBOX_URL!;
  const fixtures = (await (await fetch(`${sandbox}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  const linkId = fixtures.plain?.[0];
  expect(linkId).toBeTruthy();
  const accountReads = async () => {
    const stats = (await (await fetch(`${sandbox}/_sandbox/stats`)).json()) as {
      byEndpoint: Record<string, { requests: number } | undefined>;
    };
    return stats.byEndpoint["GET /links/{id}/accounts"]?.requests ?? 0;
  };
  const before = await accountReads();
  // Four people (Linkdesk's share of the upstream's 4 account reads a minute per link is 2): each sees the accounts.
  for (const role of ["viewer", "support", "ops", "admin"] as const) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, role);
    await page.goto(`/links/${linkId}`);
    await expect(page.getByTestId("link-freshness")).toHaveText("Read live from the upstream just now.");
    const accounts = page.locator('section[aria-labelledby="link-accounts-heading"]');
    await expect(accounts.getByRole("table")).toBeVisible();
    await expect(accounts).not.toContainText("rate budget");
    await context.close();
  }
  // One read at most (none if another test read them in the last 30 s), not one a view.
  expect((await accountReads()) - before).toBeLessThanOrEqual(1);
});
