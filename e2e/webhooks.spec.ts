import { readFileSync } from "node:fs";
import type { Browser, Page } from "@playwright/test";
import { parseCsv } from "../lib/http/csv";
import type { Role } from "../lib/auth/roles";
import { type SignIn, expect, test } from "./fixtures";
import { upstreamCall } from "./sandbox-control";

// The Webhooks page as staff use it, with rows made only the real way: requests to the dashboard's receiver. One
// unsigned request sent straight to it (refused), and one event the sandbox signs and delivers to it after a link's
// webhook is pointed at the dashboard (verified and processed). Then an ops person reprocesses the event, a viewer
// cannot, and the CSV export holds it.

test.describe.configure({ mode: "serial" });

const NO_SIGNATURE = "No MoneyKit-Signature header: Linkdesk takes webhooks only as the upstream signs them.";
const KEY_COLUMNS = ["Kind", "Link", "Verification", "Outcome"];

let linkId = "";
let originalWebhook: string | null = null;
let signedToken = "";
const unsignedToken = `dt_e2e_unsigned_${Math.random().toString(36).slice(2)}`;

function sandboxUrl(): string {
  const url = process.env.E2E_SANDBOX_URL;
  if (!url) throw new Error("E2E_SANDBOX_URL is not set: run the specs through playwright.config.ts");
  return url;
}

async function pageAs(browser: Browser, signIn: SignIn, role: Role): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, role);
  return page;
}

const table = (page: Page) => page.getByRole("table", { name: "Webhook events" });
/** A data row of the table (row 0 is the header). */
const dataRow = (page: Page, index: number) =>
  table(page)
    .getByRole("row")
    .nth(index + 1);

/** Opens a row's Details and returns the row: the ids and body fields are inside. */
async function openDetails(page: Page, index: number) {
  const row = dataRow(page, index);
  await row.getByText("Details", { exact: true }).click();
  return row;
}

async function summaryCount(page: Page, testId: string): Promise<number> {
  return Number((await page.getByTestId(testId).locator("dd").innerText()).replaceAll(",", ""));
}

