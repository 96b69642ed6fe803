import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "@playwright/test";
import { parseCsv } from "../lib/http/csv";
import { NOT_KNOWN } from "../lib/links/error-codes";
import { describePair } from "../lib/transactions/categories";
import { PRODUCT_REFRESH_INTERVAL_MS } from "../lib/upstream/rate-limits";
import { PRODUCTS } from "../lib/upstream/schemas";
import { SPEC_ENDPOINTS } from "../lib/upstream/spec-endpoints";
import {
  LEGACY_SUBCATEGORIES,
  categoryLabel,
  isCategory,
  isSubcategory,
  subcategoryLabel,
} from "../lib/upstream/taxonomy";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { DEFAULT_DRIFT_KINDS, type DriftKind } from "../sandbox/drift";
import { type Started, registerBackEndLinks, startDashboard, startSandbox } from "../scripts/processes";
import { appPaths } from "./app-paths";
import { expect, test } from "./fixtures";
import { check } from "./page-check";
import { signInAs } from "./session";

// The suite's pages and actions a second time, against a sandbox that drifts as the real service may (issue 34;
// docs/sandbox.md, drift mode): three links or transactions in four carry a value today's lists do not hold, a null,
// an extra field, an old category, an amount in another decimal form, or a transaction that cannot be read at all.
// Staff sign in through the form, visit every page, find each unknown value shown as such, and perform every action
// once. No answer may be a 5xx, no page may log an error or show a raw value, and the dashboard may log no error.
// A lean subset, not a second pass of the suite: its own sandbox and dashboard on ports beside the suite's, with a
// fleet of 64 links that the first sync reads in seconds.

test.describe.configure({ mode: "serial" });

const dashboardPort = Number(process.env.E2E_PORT ?? 3110) + 6;
const sandboxPort = Number(process.env.E2E_SANDBOX_PORT ?? 4110) + 6;
const SERVICE_TOKEN = "drift-service-token-0123456789abcdef0123";
/** Every default kind, and the unreadable transaction, which only a run that names it gets. */
const KINDS: DriftKind[] = [...DEFAULT_DRIFT_KINDS, "malformed_item"];
/** The kinds that show on a link itself: the link page of one link carrying each is visited. */
const LINK_KINDS: DriftKind[] = [
  "null_product",
  "unknown_link_error",
  "unknown_link_state",
  "unknown_product",
  "unknown_product_error",
  "unknown_provider",
  "extra_fields",
  "nulls",
  "malformed_item",
];

let sandbox: Started;
let dashboard: Started;
let dataRoot: string;
let admin: Page;
let viewer: Page;
/** Seeded links carrying each kind, as the sandbox says (GET /_sandbox/drift/links). */
const drifted = {} as Record<DriftKind, string[]>;
/** Every answer the browsers got with a status of 500 or more, every error a page logged, and what check() found. */
const serverErrors: string[] = [];
const consoleErrors: string[] = [];
const problems: string[] = [];
/** The paths each role's page was checked on. */
const checked = { admin: new Set<string>(), viewer: new Set<string>() };
/** The dashboard's log (JSON lines at warn and above). */
let dashboardLog = "";
let bulkJobId = "";

let token = "";
/** A read of the drifting sandbox as a client of the upstream makes it: to find what to act on. */
async function upstream<T>(route: string): Promise<T> {
  if (!token) {
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
  }
  const response = await fetch(`${sandbox.url}${route}`, {
    headers: {
      Authorization: `Bearer ${token}`,
      "X-Client-Id": SANDBOX_DEFAULTS.clientId,
      "X-Client-Secret": SANDBOX_DEFAULTS.clientSecret,
    },
  });
  if (!response.ok) throw new Error(`GET ${route} on the drifting sandbox: HTTP ${response.status}`);
  return (await response.json()) as T;
}

interface WireLink {
  link_id: string;
  state: string;
  products: Record<string, { refreshed_at?: string | null; last_attempted_at?: string | null } | null>;
}

interface WireTxn {
  transaction_id: string;
  enrichment: {
    category: { value: string };
    subcategory: { value: string } | null;
    merchant: { id: string; name: string } | null;
  } | null;
}

const roleOf = new Map<Page, "admin" | "viewer">();

