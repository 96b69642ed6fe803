import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { parseCsv } from "../lib/http/csv";
import { expect, test } from "./fixtures";
import { customerLinks, sandboxTransactions, upstreamCall } from "./sandbox-control";

// Importing against what the upstream already holds, as ops do it, each link counted at the sandbox (GET
// /users/{id}/links), never in Linkdesk's records: a fleet imported by customer, institution and accounts, then the
// same file known by legacy_id; links a script migrated straight to the upstream before Linkdesk; an extended export
// whose new transactions arrive once however often it is uploaded; a corrected one, shown and not duplicated, then
// replaced by ops' choice; an undo, then the same file again.

const account = (id: string, name = `Account ${id}`) => ({
  account_id: id,
  name,
  type: "checking",
  mask: id.slice(-4).padStart(4, "0"),
  balances: { current: 10 },
});
const txn = (accountId: string, k: number) => ({
  account_id: accountId,
  transaction_id: `t${k}`,
  amount: "-2.50",
  date: `2024-02-${String(1 + (k % 28)).padStart(2, "0")}`,
  description: `Market ${k}`,
});

function legacyLink(
  m: string,
  i: number,
  opts: { transactions?: number; institution?: string; name?: string; tagName?: string } = {},
) {
  const accountId = `${m.slice(0, 8)}-acc-${i}`;
  return {
    customer_user: { id: `${m}-cu-${i % 3}` },
    institution_id: opts.institution ?? "chase",
    accounts: [account(accountId, opts.name)],
    transactions: Array.from({ length: opts.transactions ?? 2 }, (_, k) => txn(accountId, k)),
    link_tags: [`${opts.tagName ?? "legacy_id"}:${m.slice(0, 8)}-${i}`],
  };
}

const ndjson = (links: unknown[]) => links.map((l) => JSON.stringify(l)).join("\n");

async function upload(page: Page, name: string, content: string) {
  await page
    .locator("#import-file")
    .setInputFiles({ name, mimeType: "application/json", buffer: Buffer.from(content) });
}

async function knowBy(page: Page, tag: string) {
  await page.getByLabel("Know each link by").fill(tag);
  await page.getByLabel("Know each link by").blur();
}

async function importAndFinish(page: Page, button: string | RegExp, calls: number) {
  await page.getByRole("button", { name: button }).click();
  await expect(page).toHaveURL(/\/import\?job=[0-9a-f-]{36}$/);
  await expect(page.getByTestId("job-progress")).toContainText(`Finished: ${calls} done of ${calls}.`, {
    timeout: 60_000,
  });
}

async function reconciliation(page: Page): Promise<string[][]> {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Reconciliation, every line (CSV)" }).click(),
  ]);
  return parseCsv(await readFile((await download.path())!, "utf8")).slice(1);
}

/** Live links of the file's customers at the sandbox. */
async function liveLinks(customers: string[]) {
  const all = await Promise.all(customers.map((c) => customerLinks(c)));
  return all.flat().filter((l) => l.state !== "deleted");
}

test.describe.configure({ mode: "parallel" });

test("a fleet imported by customer, institution and accounts, then known by legacy_id: nothing is created twice", async ({
  page,
  signIn,
}) => {
  test.setTimeout(180_000);
  const m = randomUUID();
  const fleet = Array.from({ length: 6 }, (_, i) => legacyLink(m, i));
  const customers = [...new Set(fleet.map((l) => l.customer_user.id))];
  await signIn(page, "ops");
  await page.goto("/import");
  await upload(page, "fleet.ndjson", ndjson(fleet));
  await expect(page.getByTestId("upstream-summary")).toContainText("None of the file's links is there: each is new.");
  await importAndFinish(page, "Import 6 new links", 6);
  expect(await liveLinks(customers)).toHaveLength(6);

  await page.getByRole("link", { name: "Import another file" }).click();
  await knowBy(page, "legacy_id");
  await upload(page, "fleet.ndjson", ndjson(fleet));
  await expect(page.getByTestId("plan")).toContainText("Nothing new to import");
  await expect(page.getByTestId("dry-run")).toContainText("0 new links");
  await expect(page.getByTestId("dry-run")).toContainText("6 at the upstream already");
  const rows = page.getByTestId("upstream-match");
  await expect(rows).toHaveCount(6);
  await expect(rows.first()).toContainText("by Linkdesk's identity tag");
  await expect(page.getByRole("button", { name: "Import 0 new links" })).toBeDisabled();
  expect(await liveLinks(customers)).toHaveLength(6);
});

