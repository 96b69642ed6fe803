import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { LINK_ERROR_INFO } from "../lib/links/error-codes";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { type Started, startDashboard, startSandbox } from "../scripts/processes";
import { expect, test } from "./fixtures";
import { signInAs } from "./session";

// Every link live, by webhooks alone: a dashboard of its own whose sync is switched off (SYNC_INTERVAL_MINUTES=0)
// and whose read model starts empty, beside a sandbox of its own that lists active links only, as the real service
// does. A link the dashboard never listed or read is learned from its first signed webhook, and each state change the
// sandbox makes shows on /links, on the link's page and on Health within seconds. A staged institution outage, heard
// link by link, opens one alert the bell counts; support acknowledges it; it resolves when the outage ends.

test.describe.configure({ mode: "serial" });

const dashboardPort = Number(process.env.E2E_PORT ?? 3110) + 4;
const sandboxPort = Number(process.env.E2E_SANDBOX_PORT ?? 4110) + 4;

let sandbox: Started;
let dashboard: Started;
let dataRoot: string;
let token: string;

async function sandboxCall<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.url}${route}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      "X-Client-Id": SANDBOX_DEFAULTS.clientId,
      "X-Client-Secret": SANDBOX_DEFAULTS.clientSecret,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${route}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dataRoot = mkdtempSync(path.join(tmpdir(), "linkdesk-webhooks-live-"));
  sandbox = await startSandbox({
    port: sandboxPort,
    quiet: true,
    env: {
      SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
      SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
      SANDBOX_LINKS: "80",
      SANDBOX_LINKS_LISTING: "active",
      // Every seeded link's webhook is this dashboard's receiver: a staged outage reaches it link by link.
      SANDBOX_SEED_WEBHOOK_URL: `http://127.0.0.1:${dashboardPort}/api/webhooks/upstream`,
    },
  });
  dashboard = await startDashboard({
    port: dashboardPort,
    host: "127.0.0.1",
    quiet: true,
    env: {
      UPSTREAM_BASE_URL: sandbox.url,
      UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
      UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
      UPSTREAM_SANDBOX: "1",
      SYNC_INTERVAL_MINUTES: "0",
      ALERTS_EVALUATE_SECONDS: "1",
      LINKDESK_DATA_DIR: path.join(dataRoot, "data"),
      DATABASE_URL: "",
      AUTH_SECRET: "webhooks-live-secret-0123456789abcdef",
      LOG_LEVEL: "warn",
    },
  });
  const minted = await fetch(`${sandbox.url}/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: SANDBOX_DEFAULTS.clientId,
      client_secret: SANDBOX_DEFAULTS.clientSecret,
    }),
  });
  token = ((await minted.json()) as { access_token: string }).access_token;
});

test.afterAll(async () => {
  await Promise.all([dashboard?.stop(), sandbox?.stop()]);
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

/** The row of `linkId` on /links, found by the list's search, once it says `text`; reloads as a person would. */
async function expectLinkRow(page: Page, linkId: string, text: RegExp) {
  await expect(async () => {
    await page.goto(`${dashboard.url}/links?q=${encodeURIComponent(linkId)}`);
    await expect(page.getByRole("table").getByRole("row").filter({ hasText: linkId })).toContainText(text, {
      timeout: 500,
    });
  }).toPass({ timeout: 10_000, intervals: [250, 500, 1000] });
}

test("a link the dashboard never listed is learned from its first webhook, and each state change shows within seconds on /links, its page and Health", async ({
  page,
}) => {
  const fixtures = (await (await fetch(`${sandbox.url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  const linkId = fixtures.plain![0]!;
  await sandboxCall("PATCH", `/links/${linkId}`, { webhook: `${dashboard.url}/api/webhooks/upstream` });

  await signInAs(page, "support", { baseURL: dashboard.url });
  // The sync is off and nothing was registered: the read model does not know the link.
  await page.goto(`${dashboard.url}/links?q=${encodeURIComponent(linkId)}`);
  await expect(page.getByRole("table").getByRole("row").filter({ hasText: linkId })).toHaveCount(0);

  await sandboxCall("POST", `/_sandbox/links/${linkId}/state`, { state: "error", error_code: "institution_error" });
  const outage = LINK_ERROR_INFO.institution_error.label;
  await expectLinkRow(page, linkId, new RegExp(`Error.*${outage}.*Webhook`));
  // The sandbox no longer lists it (not active), yet Linkdesk has it.
  const listed = await sandboxCall<{ links: { link_id: string }[] }>("GET", "/links?limit=5000");
  expect(listed.links.map((l) => l.link_id)).not.toContain(linkId);

  await page.goto(`${dashboard.url}/links/${linkId}`);
  await expect(page.getByRole("main")).toContainText(outage);

  await page.goto(`${dashboard.url}/health`);
  await expect(page.getByTestId("health-freshness")).toContainText(/Newest webhook event (just now|\d+ s ago)/);
  await expect(page.getByTestId("health-tiles").getByRole("link", { name: /In error/ })).toContainText(/[1-9]/);

  // Back to connected: the list follows, again without a sync.
  await sandboxCall("POST", `/_sandbox/links/${linkId}/state`, { state: "connected" });
  await expectLinkRow(page, linkId, /Connected/);
  await expect(page.getByRole("table").getByRole("row").filter({ hasText: linkId })).not.toContainText(outage);
});