/** A page signed in through the sign-in form as `role`, at 1440 px, whose 5xx answers and logged errors are kept. */
async function openAs(browser: Browser, role: "admin" | "viewer"): Promise<Page> {
  const context = await browser.newContext({ baseURL: dashboard.url, viewport: { width: 1440, height: 900 } });
  context.on("response", (response) => {
    if (response.status() >= 500)
      serverErrors.push(`${response.status()} ${response.request().method()} ${response.url()} (${role})`);
  });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(`${page.url()} (${role}): ${message.text()}`);
  });
  page.on("pageerror", (error) => consoleErrors.push(`${page.url()} (${role}): uncaught ${error.message}`));
  roleOf.set(page, role);
  // Health, not the links list: the list keeps its filters' options for a minute (lib/links/list-facets.ts), and
  // nothing opens it before the first sync has read every link, so its options are those of the whole fleet.
  await signInAs(page, role, { from: "/sign-in?callbackUrl=/health" });
  return page;
}

/** Opens `path` and keeps what a person would notice is wrong there (e2e/page-check.ts). */
async function visit(page: Page, path: string): Promise<void> {
  const role = roleOf.get(page)!;
  const result = await check(page, path);
  checked[role].add(path);
  const where = `${path} as ${role}`;
  if (result.consoleErrors.length) problems.push(`${where}: console errors ${JSON.stringify(result.consoleErrors)}`);
  if (result.brokenImages.length) problems.push(`${where}: broken images ${JSON.stringify(result.brokenImages)}`);
  if (result.overflowPx > 0) problems.push(`${where}: the page is ${result.overflowPx} px wider than the window`);
  for (const words of result.rawWords) problems.push(`${where}: raw value in the text: ${words}`);
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  dataRoot = mkdtempSync(path.join(tmpdir(), "linkdesk-drift-"));
  // Side by side: the dashboard needs the sandbox only once its sync starts, seconds after it is up.
  const starting = await Promise.allSettled([
    startSandbox({
      port: sandboxPort,
      quiet: true,
      env: {
        SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
        SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
        SANDBOX_DRIFT: "on",
        SANDBOX_DRIFT_KINDS: KINDS.join(","),
        // Three objects in four drift: 64 links then carry every kind, relinking included (only a link stored as
        // connecting can carry it, and the seed has one in 64).
        SANDBOX_DRIFT_SHARE: "0.75",
        SANDBOX_LINKS: "64",
        SANDBOX_IMPORT_DELAY_MS: "200",
        // The seeded links' webhooks reach this dashboard, as in demo mode: drifted events and retries included.
        SANDBOX_SEED_WEBHOOK_URL: `http://127.0.0.1:${dashboardPort}/api/webhooks/upstream`,
      },
    }).then((started) => (sandbox = started)),
    startDashboard({
      port: dashboardPort,
      host: "127.0.0.1",
      onOutput: (text) => (dashboardLog += text),
      env: {
        UPSTREAM_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
        UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
        UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
        UPSTREAM_SANDBOX: "1",
        UPSTREAM_TIMEOUT_MS: "3000",
        LOG_LEVEL: "warn",
        LINKDESK_SERVICE_TOKEN: SERVICE_TOKEN,
        LINKDESK_DATA_DIR: path.join(dataRoot, "data"),
        DATABASE_URL: "",
        AUTH_SECRET: "drift-secret-0123456789abcdef0123456789",
      },
    }).then((started) => (dashboard = started)),
  ]);
  for (const outcome of starting) if (outcome.status === "rejected") throw outcome.reason;
  // The listing holds active links only, as the upstream's does: the back end registers every id it knows.
  await registerBackEndLinks({ sandboxUrl: sandbox.url, dashboardUrl: dashboard.url, token: SERVICE_TOKEN });
  for (const kind of KINDS) {
    const answer = await fetch(`${sandbox.url}/_sandbox/drift/links?kind=${kind}`);
    drifted[kind] = ((await answer.json()) as { link_ids: string[] }).link_ids;
  }
  admin = await openAs(browser, "admin");
  viewer = await openAs(browser, "viewer");
});