test("links a script migrated before Linkdesk are offered as possible matches, imported only when ops say they differ", async ({
  page,
  signIn,
}) => {
  test.setTimeout(120_000);
  const m = randomUUID();
  // A tag name of this test's own: legacy_id, named by other imports on this dashboard, identifies links everywhere.
  const tagName = `ref${m.slice(0, 8)}`;
  const fleet = [legacyLink(m, 0, { tagName }), legacyLink(m, 1, { tagName })];
  for (const link of fleet) await upstreamCall("POST", "/links/import", link);
  const customers = fleet.map((l) => l.customer_user.id);

  await signIn(page, "ops");
  await page.goto("/import");
  await upload(page, "migrated.ndjson", ndjson(fleet));
  const rows = page.getByTestId("upstream-match");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText("Possibly at the upstream: decide");
  await expect(rows.nth(0)).toContainText("the same customer, institution and accounts");
  await expect(page.getByRole("button", { name: "Import 0 new links" })).toBeDisabled();

  // The first is the same link (nothing happens to it); the second, ops say, is another link: imported.
  await rows.nth(0).getByTestId("possible-decision").selectOption({ label: "The same link: not imported" });
  await rows.nth(1).getByTestId("possible-decision").selectOption({ label: "A different link: import it" });
  await expect(page.getByTestId("plan")).toContainText("1 import call for 1 new link");
  await importAndFinish(page, "Import 1 new link", 1);
  const report = await reconciliation(page);
  expect(report.map((r) => r[4])).toEqual(["at_upstream", "created"]);
  expect(await liveLinks([customers[0]!])).toHaveLength(1);
  expect(await liveLinks([customers[1]!])).toHaveLength(2);

  // Known by the legacy_id tag both carry, the same file holds nothing new.
  await page.getByRole("link", { name: "Import another file" }).click();
  await knowBy(page, tagName);
  await upload(page, "migrated.ndjson", ndjson([fleet[0]]));
  await expect(page.getByTestId("upstream-match").first()).toContainText("At the upstream already");
  await expect(page.getByTestId("upstream-match").first()).toContainText(`by tag ${tagName}:${m.slice(0, 8)}-0`);
});

