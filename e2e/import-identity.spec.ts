import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Locator, Page } from "@playwright/test";
import { parseCsv } from "../lib/http/csv";
import { expect, test } from "./fixtures";
import { clearFaults, customerLinks, sandboxRequests, setFaults, standingFaults } from "./sandbox-control";

// Imports know each link by its identity (customer user, institution, account ids; or a link_tags field ops name),
// whatever the file's bytes. Ops upload the same links again minified, extended with one more, corrected after a bad
// amount, and with one link listed twice: every link reaches the upstream once, even when an import call's answer is
// lost, and each reconciliation report has one row per line of its file with what became of it.

type LegacyLink = Record<string, unknown>;

const account = (id: string) => ({
  account_id: id,
  name: `Account ${id}`,
  type: "checking",
  balances: { current: 10 },
});
const txn = (accountId: string, k: number, amount = "-4.20") => ({
  account_id: accountId,
  transaction_id: `t${k}`,
  amount,
  date: `2024-03-1${k}`,
  description: `Corner shop ${k}`,
});

/** The same link with its keys in reverse order: another export tool's way of writing it. */
const reordered = (link: LegacyLink): LegacyLink => Object.fromEntries(Object.entries(link).reverse());

const ndjson = (links: LegacyLink[]) => links.map((l) => JSON.stringify(l)).join("\n");

/** Lines where each link of a pretty-printed array starts (from 1), as the reports count them. */
const startLines = (pretty: string) => pretty.split("\n").flatMap((text, i) => (text === "  {" ? [i + 1] : []));

async function upload(page: Page, name: string, content: string) {
  await page
    .locator("#import-file")
    .setInputFiles({ name, mimeType: "application/json", buffer: Buffer.from(content) });
}

/** Chooses a file as a person does: a click on the drop zone (which takes the focus from any field), then the picker. */
async function choose(page: Page, name: string, content: string) {
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByTestId("drop-zone").click()]);
  await chooser.setFiles({ name, mimeType: "application/json", buffer: Buffer.from(content) });
}

/** A CSV file the page offers, downloaded as the browser does; its records, header first. */
async function downloadCsv(page: Page, link: Locator): Promise<string[][]> {
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  return parseCsv(await readFile((await download.path())!, "utf8"));
}

const RECONCILIATION_HEADER = [
  "line",
  "identity_key",
  "customer_user_id",
  "tags",
  "outcome",
  "link_id",
  "reason",
  "position",
  "json_path",
  "column",
];

/** A reconciliation report's rows as [line, customer, outcome, link id], after checking its header. */
function outcomes(records: string[][]): string[][] {
  const [header, ...rows] = records;
  expect(header).toEqual(RECONCILIATION_HEADER);
  return rows.map((r) => [r[0]!, r[2]!, r[4]!, r[5]!]);
}

/** Starts the import the server planned and follows it to its end on the page; the job's address. */
async function importAndFinish(page: Page, button: string, calls: number): Promise<string> {
  await page.getByRole("button", { name: button }).click();
  await expect(page).toHaveURL(/\/import\?job=[0-9a-f-]{36}$/);
  await expect(page.getByTestId("job-progress")).toContainText(`Finished: ${calls} done of ${calls}.`, {
    timeout: 60_000,
  });
  return page.url();
}