test.afterAll(async () => {
  await Promise.all([admin?.context().close(), viewer?.context().close(), dashboard?.stop()]);
  await sandbox?.stop();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

test.afterEach(() => {
  expect(serverErrors, "answers with a status of 500 or more").toEqual([]);
  expect(consoleErrors, "errors the pages logged").toEqual([]);
  expect(problems, "what the pages showed wrong").toEqual([]);
});

const first = (kind: DriftKind) => {
  const id = drifted[kind][0];
  if (!id) throw new Error(`the drifting sandbox has no link carrying ${kind}`);
  return id;
};

/** What the corrections act on: an old-taxonomy pair with older transactions of its merchant, one of them current. */
interface CorrectionTarget {
  linkId: string;
  transaction: WireTxn;
  merchant: string;
  /** The pair that replaced the old one (2025-01-13). */
  to: { category: string; subcategory: string };
  /** An older one of the merchant in a current pair other than `to`: the bulk job corrects it, then it is undone. */
  undone: WireTxn;
}

const wirePair = (t: WireTxn) => ({
  category: t.enrichment?.category.value ?? "",
  subcategory: t.enrichment?.subcategory?.value ?? "",
});

async function correctionTarget(): Promise<CorrectionTarget> {
  for (const linkId of drifted.old_category) {
    if ((await upstream<WireLink>(`/links/${linkId}`)).state !== "connected") continue;
    const { transactions } = await upstream<{ transactions: WireTxn[] }>(
      `/links/${linkId}/transactions?start_date=1900-01-01&size=1000`,
    );
    for (const [index, transaction] of transactions.entries()) {
      const old = LEGACY_SUBCATEGORIES[wirePair(transaction).subcategory];
      const merchant = transaction.enrichment?.merchant;
      if (!old?.replacedBy || !merchant) continue;
      const to = { category: old.category, subcategory: old.replacedBy };
      // The upstream calls a merchant's older transactions similar (transactions are listed newest first).
      const similar = transactions.slice(index + 1).filter((o) => o.enrichment?.merchant?.id === merchant.id);
      const undone = similar.find((o) => {
        const pair = wirePair(o);
        return isCategory(pair.category) && isSubcategory(pair.subcategory) && pair.subcategory !== to.subcategory;
      });
      if (undone && similar.length <= 12) return { linkId, transaction, merchant: merchant.name, to, undone };
    }
  }
  throw new Error("no old-category transaction on a connected link has an older one of its merchant in a current pair");
}

/** A connected link carrying one of `kinds`, with a product the upstream would refresh now (interval long passed). */
async function refreshableLink(kinds: DriftKind[]): Promise<{ linkId: string; product: string }> {
  for (const linkId of kinds.flatMap((kind) => drifted[kind])) {
    const link = await upstream<WireLink>(`/links/${linkId}`);
    if (link.state !== "connected") continue;
    for (const product of PRODUCTS) {
      const status = link.products[product];
      if (!status) continue;
      const last = Math.max(
        Date.parse(status.refreshed_at ?? "") || 0,
        Date.parse(status.last_attempted_at ?? "") || 0,
      );
      if (last + PRODUCT_REFRESH_INTERVAL_MS[product] < Date.now() - 5 * 60_000) return { linkId, product };
    }
  }
  throw new Error(`no connected link carrying ${kinds.join(" or ")} has a product that may be refreshed now`);
}

async function connectedLink(kind: DriftKind): Promise<string> {
  for (const linkId of drifted[kind]) {
    if ((await upstream<WireLink>(`/links/${linkId}`)).state === "connected") return linkId;
  }
  throw new Error(`no connected link carrying ${kind}`);
}

const rowOf = (page: Page, id: string) => page.locator(`[data-testid="transaction-row"][data-row-id="${id}"]`);

// Staff at work while the first sync still reads the links, as they may be: every action reads what it acts on live.
test("staff perform every action once against the drifting sandbox", async () => {
  test.setTimeout(90_000);
  for (const kind of KINDS) expect(drifted[kind].length, `links carrying ${kind}`).toBeGreaterThan(0);
  const page = admin;

  // Correct an old-taxonomy transaction to the pair that replaced it; its older ones of the merchant follow in bulk.
  const target = await correctionTarget();
  await visit(page, `/links/${target.linkId}?q=${encodeURIComponent(target.merchant)}`);
  const row = rowOf(page, target.transaction.transaction_id);
  const old = LEGACY_SUBCATEGORIES[wirePair(target.transaction).subcategory]!;
  await expect(row.getByTestId("transaction-category")).toContainText(`${old.label} (before 2025-01-13)`);
  await row.getByRole("button", { name: /^Change category of/ }).click();
  const combobox = row.getByRole("combobox");
  await combobox.fill(categoryLabel(target.to.category));
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Subcategory of ${categoryLabel(target.to.category)}`)).toBeVisible();
  await combobox.fill(subcategoryLabel(target.to.subcategory));
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("desk-announcement")).toContainText(`is now ${describePair(target.to)}.`);
  await expect(row.getByTestId("transaction-category")).toContainText(subcategoryLabel(target.to.subcategory));
  // The pair it had is one the upstream no longer takes: no undo is offered for it.
  await expect(row.getByRole("button", { name: /^Undo the correction of/ })).toHaveCount(0);

  await page.getByRole("button", { name: /^Review the \d+ similar/ }).click();
  await page.getByRole("button", { name: /^Apply to \d+ ticked$/ }).click();
  await expect(page).toHaveURL(/[?&]job=[0-9a-f-]{36}/);
  bulkJobId = new URL(page.url()).searchParams.get("job")!;
  await expect(page.getByTestId("job-progress")).toContainText(/Finished: \d+ done/, { timeout: 60_000 });

  // Undo one of the bulk job's corrections, from its row: back to the current pair it had.
  const undone = rowOf(page, target.undone.transaction_id);
  await expect(undone.getByTestId("transaction-category")).toContainText(subcategoryLabel(target.to.subcategory));
  await undone.getByRole("button", { name: /^Undo the correction of/ }).click();
  await expect(page.getByTestId("desk-announcement")).toContainText(
    `is back to ${describePair(wirePair(target.undone))}.`,
  );

  // A link carrying a seventh product, or a product error or a null product: its tags, and a product refresh.
  const { linkId, product } = await refreshableLink(["unknown_product", "unknown_product_error", "null_product"]);
  await visit(page, `/links/${linkId}`);
  const operations = page.getByRole("region", { name: "Operations" });
  const settings = operations.getByRole("form", { name: "Tags and webhook" });
  const refresh = operations.getByTestId(`refresh-offer-${product}`).getByRole("button", { name: /^Refresh / });
  // Enabled once the page's scripts run: what is typed before then may be lost to them.
  await expect(refresh).toBeEnabled();
  await settings.getByLabel("Tags").fill("drift:e2e\nteam:support");
  await settings.getByRole("button", { name: "Save tags and webhook" }).click();
  await expect(settings.getByRole("status")).toContainText("Tags: drift:e2e, team:support.");
  await refresh.click();
  await expect(operations.getByRole("status").filter({ hasText: "The upstream started refreshing" })).toBeVisible();

  // A test webhook from a link whose webhook (this dashboard's receiver) then hears an event of a kind no list holds.
  const hooked = await connectedLink("unknown_webhook_event");
  await visit(page, `/links/${hooked}`);
  const testWebhook = page.getByRole("form", { name: "Test webhook" });
  await testWebhook.getByLabel("Event").selectOption("transactions.updates_available");
  await testWebhook.getByRole("button", { name: "Send test webhook" }).click();
  await expect(testWebhook.getByTestId("test-webhook-delivery-token")).not.toBeEmpty();
  // Delivery takes a moment: look again as a person would, by reloading.
  await expect(async () => {
    await page.goto(`/webhooks?link=${hooked}`);
    await expect(page.getByTestId("unknown-kind").first()).toContainText("link.products_changed", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("unknown-kind").first()).toContainText(NOT_KNOWN);

  // Exchange a sandbox token.
  await visit(page, "/exchange");
  await page.getByRole("button", { name: "Get a sandbox token" }).click();
  await expect(page.getByLabel("Exchangeable token")).toHaveValue(/^[0-9a-f-]{36}$/);
  await page.getByRole("button", { name: "Exchange token" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Link created" })).toBeVisible();
  await expect(page.getByTestId("exchanged-link-id")).toHaveText(/^mk_/);

  // Import a file whose amounts are JSON numbers: Linkdesk sends them as decimal strings, the only form the upstream
  // takes (the drifting sandbox answers a number with 422).
  const file = JSON.stringify({
    customer_user: { id: `drift-${randomUUID()}` },
    institution_id: "chase",
    accounts: [{ account_id: "a1", name: "Account a1", type: "checking", balances: { current: 10 } }],
    transactions: [
      { account_id: "a1", transaction_id: "t1", amount: -2.5, date: "2024-03-10", description: "Shop 1" },
      { account_id: "a1", transaction_id: "t2", amount: 120, date: "2024-03-11", description: "Refund 2" },
    ],
  });
  await visit(page, "/import");
  await page
    .locator("#import-file")
    .setInputFiles({ name: "numbers.json", mimeType: "application/json", buffer: Buffer.from(file) });
  await expect(page.getByTestId("file-summary")).toContainText("1 link, 1 valid, 0 with problems");
  await page.getByRole("button", { name: "Import 1 new link" }).click();
  await expect(page.getByTestId("job-progress")).toContainText(/Finished: \d+ done of \d+\./, { timeout: 30_000 });
  await expect(page.getByTestId("links-imported")).toContainText("1 of 1 new link created.");
});

test("after the first sync, each unknown value is shown as sent and marked, filtered and exported", async () => {
  const page = admin;
  // The first sync has read every link once Health says "Synced …" ("Not synced yet" until then).
  await expect(async () => {
    expect(await (await page.request.get("/health")).text()).toMatch(/>Synced /);
  }).toPass({ timeout: 60_000, intervals: [1_000] });

  // The Error code filter offers the unknown code, marked; choosing it lists exactly the links that carry it.
  await visit(page, "/links");
  const filters = page.getByRole("form", { name: "Filter the links" });
  const errorCode = filters.getByLabel("Error code");
  await expect(errorCode.locator('option[value="consent_revoked"]')).toContainText(`consent_revoked (${NOT_KNOWN})`);
  await errorCode.selectOption("consent_revoked");
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/[?&]error_code=consent_revoked/);
  const rows = page.getByRole("table", { name: "Links" }).locator("tbody tr");
  await expect(rows).toHaveCount(Math.min(drifted.unknown_link_error.length, 50));
  for (const row of await rows.all()) await expect(row).toContainText("consent_revoked");

  // A link page of each: the code, the product and the provider as sent, each marked as not known.
  await visit(page, `/links/${first("unknown_link_error")}`);
  await expect(
    page.getByRole("status").filter({ hasText: "Error code not known to this version of Linkdesk" }),
  ).toContainText("(consent_revoked)");
  await visit(page, `/links/${first("unknown_product")}`);
  const seventh = page.getByTestId("product-payment_initiation");
  await expect(seventh).toContainText("payment_initiation");
  await expect(seventh).toContainText(NOT_KNOWN);
  await visit(page, `/links/${first("unknown_provider")}`);
  await expect(page.getByTestId("link-provider")).toContainText("truelayer");
  await expect(page.getByTestId("link-provider")).toContainText(NOT_KNOWN);

  // Health counts the unknown code; Status lists it among what the upstream sent that Linkdesk does not know.
  await visit(page, "/health");
  await expect(page.getByText("consent_revoked", { exact: true })).toBeVisible();
  await visit(page, "/status");
  await expect(page.getByRole("heading", { name: "What the upstream sent that Linkdesk does not know" })).toBeVisible();
  await expect(page.getByTestId("read-notice-unknown").filter({ hasText: "consent_revoked" })).toHaveCount(1);

  // The transactions desk sets the unreadable item aside in words (an old-taxonomy pair: the corrections above).
  await visit(page, `/links/${first("malformed_item")}`);
  await expect(page.getByTestId("transactions-unreadable")).toContainText("could not be read");

  // Export the links in the unknown error code: one row a link, each carrying the code.
  await visit(page, "/links?error_code=consent_revoked");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  const [header, ...records] = parseCsv(readFileSync((await download.path())!, "utf8"));
  expect(records).toHaveLength(drifted.unknown_link_error.length);
  for (const record of records) expect(record[header!.indexOf("error_code")]).toBe("consent_revoked");
});

test("every page renders clean for an admin, and the links and a link for a viewer", async () => {
  test.setTimeout(90_000);
  // Every page of the app, a link's page once for each kind a link can carry, and the lists filtered by each unknown
  // link-level value (the Status page links to them); those the tests above checked are not opened twice.
  const paths = [
    ...appPaths("page", {
      linkId: first("unknown_link_error"),
      jobId: bulkJobId || "00000000-0000-4000-8000-000000000000",
    }),
    ...LINK_KINDS.map((kind) => `/links/${first(kind)}`),
    "/links?state=relinking",
    "/links?provider=truelayer",
    "/links?product_error=consent_expired",
  ];
  for (const path of paths) if (!checked.admin.has(path)) await visit(admin, path);
  for (const path of ["/links", `/links/${first("unknown_product")}`]) await visit(viewer, path);

  // The dashboard called only routes the upstream's spec defines, logged no error, and logged each value it does not
  // know, or could not read, once (not once per read).
  const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
    byEndpoint: Record<string, unknown>;
  };
  expect(Object.keys(stats.byEndpoint).filter((endpoint) => !SPEC_ENDPOINTS.includes(endpoint))).toEqual([]);
  const lines = dashboardLog
    .split("\n")
    .filter((line) => line.startsWith("{") && line.endsWith("}"))
    .map((line) => JSON.parse(line) as { level: number; msg: string; field?: string; value?: string });
  expect(lines.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([]);
  const notices = lines.filter((line) => /logged once\)$/.test(line.msg)).map((line) => `${line.field}: ${line.value}`);
  expect(notices).toContain("link.error_code: consent_revoked");
  expect(notices.filter((notice, index) => notices.indexOf(notice) !== index)).toEqual([]);
});