test.beforeAll(async ({ baseURL }) => {
  // A plain link no other spec steers: the last of the sandbox's plain fixtures.
  const fixtures = (await (await fetch(`${sandboxUrl()}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  linkId = fixtures.plain!.at(-1)!;
  originalWebhook =
    (await upstreamCall<{ webhook?: string | null }>("GET", `/links/${encodeURIComponent(linkId)}`)).webhook ?? null;
  // As a customer's back end would: the link's events go to the dashboard's receiver from now on.
  await upstreamCall("PATCH", `/links/${encodeURIComponent(linkId)}`, { webhook: `${baseURL}/api/webhooks/upstream` });
});

test.afterAll(async () => {
  if (linkId) await upstreamCall("PATCH", `/links/${encodeURIComponent(linkId)}`, { webhook: originalWebhook });
});

test("a request without a signature is refused in words, listed as refused with its reason and counted by reason", async ({
  browser,
  request,
  baseURL,
  signIn,
}) => {
  const page = await pageAs(browser, signIn, "viewer");
  await page.goto("/webhooks");
  const refusedBefore = await summaryCount(page, "summary-refused");

  const answer = await request.post(`${baseURL}/api/webhooks/upstream`, {
    headers: { "MoneyKit-Delivery-Token": unsignedToken, "MoneyKit-Delivery-Attempt": "1" },
    data: {
      webhook_major_version: 1,
      webhook_minor_version: 0,
      webhook_idempotency_key: `forged-${unsignedToken}`,
      webhook_timestamp: new Date().toISOString(),
      link_id: linkId,
      link_tags: [],
      webhook_event: "link.state_changed",
      state: "deleted",
    },
  });
  expect(answer.status()).toBeGreaterThanOrEqual(400);
  expect(answer.status()).toBeLessThan(500);
  expect(await answer.json()).toEqual({ error: NO_SIGNATURE });

  // Newest first: the refused view's first row is this request.
  await page.goto("/webhooks?verification=refused");
  await expect(dataRow(page, 0)).toContainText("Refused");
  await expect(dataRow(page, 0).getByTestId("refusal-reason")).toHaveText(NO_SIGNATURE);
  await expect(dataRow(page, 0)).toContainText("Not processed");
  const row = await openDetails(page, 0);
  await expect(row.getByText(unsignedToken)).toBeVisible();
  await expect(row).toContainText("A refused request's body is not kept.");
  // Nothing of the forged body was kept or applied: no link, no kind.
  await expect(row.getByRole("link", { name: linkId })).toHaveCount(0);

  await page.goto("/webhooks");
  expect(await summaryCount(page, "summary-refused")).toBe(refusedBefore + 1);
  const byReason = page.getByTestId("refusals-by-reason").getByRole("listitem").filter({ hasText: NO_SIGNATURE });
  await expect(byReason).toHaveCount(1);
  expect(Number((await byReason.innerText()).match(/^\s*([\d,]+)/)![1]!.replaceAll(",", ""))).toBeGreaterThanOrEqual(1);
  // The count opens the refused requests.
  await page.getByTestId("summary-refused").getByRole("link").click();
  await expect(page).toHaveURL(/\/webhooks\?verification=refused&since=24h$/);
  await expect(dataRow(page, 0).getByTestId("refusal-reason")).toHaveText(NO_SIGNATURE);
  await page.context().close();
});

test("an event the upstream signs shows as verified and processed, with its body as text, on the Webhooks page and the link's page", async ({
  browser,
  signIn,
}) => {
  // The sandbox changes the link's state (to the one it has) and delivers link.state_changed, signed, to its webhook.
  const changed = await upstreamCall<{ delivery_token: string | null }>(
    "POST",
    `/_sandbox/links/${encodeURIComponent(linkId)}/state`,
    { state: "connected" },
  );
  expect(changed.delivery_token).toBeTruthy();
  signedToken = changed.delivery_token!;

  const page = await pageAs(browser, signIn, "viewer");
  // Delivery and processing take a moment: look again as a person would, by reloading.
  await expect(async () => {
    await page.goto(`/webhooks?link=${encodeURIComponent(linkId)}`);
    await expect(dataRow(page, 0)).toContainText("Processed", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  const first = dataRow(page, 0);
  await expect(first).toContainText("Link state changed");
  await expect(first).toContainText("Verified");
  await expect(first).toContainText("Delivery 1 · 1 try");
  await expect(first.getByRole("link", { name: linkId })).toHaveAttribute("href", `/links/${linkId}`);
  const row = await openDetails(page, 0);
  await expect(row.getByText(signedToken)).toBeVisible();
  const body = row.getByTestId("webhook-body");
  await expect(body).toContainText("webhook_event");
  await expect(body).toContainText("link.state_changed");
  await expect(body).toContainText(/state\s*connected/);
  await expect(body.getByRole("link")).toHaveCount(0);

  // The filter bar holds the view; a reload keeps it.
  await expect(page.getByLabel("Link id", { exact: true })).toHaveValue(linkId);
  await page.reload();
  await expect(dataRow(page, 0)).toContainText("Link state changed");

  // The key columns stay on screen, and rows stay one line, at a laptop's and a small screen's width.
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/webhooks");
    for (const name of KEY_COLUMNS)
      await expect(
        table(page).getByRole("columnheader", { name, exact: true }),
        `${name} at ${width} px`,
      ).toBeInViewport({ ratio: 1 });
    const tallest = await table(page).evaluate((t) =>
      Math.max(...[...t.querySelectorAll(":scope > tbody > tr")].map((r) => r.getBoundingClientRect().height)),
    );
    expect(tallest, `tallest row at ${width} px`).toBeLessThanOrEqual(44);
  }

  // The link's page lists it, and leads to the Webhooks page filtered by the link.
  await page.goto(`/links/${encodeURIComponent(linkId)}`);
  const section = page.getByRole("region", { name: "Webhook events", exact: true });
  await expect(section.getByRole("row").nth(1)).toContainText("Link state changed");
  await expect(section.getByRole("row").nth(1)).toContainText("Processed");
  await section.getByRole("link", { name: "Open in Webhooks" }).click();
  await expect(page).toHaveURL(new RegExp(`/webhooks\\?link=${linkId}$`));
  await expect(dataRow(page, 0)).toContainText("Link state changed");
  await page.context().close();
});

test("ops reprocess the event, audited; a viewer has no Reprocess, and a refused request offers none", async ({
  browser,
  signIn,
}) => {
  const viewer = await pageAs(browser, signIn, "viewer");
  await viewer.goto(`/webhooks?link=${encodeURIComponent(linkId)}`);
  await expect(dataRow(viewer, 0)).toContainText("Link state changed");
  await expect(viewer.getByRole("button", { name: /Reprocess/ })).toHaveCount(0);
  await expect(table(viewer).getByRole("columnheader", { name: "Reprocess" })).toHaveCount(0);
  await viewer.context().close();

  const ops = await pageAs(browser, signIn, "ops");
  await ops.goto("/webhooks?verification=refused");
  await expect(dataRow(ops, 0)).toContainText("Nothing to process");
  await expect(dataRow(ops, 0).getByRole("button", { name: /Reprocess/ })).toHaveCount(0);

  await ops.goto(`/webhooks?link=${encodeURIComponent(linkId)}`);
  const row = dataRow(ops, 0);
  await row.getByRole("button", { name: new RegExp(`^Reprocess the link\\.state_changed event of ${linkId}`) }).click();
  await expect(row.getByRole("status").filter({ hasText: "Queued" })).toBeVisible();
  await expect(async () => {
    await ops.reload();
    await expect(dataRow(ops, 0)).toContainText("Delivery 1 · 2 tries", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(dataRow(ops, 0)).toContainText("Processed");

  await ops.goto("/audit?action=webhook.reprocess");
  const entry = ops.getByRole("row").filter({ hasText: "Webhook event processed again" }).first();
  await expect(entry).toContainText("Done");
  await expect(entry).toContainText("ops@");
  await ops.context().close();
});

test("the CSV export of the filtered view holds the event as processed twice", async ({ browser, signIn }) => {
  const page = await pageAs(browser, signIn, "viewer");
  await page.goto(`/webhooks?link=${encodeURIComponent(linkId)}&verification=verified`);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^linkdesk-webhooks-\d{8}T\d{6}Z\.csv$/);
  const [header, ...records] = parseCsv(readFileSync((await download.path())!, "utf8"));
  const col = (name: string) => header!.indexOf(name);
  expect(records.length).toBeGreaterThanOrEqual(1);
  for (const record of records) {
    expect(record[col("link_id")]).toBe(linkId);
    expect(record[col("verification")]).toBe("verified");
  }
  const mine = records.find((r) => r[col("delivery_token")] === signedToken);
  expect(mine).toBeDefined();
  expect(mine![col("event")]).toBe("link.state_changed");
  expect(mine![col("outcome")]).toBe("processed");
  expect(mine![col("process_attempts")]).toBe("2");
  expect(JSON.parse(mine![col("body")]!)).toMatchObject({
    link_id: linkId,
    webhook_event: "link.state_changed",
    state: "connected",
  });
  // The unsigned request is not in this view.
  expect(records.some((r) => r[col("delivery_token")] === unsignedToken)).toBe(false);
  await page.context().close();
});