test("a request without the upstream's signature changes nothing and is answered with the reason", async ({
  page,
  request,
}) => {
  const fixtures = (await (await fetch(`${sandbox.url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  const linkId = fixtures.plain![1]!;
  const forged = await request.post(`${dashboard.url}/api/webhooks/upstream`, {
    data: {
      webhook_major_version: 1,
      webhook_minor_version: 0,
      webhook_idempotency_key: "forged-1",
      webhook_timestamp: new Date().toISOString(),
      link_id: linkId,
      link_tags: [],
      webhook_event: "link.state_changed",
      state: "deleted",
    },
  });
  expect(forged.status()).toBe(401);
  expect(((await forged.json()) as { error: string }).error).toMatch(/No MoneyKit-Signature header/);
  await signInAs(page, "viewer", { baseURL: dashboard.url });
  await page.goto(`${dashboard.url}/links?q=${encodeURIComponent(linkId)}`);
  await expect(page.getByRole("heading", { name: "Links" })).toBeVisible();
  await expect(page.getByRole("table").getByRole("row").filter({ hasText: linkId })).toHaveCount(0);
});

test("a staged institution outage opens one alert, counted by the bell until support acknowledges it, and it resolves when the outage ends", async ({
  page,
}) => {
  test.setTimeout(150_000);
  // The institution with the most active links at the sandbox.
  const listed = await sandboxCall<{ links: { link_id: string }[] }>("GET", "/links?limit=500");
  const counts = new Map<string, number>();
  for (const { link_id } of listed.links) {
    const { institution_id } = await sandboxCall<{ institution_id: string }>("GET", `/links/${link_id}`);
    counts.set(institution_id, (counts.get(institution_id) ?? 0) + 1);
  }
  const [institution] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;

  await signInAs(page, "support", { baseURL: dashboard.url });
  // A webhook names a link and its state, not its institution: the links are read once first, as the sync would have
  // read them (it is off here), through Health's "Refresh all".
  await page.goto(`${dashboard.url}/health`);
  await page.getByRole("button", { name: "Refresh all" }).click();
  await expect(async () => {
    await page.goto(`${dashboard.url}/health`);
    await expect(page.getByText(/^Synced /)).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 45_000, intervals: [1000] });
  const staged = await fetch(`${sandbox.url}/_sandbox/outages`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ kind: "institution", institution_id: institution, duration_s: 600 }),
  });
  expect(staged.status, await staged.clone().text()).toBe(201);
  const { outage } = (await staged.json()) as { outage: { id: string; link_ids: string[] } };
  expect(outage.link_ids.length).toBeGreaterThanOrEqual(3);
  const bell = page.getByTestId("alerts-bell");
  const alertRow = page.getByTestId("open-alert");
  await expect(async () => {
    await page.goto(`${dashboard.url}/alerts`);
    await expect(alertRow).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 30_000, intervals: [500, 1000] });
  await expect(alertRow).toContainText("Critical");
  // Of the links Linkdesk has read at that institution (a webhook alone does not say where a link is).
  await expect(alertRow).toContainText(/: \d+ of \d+ links in Institution outage \(\d+ %\)/);
  // The bell's count is kept a few seconds: it says so at the next page within them.
  await expect(async () => {
    await page.reload();
    await expect(bell).toHaveAccessibleName("Alerts: 1 open, not acknowledged", { timeout: 500 });
  }).toPass({ timeout: 15_000 });
  // Its links: the list filtered to that institution's outage.
  await expect(alertRow.getByRole("link", { name: "its links" })).toHaveAttribute(
    "href",
    `/links?error_code=institution_error&institution=${institution}`,
  );

  await alertRow.getByRole("button", { name: /^Acknowledge: / }).click();
  await expect(alertRow).toContainText("support@demo.linkdesk.test");
  await expect(async () => {
    await page.reload();
    await expect(bell).toHaveAccessibleName("Alerts: none open unacknowledged", { timeout: 500 });
  }).toPass({ timeout: 15_000 });

  // The outage ends: each link heard back connected, and the alert resolves, its peak kept.
  await fetch(`${sandbox.url}/_sandbox/outages/${outage.id}/end`, { method: "POST" });
  await expect(async () => {
    await page.goto(`${dashboard.url}/alerts`);
    await expect(page.getByTestId("resolved-alert")).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 30_000, intervals: [500, 1000] });
  await expect(alertRow).toHaveCount(0);
  await expect(page.getByTestId("resolved-alert")).toContainText("support@demo.linkdesk.test");
});
