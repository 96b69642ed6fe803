import { NAV_ITEMS } from "../components/shell/nav-items";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { expect, test } from "./fixtures";
import { clearFaults, setFaults } from "./sandbox-control";
import { signInAs } from "./session";

test.beforeEach(async ({ page, signIn }) => {
  await signIn(page, "admin");
});

test.afterEach(async () => {
  await clearFaults();
});

test("the shell lists every section and names the upstream it talks to", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/links$/);
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("listitem")).toHaveText(NAV_ITEMS.map((i) => i.label));
  await expect(page.getByRole("banner")).toContainText("Sandbox");
  await expect(page.getByTestId("upstream-url")).toHaveText(/^http:\/\/127\.0\.0\.1:\d+$/);
  await expect(page.getByTestId("upstream-reachability")).toHaveText("Reachable");
});

test("staff move between sections and see where they are", async ({ page }) => {
  await page.goto("/links");
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const item of NAV_ITEMS) {
    await nav.getByRole("link", { name: item.label, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${item.href}$`));
    await expect(nav.getByRole("link", { name: item.label, exact: true })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  }
});

test("the status page shows reachability, the access token and a validated read, never credentials", async ({
  page,
}) => {
  await page.goto("/status");
  await expect(page.getByTestId("status-reachability")).toContainText("Reachable");
  await expect(page.getByTestId("status-token")).toContainText("Access token obtained");
  await expect(page.getByTestId("status-token")).toContainText("Valid until");
  await expect(page.getByTestId("status-read")).toContainText(/GET \/links answered 500 link ids/);
  const html = await page.content();
  expect(html).not.toContain(SANDBOX_DEFAULTS.clientSecret);
  expect(html).not.toMatch(/Bearer /);
});

test("an upstream answering 5xx is explained and the shell stays up", async ({ page }) => {
  await setFaults({ status: 503, paths: ["/links"] });
  await page.goto("/status?refresh=1");
  await expect(page.getByTestId("status-read")).toContainText("The upstream had an internal error (HTTP 503)");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByTestId("status-token")).toContainText("Access token obtained");
});

test("an upstream answering garbage is explained, not crashed on", async ({ page }) => {
  await setFaults({ malformed: true, paths: ["/links"] });
  await page.goto("/status?refresh=2");
  await expect(page.getByTestId("status-read")).toContainText(
    "The upstream answered with data Linkdesk does not understand",
  );
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
});

test("a slow upstream is cut off at the timeout with a clear message", async ({ page }) => {
  // The e2e dashboard's timeout is 3 s.
  await setFaults({ latencyMs: 5_000, paths: ["/links"] });
  await page.goto("/status?refresh=3");
  await expect(page.getByTestId("status-read")).toContainText("The upstream did not answer in time");
});

test("an upstream that is down is named as unreachable on every page", async ({ page, downDashboardUrl: down }) => {
  expect(down, "the downDashboardUrl fixture starts a dashboard with a dead upstream").toBeTruthy();
  await signInAs(page, "viewer", { baseURL: down });
  await page.goto(`${down}/links`);
  await expect(page.getByTestId("upstream-reachability")).toHaveText("Unreachable");
  await expect(page.getByRole("heading", { level: 1, name: "Links" })).toBeVisible();
  await page.goto(`${down}/status`);
  await expect(page.getByTestId("status-reachability")).toContainText("The upstream cannot be reached");
  await expect(page.getByTestId("status-reachability")).toContainText("ECONNREFUSED");
  await expect(page.getByTestId("status-token")).toContainText("The upstream cannot be reached");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
});