test("an extended export adds its new transactions once, however often it is uploaded; a corrected one is shown, not duplicated, and replaced when ops choose", async ({
  page,
  signIn,
}) => {
  test.setTimeout(180_000);
  const m = randomUUID();
  // A tag name no import names (legacy_id is an identity on this dashboard once any import names it).
  const tagName = `ref${m.slice(0, 8)}`;
  const first = legacyLink(m, 0, { transactions: 3, tagName });
  const customer = first.customer_user.id;
  await signIn(page, "ops");
  await page.goto("/import");
  await upload(page, "one.ndjson", ndjson([first]));
  await importAndFinish(page, "Import 1 new link", 1);
  const [created] = await liveLinks([customer]);

  const extended = legacyLink(m, 0, { transactions: 28, tagName });
  await page.getByRole("link", { name: "Import another file" }).click();
  await upload(page, "one-extended.ndjson", ndjson([extended]));
  const row = page.getByTestId("upstream-match").first();
  await expect(row).toContainText(created!.link_id);
  await expect(row).toContainText("25 new transactions");
  await expect(page.getByRole("table", { name: "Links in the file" })).toContainText(
    "At the upstream: updated (+25 transactions)",
  );
  await importAndFinish(page, "Import 0 new links and update 1", 1);
  expect((await reconciliation(page)).map((r) => [r[4], r[5]])).toEqual([["updated", created!.link_id]]);
  expect(await sandboxTransactions(created!.link_id)).toHaveLength(28);

  // Uploaded again: nothing new, nothing sent.
  await page.getByRole("link", { name: "Import another file" }).click();
  await upload(page, "one-extended.ndjson", ndjson([extended]));
  await expect(page.getByTestId("plan")).toContainText("Nothing new to import");
  expect(await sandboxTransactions(created!.link_id)).toHaveLength(28);

  // Corrected: the institution and an account's name fixed in the old system. The upstream cannot change either after
  // an import, so the link is offered as a possible match with both differences, and nothing is sent.
  const corrected = legacyLink(m, 0, { transactions: 28, institution: "ally", name: "Everyday checking", tagName });
  await upload(page, "one-corrected.ndjson", ndjson([corrected]));
  const possible = page.getByTestId("upstream-match").first();
  await expect(possible).toContainText("Possibly at the upstream: decide");
  await expect(possible).toContainText("institution: the file has ally, the upstream");
  await expect(possible).toContainText("name: the file has Everyday checking");
  await expect(possible).toContainText("The upstream keeps its own institution");
  await expect(page.getByRole("button", { name: "Import 0 new links" })).toBeDisabled();
  expect(await liveLinks([customer])).toHaveLength(1);

  // Ops replace it: the upstream's copy is deleted, then the file's link imported with the corrected institution.
  await possible.getByTestId("possible-decision").selectOption({ label: "The same link: replace it with the file’s" });
  await expect(page.getByRole("table", { name: "Links in the file" })).toContainText(
    `Replaces upstream link ${created!.link_id}`,
  );
  await importAndFinish(page, "Import 1 new link", 2);
  const [replaced] = await reconciliation(page);
  expect(replaced![4]).toBe("replaced");
  expect(replaced![6]).toContain(`Replaces upstream link ${created!.link_id}`);
  const live = await liveLinks([customer]);
  expect(live).toHaveLength(1);
  expect(live[0]!.link_id).toBe(replaced![5]);
  expect(live[0]!.link_id).not.toBe(created!.link_id);
  expect(live[0]!.institution_id).toBe("ally");
  expect((await customerLinks(customer)).find((l) => l.link_id === created!.link_id)?.state).toBe("deleted");
  expect(await sandboxTransactions(live[0]!.link_id)).toHaveLength(28);
});

test("after an undo the report says who deleted the links, and the same file offers them to import again by choice", async ({
  page,
  signIn,
}) => {
  test.setTimeout(180_000);
  const m = randomUUID();
  const fleet = [legacyLink(m, 0), legacyLink(m, 1)];
  const customers = fleet.map((l) => l.customer_user.id);
  await signIn(page, "ops");
  await page.goto("/import");
  await upload(page, "undo.ndjson", ndjson(fleet));
  await importAndFinish(page, "Import 2 new links", 2);
  const importPage = page.url();

  await page.getByRole("button", { name: "Delete the links this import created…" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete 2 links" }).click();
  await expect(async () => {
    expect(await liveLinks(customers)).toHaveLength(0);
  }).toPass({ timeout: 60_000 });
  await page.goto(importPage);
  await expect(async () => {
    const report = await reconciliation(page);
    expect(report.map((r) => r[4])).toEqual(["deleted", "deleted"]);
    expect(report[0]![6]).toMatch(/was deleted by ops@\S+ on \d{4}-\d\d-\d\d/);
  }).toPass({ timeout: 30_000 });

  await page.getByRole("link", { name: "Import another file" }).click();
  await upload(page, "undo.ndjson", ndjson(fleet));
  const rows = page.getByTestId("upstream-match");
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText("Deleted at the upstream");
  await expect(page.getByRole("button", { name: "Import 0 new links" })).toBeDisabled();
  await rows.nth(1).getByTestId("import-again").check();
  await expect(page.getByTestId("plan")).toContainText("1 import call for 1 new link");
  await importAndFinish(page, "Import 1 new link", 1);
  expect(await liveLinks(customers)).toHaveLength(1);
});