test.describe("as ops", () => {
  test.afterEach(async () => {
    await clearFaults();
  });

  test("the same links re-uploaded minified, extended, corrected and listed twice are each imported once", async ({
    page,
    signIn,
  }) => {
    test.setTimeout(180_000);
    const m = randomUUID();
    const customer = { ada: `${m}-ada`, bob: `${m}-bob`, cy: `${m}-cy`, dee: `${m}-dee`, eve: `${m}-eve` };
    const ada = {
      customer_user: { id: customer.ada },
      institution_id: "chase",
      provider: "mx",
      provider_data: { user_id: "u-ada" },
      accounts: [account("chk"), account("sav")],
      transactions: [txn("chk", 1), txn("sav", 2)],
    };
    const bob = {
      customer_user: { id: customer.bob },
      institution_id: "mx.wells_fargo",
      accounts: [account("a1")],
      transactions: [txn("a1", 1)],
    };
    const cyBad = {
      customer_user: { id: customer.cy },
      institution_id: "ally",
      accounts: [account("a1")],
      transactions: [txn("a1", 1, "12,50"), txn("a1", 2)],
    };
    const cy = { ...cyBad, transactions: [txn("a1", 1, "12.50"), txn("a1", 2)] };
    const dee = {
      customer_user: { id: customer.dee },
      institution_id: "chase",
      accounts: [account("a1")],
      transactions: [txn("a1", 3)],
    };
    const eve = {
      customer_user: { id: customer.eve },
      institution_id: "ally",
      accounts: [account("x1"), account("x2")],
      transactions: [txn("x1", 4)],
    };
    // The same link as `eve` written again further down: accounts in another order, keys in another order.
    const eveAgain = reordered({ ...eve, accounts: [account("x2"), account("x1")] });
    const importCallsBefore = await sandboxRequests("POST /links/import");

    await signIn(page, "ops");
    await page.goto("/import");

    // 1. The first export: pretty-printed, one link with an amount written with a decimal comma.
    const first = JSON.stringify([ada, bob, cyBad], null, 2);
    const firstLines = startLines(first);
    expect(firstLines).toHaveLength(3);
    await upload(page, "legacy.json", first);
    await expect(page.getByTestId("file-summary")).toContainText("3 links, 2 valid, 1 with problems");
    const invalid = page.getByTestId("invalid-links");
    await expect(invalid).toContainText(`#3 ($[2], line ${firstLines[2]})`);
    await expect(invalid).toContainText("transactions[0].amount");
    await expect(invalid).toContainText("is not a number");
    await expect(page.getByTestId("plan")).toContainText("2 import calls for 2 new links");
    // The validation report before anything is sent: every line, and what the import would do with it.
    const validation = await downloadCsv(page, page.getByRole("button", { name: "Download validation report (CSV)" }));
    expect(outcomes(validation)).toEqual([
      [String(firstLines[0]), customer.ada, "to_import", ""],
      [String(firstLines[1]), customer.bob, "to_import", ""],
      [String(firstLines[2]), customer.cy, "invalid", ""],
    ]);
    expect(validation[3]![6]).toContain("amount");

    await importAndFinish(page, "Import 2 new links", 2);
    await expect(page.getByTestId("links-imported")).toHaveText(
      "2 of 2 new links created. Of the file’s 3 lines: 0 already imported, 0 listed twice, 1 invalid.",
    );
    let report = outcomes(
      await downloadCsv(page, page.getByRole("link", { name: "Reconciliation, every line (CSV)" })),
    );
    const adaId = report[0]![3]!;
    const bobId = report[1]![3]!;
    expect(adaId).toMatch(/^mk_/);
    expect(bobId).toMatch(/^mk_/);
    expect(report).toEqual([
      [String(firstLines[0]), customer.ada, "created", adaId],
      [String(firstLines[1]), customer.bob, "created", bobId],
      [String(firstLines[2]), customer.cy, "invalid", ""],
    ]);
    const results = page.getByRole("table", { name: "Results per link" });
    await expect(results.getByRole("row")).toHaveCount(4);
    await expect(results.getByRole("row").nth(1)).toContainText(`Created${customer.ada}${adaId}`);
    await expect(results.getByRole("row").nth(3)).toContainText("Invalid");

    // 2. The same links minified, keys in another order (the broken one still broken): nothing new.
    await page.getByRole("link", { name: "Import another file" }).click();
    await upload(page, "legacy.min.json", JSON.stringify([reordered(ada), reordered(bob), reordered(cyBad)]));
    await expect(page.getByTestId("file-summary")).toContainText("3 links, 2 valid, 1 with problems");
    await expect(page.getByTestId("plan")).toContainText(
      "Nothing new to import: every link of the file that can be imported is imported already.",
    );
    const known = page.getByTestId("known-links").getByRole("listitem");
    await expect(known).toHaveCount(2);
    await expect(known.nth(0)).toContainText(`already imported, link ${adaId}`);
    await expect(known.nth(1)).toContainText(`already imported, link ${bobId}`);
    await expect(page.getByRole("button", { name: "Import 0 new links" })).toBeDisabled();

    // 3. Extended with one more link; the upstream applies its import but the answer is lost on the way back.
    await upload(page, "legacy-more.ndjson", ndjson([ada, bob, dee]));
    await expect(page.getByText("2 links were imported before: skipped")).toBeVisible();
    await expect(page.getByTestId("plan")).toContainText("1 import call for 1 new link");
    await setFaults({ malformed: true, paths: ["/links/import"], count: 1 });
    await importAndFinish(page, "Import 1 new link", 1);
    expect(await standingFaults(), "the import call's answer was lost").toBeNull();
    await expect(page.getByTestId("links-imported")).toHaveText(
      "1 of 1 new link created. Of the file’s 3 lines: 2 already imported, 0 listed twice, 0 invalid.",
    );
    report = outcomes(await downloadCsv(page, page.getByRole("link", { name: "Reconciliation, every line (CSV)" })));
    const deeId = report[2]![3]!;
    expect(deeId).toMatch(/^mk_/);
    expect(report).toEqual([
      ["1", customer.ada, "already_imported", adaId],
      ["2", customer.bob, "already_imported", bobId],
      ["3", customer.dee, "created", deeId],
    ]);

    // 4. The first export corrected: the broken amount fixed, everything else as it was.
    await page.getByRole("link", { name: "Import another file" }).click();
    await upload(page, "legacy-fixed.json", JSON.stringify([ada, bob, cy], null, 2));
    await expect(page.getByTestId("file-summary")).toContainText("3 links, 3 valid, 0 with problems");
    await expect(page.getByText("2 links were imported before: skipped")).toBeVisible();
    await importAndFinish(page, "Import 1 new link", 1);
    report = outcomes(await downloadCsv(page, page.getByRole("link", { name: "Reconciliation, every line (CSV)" })));
    const cyId = report[2]![3]!;
    expect(cyId).toMatch(/^mk_/);
    expect(report).toEqual([
      [String(firstLines[0]), customer.ada, "already_imported", adaId],
      [String(firstLines[1]), customer.bob, "already_imported", bobId],
      [String(firstLines[2]), customer.cy, "created", cyId],
    ]);

    // 5. One new link listed twice in the same file, between two known ones.
    await page.getByRole("link", { name: "Import another file" }).click();
    await upload(page, "legacy-twice.ndjson", ndjson([eve, ada, eveAgain, dee]));
    await expect(page.getByTestId("duplicates")).toContainText("#3 (line 3) is the same link as #1 (line 1)");
    await expect(page.getByText("2 links were imported before: skipped")).toBeVisible();
    await expect(page.getByTestId("plan")).toContainText("1 import call for 1 new link");
    await expect(page.getByTestId("plan")).toContainText(
      "2 already imported are skipped; 1 link listed twice is imported once.",
    );
    await importAndFinish(page, "Import 1 new link", 1);
    await expect(page.getByTestId("links-imported")).toHaveText(
      "1 of 1 new link created. Of the file’s 4 lines: 2 already imported, 1 listed twice, 0 invalid.",
    );
    const records = await downloadCsv(page, page.getByRole("link", { name: "Reconciliation, every line (CSV)" }));
    report = outcomes(records);
    const eveId = report[0]![3]!;
    expect(eveId).toMatch(/^mk_/);
    expect(report).toEqual([
      ["1", customer.eve, "created", eveId],
      ["2", customer.ada, "already_imported", adaId],
      ["3", customer.eve, "duplicate", ""],
      ["4", customer.dee, "already_imported", deeId],
    ]);
    // Both lines of the twice-listed link carry the same identity key, which is how the report matches them up.
    expect(records[3]![1]).toBe(records[1]![1]);
    expect(records[3]![6]).toContain("line 1");

    // The upstream holds each customer's link once, and was sent one import call per link (the lost answer was found,
    // not sent again).
    const expected: [string, string][] = [
      [customer.ada, adaId],
      [customer.bob, bobId],
      [customer.cy, cyId],
      [customer.dee, deeId],
      [customer.eve, eveId],
    ];
    for (const [customerUserId, linkId] of expected) {
      const links = await customerLinks(customerUserId);
      expect(
        links.map((l) => l.link_id),
        customerUserId,
      ).toEqual([linkId]);
    }
    expect(await sandboxRequests("POST /links/import")).toBe(importCallsBefore + 5);
  });

  test("a link_tags field ops name knows links whose account ids changed between exports", async ({ page, signIn }) => {
    test.setTimeout(120_000);
    const m = randomUUID();
    const link = (legacyId: string, customerUserId: string, accountId: string) => ({
      customer_user: { id: customerUserId },
      institution_id: "chase",
      link_tags: [`legacy_id:${legacyId}`, "source:old-aggregator"],
      accounts: [account(accountId)],
      transactions: [txn(accountId, 1)],
    });
    const first = [link(`${m}-1`, `${m}-fay`, "old-1"), link(`${m}-2`, `${m}-gus`, "old-2")];
    // The old system renumbered its accounts between the two exports; the legacy link ids stayed.
    const second = [link(`${m}-1`, `${m}-fay`, "acc-1"), link(`${m}-2`, `${m}-gus`, "acc-2")];

    await signIn(page, "ops");
    await page.goto("/import");
    await page.getByLabel("Know each link by").fill("legacy_id");
    await choose(page, "tagged.ndjson", ndjson(first));
    await expect(page.getByTestId("plan")).toContainText("2 import calls for 2 new links");
    await importAndFinish(page, "Import 2 new links", 2);
    const records = await downloadCsv(page, page.getByRole("link", { name: "Reconciliation, every line (CSV)" }));
    expect(records.slice(1).map((r) => r[3])).toEqual([
      `legacy_id:${m}-1 source:old-aggregator`,
      `legacy_id:${m}-2 source:old-aggregator`,
    ]);
    expect(records.slice(1).map((r) => r[4])).toEqual(["created", "created"]);
    const ids = records.slice(1).map((r) => r[5]!);

    // By the tag the renumbered export holds nothing new; a line without the tag cannot be known, so is not imported.
    await page.getByRole("link", { name: "Import another file" }).click();
    await page.getByLabel("Know each link by").fill("legacy_id");
    const untagged = {
      customer_user: { id: `${m}-hal` },
      institution_id: "chase",
      accounts: [account("h1")],
      transactions: [txn("h1", 1)],
    };
    await choose(page, "tagged-again.ndjson", ndjson([...second, untagged]));
    await expect(page.getByTestId("file-summary")).toContainText("3 links, 2 valid, 1 with problems");
    await expect(page.getByTestId("invalid-links")).toContainText('has no link_tags entry "legacy_id:…"');
    await expect(page.getByTestId("plan")).toContainText("Nothing new to import");
    // The upstream's copies keep their old account ids, which no call can change: each is listed with that
    // difference, kept unless ops choose to replace it, rather than called plainly "already imported".
    const renumbered = page.getByTestId("upstream-match");
    await expect(renumbered).toHaveCount(2);
    for (const [i, id] of ids.entries()) {
      await expect(renumbered.nth(i)).toContainText(`Already at the upstream as link ${id} (by`);
      await expect(renumbered.nth(i)).toContainText(`acc-${i + 1}`);
      await expect(renumbered.nth(i).getByTestId("replace-decision")).toHaveValue("keep");
    }

    // Known by customer, institution and accounts instead, the file reads as three links; but the upstream holds two
    // of them under their legacy_id tags (named in the earlier import), so only the untagged one is new.
    await page.getByLabel("Know each link by").fill("");
    await page.getByLabel("Know each link by").blur();
    await expect(page.getByTestId("file-summary")).toContainText("3 links, 3 valid, 0 with problems");
    await expect(page.getByTestId("plan")).toContainText("1 import call for 1 new link");
    const matches = page.getByTestId("upstream-match");
    await expect(matches).toHaveCount(2);
    for (const [i, id] of ids.entries()) {
      await expect(matches.nth(i)).toContainText(`#${i + 1}`);
      await expect(matches.nth(i)).toContainText(
        `Already at the upstream as link ${id} (by tag legacy_id:${m}-${i + 1})`,
      );
    }
    await importAndFinish(page, "Import 1 new link", 1);
    for (const customerUserId of [`${m}-fay`, `${m}-gus`]) expect(await customerLinks(customerUserId)).toHaveLength(1);
  });
});
