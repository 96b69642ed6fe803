import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { customerLinks, reconnectLink, sandboxLink } from "./sandbox-control";

// Undoing an import as ops do it: "Delete the links this import created…" names how many links go and which were
// reconnected since (kept unless ticked); the deletions run as a job, each audited; the upstream then answers those
// links as deleted, and a later file may import them again. A kept link can still be deleted afterwards, ticked.

const account = (id: string) => ({
  account_id: id,
  name: `Account ${id}`,
  type: "checking",
  balances: { current: 10 },
});
const txn = (k: number) => ({
  account_id: "a1",
  transaction_id: `t${k}`,
  amount: "-3.10",
  date: `2024-05-1${k}`,
  description: `Bakery ${k}`,
});

async function upload(page: Page, name: string, content: string) {
  await page
    .locator("#import-file")
    .setInputFiles({ name, mimeType: "application/json", buffer: Buffer.from(content) });
}

/** The audit trail filtered as ops filter it: one action on one link. */
async function auditRows(page: Page, action: string, linkId: string) {
  await page.goto("/audit");
  const filters = page.getByRole("form", { name: "Filter the audit trail" });
  await filters.getByRole("combobox", { name: "Action", exact: true }).selectOption({ label: action });
  await filters.getByRole("textbox", { name: "Link id", exact: true }).fill(linkId);
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`link=${linkId}`));
  return page.getByRole("row").filter({ hasText: action });
}

test("ops undo an import: its links are deleted upstream and audited, one reconnected since is kept until ticked", async ({
  page,
  signIn,
}) => {
  test.setTimeout(180_000);
  const m = randomUUID();
  const customer = { kim: `${m}-kim`, lou: `${m}-lou`, max: `${m}-max` };
  const file = [
    {
      customer_user: { id: customer.kim },
      institution_id: "chase",
      provider: "mx",
      provider_data: { user_id: "u-kim" },
      accounts: [account("a1")],
      transactions: [txn(1)],
    },
    { customer_user: { id: customer.lou }, institution_id: "ally", accounts: [account("a1")], transactions: [txn(2)] },
    { customer_user: { id: customer.max }, institution_id: "ally", accounts: [account("a1")], transactions: [txn(3)] },
  ]
    .map((l) => JSON.stringify(l))
    .join("\n");

  await signIn(page, "ops");
  await page.goto("/import");
  await upload(page, "small.ndjson", file);
  await page.getByRole("button", { name: "Import 3 new links" }).click();
  await expect(page).toHaveURL(/\/import\?job=[0-9a-f-]{36}$/);
  const importUrl = page.url();
  await expect(page.getByTestId("job-progress")).toContainText("Finished: 3 done of 3.", { timeout: 60_000 });
  const results = page.getByRole("table", { name: "Results per link" });
  await expect(results.getByRole("row")).toHaveCount(4);
  const linkIdOf = async (row: number) =>
    (await results.getByRole("row").nth(row).getByRole("link").textContent())!.trim();
  const kimId = await linkIdOf(1);
  const louId = await linkIdOf(2);
  const maxId = await linkIdOf(3);
  await expect(results.getByRole("row").nth(2)).toContainText("Disconnected (auth_expired)");

  // Lou's customer links again (imported without credentials, the link was disconnected); ops look at the link.
  expect((await reconnectLink(louId, customer.lou)).state).toBe("connected");
  await results.getByRole("link", { name: louId }).click();
  await expect(page).toHaveURL(new RegExp(`/links/${louId}$`));
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByText("Refreshed: connected")).toBeVisible();

  // The confirmation names what goes and what stays.
  await page.goto(importUrl);
  await page.getByRole("button", { name: "Delete the links this import created…" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByText("Delete 2 links this import created?")).toBeVisible();
  await expect(dialog).toContainText("1 link was reconnected since the import and is kept unless you tick it:");
  const keep = dialog.getByRole("checkbox");
  await expect(keep).toHaveCount(1);
  await expect(keep).not.toBeChecked();
  await expect(dialog.locator("label")).toContainText(
    `Line 2: ${louId} (customer ${customer.lou}), error (auth_expired) when imported, connected now`,
  );
  await dialog.getByRole("button", { name: "Delete 2 links" }).click();
  await expect(page.getByTestId("undo-started")).toHaveText(
    "Deleting 2 links, keeping 1 reconnected since: follow the undo.",
  );
  await page.getByRole("link", { name: "follow the undo" }).click();
  await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("job-progress")).toContainText("Finished: 2 done, 1 skipped of 3.", {
    timeout: 60_000,
  });

  // Upstream: the two links are deleted, the reconnected one is still there and connected.
  expect((await sandboxLink(kimId)).state).toBe("deleted");
  expect((await sandboxLink(maxId)).state).toBe("deleted");
  expect((await sandboxLink(louId)).state).toBe("connected");

  // The audit trail has a deletion for each link deleted, and none for the one kept.
  for (const linkId of [kimId, maxId]) {
    const rows = await auditRows(page, "Link deleted", linkId);
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText("Ops");
    await expect(rows).toContainText("Done");
  }
  await auditRows(page, "Link deleted", louId);
  await expect(page.getByRole("row").filter({ hasText: "Link deleted" })).toHaveCount(0);

  // The deleted links' identities are free again: the same file says they were deleted at the upstream and imports
  // them anew only when ops tick them; the kept one is already imported.
  await page.goto("/import");
  await upload(page, "small-again.ndjson", file);
  const deleted = page.getByTestId("upstream-match");
  await expect(deleted).toHaveCount(2);
  await expect(deleted.first()).toContainText("Deleted at the upstream");
  const known = page.getByTestId("known-links").getByRole("listitem");
  await expect(known).toHaveCount(1);
  await expect(known).toContainText(`#2 (line 2): already imported, link ${louId}`);
  await expect(page.getByRole("button", { name: "Import 0 new links" })).toBeDisabled();
  await deleted.nth(0).getByTestId("import-again").check();
  await expect(page.getByTestId("plan")).toContainText("1 import call for 1 new link");
  await deleted.nth(1).getByTestId("import-again").check();
  await expect(page.getByTestId("plan")).toContainText("2 import calls for 2 new links");

  // Undoing again offers only the kept link, deleted once ticked.
  await page.goto(importUrl);
  await page.getByRole("button", { name: "Delete the links this import created…" }).click();
  await expect(dialog.getByRole("button", { name: "Delete 0 links" })).toBeDisabled();
  await dialog.getByRole("checkbox").check();
  await dialog.getByRole("button", { name: "Delete 1 link" }).click();
  await expect(page.getByTestId("undo-started")).toHaveText("Deleting 1 link: follow the undo.");
  await page.getByRole("link", { name: "follow the undo" }).click();
  await expect(page.getByTestId("job-progress")).toContainText("Finished: 1 done of 1.", { timeout: 60_000 });
  expect((await sandboxLink(louId)).state).toBe("deleted");
  for (const customerUserId of Object.values(customer)) {
    expect(
      (await customerLinks(customerUserId)).map((l) => l.state),
      customerUserId,
    ).toEqual(["deleted"]);
  }
});
