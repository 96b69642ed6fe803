import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { LINK_ERROR_INFO } from "../lib/links/error-codes";
import { E2E_SERVICE_TOKEN, expect, test } from "./fixtures";
import { type SandboxLink, upstreamCall } from "./sandbox-control";

// How Linkdesk learns of every link, not only the ones the upstream lists. The sandbox lists active links only, as the
// upstream does: a link imported without credentials or one whose first connection failed is never listed. Yet staff
// find them on /links, learned from the product's back end (its endpoint, an admin's file) or from a customer lookup.
// Every link here is made through the sandbox's API, as the product would make it, never through Linkdesk.

const sandboxUrl = () => process.env.E2E_SANDBOX_URL!;

/** Every id GET /links lists now, all pages. */
async function listedIds(): Promise<string[]> {
  const ids: string[] = [];
  let cursor = "";
  do {
    const page = await upstreamCall<{ links: { link_id: string }[]; next_cursor: string }>(
      "GET",
      `/links?limit=5000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    ids.push(...page.links.map((link) => link.link_id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

/** A link imported by the product without credentials: the upstream makes it disconnected (error, auth_expired). */
function importDisconnected(customerId: string): Promise<SandboxLink> {
  return upstreamCall<SandboxLink>("POST", "/links/import", {
    customer_user: { id: customerId },
    institution_id: "chase",
  });
}

/** A link whose first connection failed: the end user gave up in the linking flow (error, user_error). */
async function failedFirstConnection(customerId: string): Promise<string> {
  const session = await upstreamCall<{ link_session_token: string }>("POST", "/link-session", {
    customer_user: { id: customerId },
    redirect_uri: "https://customer.example/linked",
  });
  const done = await fetch(
    `${sandboxUrl()}/_sandbox/link-sessions/${encodeURIComponent(session.link_session_token)}/complete`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ outcome: "error" }),
    },
  );
  expect(done.status).toBe(200);
  return ((await done.json()) as { link_id: string }).link_id;
}

/** The product's back end registering ids it knows, through the dashboard's door (POST /api/links/register). */
function register(linkIds: unknown[], token = E2E_SERVICE_TOKEN) {
  return fetch(`${process.env.E2E_DASHBOARD_URL}/api/links/register`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ link_ids: linkIds }),
  });
}

/** The link's row on /links once the sync has read its details (it reads links learned since its last run first). */
async function rowOnLinksPage(page: Page, linkId: string, text: string | RegExp) {
  const row = page.getByRole("table", { name: "Links" }).getByRole("row").filter({ hasText: linkId });
  await expect(async () => {
    await page.goto(`/links?q=${encodeURIComponent(linkId)}`);
    await expect(row).toContainText(text, { timeout: 1_000 });
  }).toPass({ timeout: 90_000 });
  return row;
}

test("the sandbox's GET /links lists active links only: not a disconnected import, a failed connection, a connecting link or one in error", async () => {
  const fixtures = (await (await fetch(`${sandboxUrl()}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  const imported = await importDisconnected(`discovery-listing-${randomUUID()}`);
  expect(imported).toMatchObject({ state: "error", error_code: "auth_expired" });
  const failed = await failedFirstConnection(`discovery-listing-${randomUUID()}`);
  const listed = new Set(await listedIds());
  for (const id of [
    imported.link_id,
    failed,
    fixtures.connecting![0]!,
    fixtures["error:institution_error"]![0]!,
    fixtures.deleted![0]!,
  ]) {
    expect(listed.has(id), id).toBe(false);
  }
  expect(listed.has(fixtures.plain![0]!)).toBe(true);
  // The product's back end knows every one of them.
  const backEnd = (await (await fetch(`${sandboxUrl()}/_sandbox/back-end/link-ids`)).json()) as { link_ids: string[] };
  expect(backEnd.link_ids).toEqual(expect.arrayContaining([imported.link_id, failed, fixtures.connecting![0]!]));
});

test("links the listing leaves out, registered by the back end, show on /links with their state and error code in words", async ({
  page,
  signIn,
}) => {
  const imported = await importDisconnected(`discovery-import-${randomUUID()}`);
  const failed = await failedFirstConnection(`discovery-failed-${randomUUID()}`);

  // The door refuses a wrong token in words, and records nothing.
  const wrong = await register([imported.link_id], `${E2E_SERVICE_TOKEN}-wrong`);
  expect(wrong.status).toBe(401);
  expect(((await wrong.json()) as { error: string }).error).toMatch(/^The service token is wrong/);

  const response = await register([imported.link_id, failed, imported.link_id, "not-a-link"]);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({
    registered: 2,
    alreadyKnown: 0,
    duplicates: 1,
    customers: 0,
    invalid: [{ index: 3, reason: "does not start with mk_ (a link id looks like mk_eqkWN34UEoa2NxyALG8pcV)" }],
  });

  await signIn(page, "viewer");
  const importedRow = await rowOnLinksPage(page, imported.link_id, LINK_ERROR_INFO.auth_expired.label);
  await expect(importedRow).toContainText("Error");
  await expect(importedRow).toContainText("Registration");
  const failedRow = await rowOnLinksPage(page, failed, LINK_ERROR_INFO.user_error.label);
  await expect(failedRow).toContainText("Error");
  await expect(failedRow).toContainText("Registration");
  // The error code explains itself, as for any link.
  await failedRow.getByTestId("error-code-chip").hover();
  await expect(page.getByRole("tooltip")).toContainText(LINK_ERROR_INFO.user_error.remedy);
  // Filtered by state, they are among the links in error.
  await page.goto(`/links?state=error&error_code=user_error&q=${encodeURIComponent(failed)}`);
  await expect(page.getByRole("table", { name: "Links" }).getByRole("row")).toHaveCount(2);
});

test("support looks up a customer and sees all of the customer's links in words, each then in the list as learned by the lookup", async ({
  page,
  signIn,
}) => {
  const customer = `discovery-customer-${randomUUID().slice(0, 8)}`;
  const disconnected = await importDisconnected(customer);
  const connected = await upstreamCall<SandboxLink>("POST", "/links/import", {
    customer_user: { id: customer },
    institution_id: "chase",
    provider_data: { user_id: "u-1" },
  });
  expect(connected.state).toBe("connected");

  await signIn(page, "support");
  await page.goto("/links");
  const lookup = page.getByRole("form", { name: "Look up a customer's links" });
  // Bad input is refused in words before anything is sent.
  await lookup.getByLabel("A customer's links").fill("user 42!");
  await lookup.getByRole("button", { name: "Look up" }).click();
  await expect(page.getByText('A customer id holds only letters, digits and _ - . : @ + (not " ").')).toBeVisible();

  await lookup.getByLabel("A customer's links").fill(customer);
  await lookup.getByRole("button", { name: "Look up" }).click();
  const found = page.getByTestId("customer-links");
  await expect(found.getByRole("heading")).toHaveText(`Links of customer ${customer}`);
  await expect(found).toContainText("2 links, in any state");
  await expect(found).toContainText("2 new to Linkdesk");
  const rows = found.getByRole("row");
  await expect(rows).toHaveCount(3);
  // Errors first: the disconnected import, with its state and error code in words and its institution.
  await expect(rows.nth(1)).toContainText("Error");
  await expect(rows.nth(1)).toContainText(LINK_ERROR_INFO.auth_expired.label);
  await expect(rows.nth(1)).toContainText("Chase");
  await expect(rows.nth(2)).toContainText("Connected");

  // In the list, learned by the lookup, with the state read from the lookup's answer.
  const listed = await rowOnLinksPage(page, disconnected.link_id, LINK_ERROR_INFO.auth_expired.label);
  await expect(listed).toContainText("Customer lookup");

  // Each link leads to its page.
  await page.goto("/links");
  await lookup.getByLabel("A customer's links").fill(customer);
  await lookup.getByRole("button", { name: "Look up" }).click();
  await expect(found).toContainText("All of them were in Linkdesk's list already.");
  await found.getByRole("link", { name: connected.link_id }).click();
  await expect(page).toHaveURL(new RegExp(`/links/${connected.link_id}$`));

  // The lookup is in the audit trail.
  await page.goto(`/audit?action=link.lookup_customer`);
  await expect(page.getByRole("main")).toContainText(customer);
});

test("a viewer has no customer lookup, and only an admin may register a file of ids", async ({ browser, signIn }) => {
  const viewer = await (await browser.newContext()).newPage();
  await signIn(viewer, "viewer");
  await viewer.goto("/links");
  await expect(viewer.getByRole("table", { name: "Links" })).toBeVisible();
  await expect(viewer.getByRole("form", { name: "Look up a customer's links" })).toHaveCount(0);
  await viewer.context().close();

  const support = await (await browser.newContext()).newPage();
  await signIn(support, "support");
  await expect(support.getByRole("navigation").getByRole("link", { name: "Register links" })).toHaveCount(0);
  await support.goto("/admin/link-ids");
  await expect(support.getByRole("main")).toContainText("Only admins register link ids");
  await support.context().close();
});

test("an admin uploads a file of ids: lines without a link id by number, then counts of new, already known and invalid", async ({
  page,
  signIn,
}) => {
  const fresh = await importDisconnected(`discovery-file-${randomUUID()}`);
  const fixtures = (await (await fetch(`${sandboxUrl()}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  // Known already: the listing or the back end's registration at start brought it in.
  const known = fixtures.plain![0]!;
  const file = [fresh.link_id, known, "not-a-link", "", fresh.link_id, "mk_short"].join("\n");

  await signIn(page, "admin");
  await page.getByRole("navigation").getByRole("link", { name: "Register links" }).click();
  await expect(page).toHaveURL(/\/admin\/link-ids$/);
  await page
    .getByLabel("File of link ids", { exact: true })
    .setInputFiles({ name: "ids.txt", mimeType: "text/plain", buffer: Buffer.from(file) });
  const preview = page.getByTestId("link-ids-preview");
  await expect(preview).toContainText(
    "2 link ids to register (one id a line), 1 duplicate counted once, 2 lines without a link id (not registered).",
  );
  const invalid = preview.getByTestId("invalid-line");
  await expect(invalid).toHaveCount(2);
  await expect(invalid.nth(0)).toContainText("3");
  await expect(invalid.nth(0)).toContainText("does not start with mk_");
  await expect(invalid.nth(1)).toContainText("6");
  await expect(invalid.nth(1)).toContainText("too short");

  await page.getByRole("button", { name: "Register 2 link ids" }).click();
  const result = page.getByTestId("registration-result");
  await expect(result.getByTestId("registered-new")).toHaveText("1");
  await expect(result.getByTestId("registered-known")).toHaveText("1");
  await expect(result.getByTestId("registered-invalid")).toHaveText("2");

  const row = await rowOnLinksPage(page, fresh.link_id, LINK_ERROR_INFO.auth_expired.label);
  await expect(row).toContainText("Registration");
  await page.goto("/audit?action=link.register");
  await expect(page.getByRole("main")).toContainText("admin@demo.linkdesk.test");
});
