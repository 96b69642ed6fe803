import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";
import { sandboxTransactions } from "./sandbox-control";

// The upstream's import takes no category: ops who tick "Carry the file's legacy categories over" get each imported
// transaction whose legacy category differs upstream corrected to it, as part of the same job.

test("ops carry a file's legacy categories over to the imported transactions", async ({ page, signIn }) => {
  test.setTimeout(120_000);
  const m = randomUUID();
  // Descriptions the upstream does not file under clothing; the old system did, in its deprecated dotted form.
  const transactions = [1, 2, 3].map((k) => ({
    account_id: "a1",
    transaction_id: `t${k}`,
    amount: "-19.99",
    date: `2024-06-1${k}`,
    description: `Payment ${m.slice(0, 8)} ${k}`,
    category: "shopping.clothing_and_accessories",
  }));
  // One the old system filed under a category of its own, which no category of the upstream's taxonomy matches.
  const odd = { ...transactions[0]!, transaction_id: "t4", category: "Misc (old system)" };
  const link = {
    customer_user: { id: `${m}-ivy` },
    institution_id: "chase",
    accounts: [{ account_id: "a1", name: "Checking", type: "checking", balances: { current: 10 } }],
    transactions: [...transactions, odd],
  };

  await signIn(page, "ops");
  await page.goto("/import");
  await page.locator("#import-file").setInputFiles({
    name: "with-categories.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(link)),
  });
  const carry = page.getByTestId("carry-categories");
  await expect(carry).not.toBeChecked();
  await expect(page.getByText("Carry the file’s legacy categories over")).toContainText(
    "up to 3 Correct Enrichment calls over 1 link",
  );
  // What cannot be carried over is listed by name, with the first transaction carrying it.
  await expect(page.getByTestId("unmapped-categories")).toHaveText(
    "“Misc (old system)” in 1 link; first at #1 (line 1), transactions[3]",
  );
  await carry.check();
  await page.getByRole("button", { name: "Import 1 new link" }).click();
  await expect(page).toHaveURL(/\/import\?job=[0-9a-f-]{36}$/);
  await expect(page.getByTestId("job-progress")).toContainText("Finished: 4 done of 4.", { timeout: 60_000 });
  // One import call and one correction for each transaction.
  await expect(page.getByTestId("links-imported")).toContainText("1 of 1 new link created.");
  const results = page.getByRole("table", { name: "Results per link" });
  const linkId = (await results.getByRole("row").nth(1).getByRole("link").textContent())!.trim();
  expect(linkId).toMatch(/^mk_/);

  const upstream = await sandboxTransactions(linkId);
  expect(upstream).toHaveLength(4);
  for (const t of upstream.filter((t) => t.original_id !== "t4")) {
    expect(t.enrichment?.category.value, t.transaction_id).toBe("shopping");
    expect(t.enrichment?.subcategory?.value, t.transaction_id).toBe("clothing_and_accessories");
  }
});
