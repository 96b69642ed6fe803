import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { parseCsv } from "../lib/http/csv";
import { IMPORT_MAX_BYTES } from "../lib/upstream/schemas";
import { expect, test } from "./fixtures";
import { clearFaults, sandboxRequests, setFaults } from "./sandbox-control";
import { signInAs } from "./session";

// Ops import a fleet file as they would: choose it, read what is wrong with the broken link, import the rest, reload
// in the middle and watch the job finish; the same file again has nothing new (each link is known by its identity) and
// starts nothing. Bad files each get a clear message and the page stays usable. Support has no Import page.

const account = (id: string) => ({
  account_id: id,
  name: `Account ${id}`,
  type: "checking",
  balances: { current: 10 },
});
const txns = (n: number) =>
  Array.from({ length: n }, (_, k) => ({
    account_id: "a1",
    transaction_id: `t${k}`,
    amount: "-2.50",
    date: `2024-0${1 + (k % 9)}-1${k % 10}`,
    description: `Shop ${k}`,
  }));

function fleetFile(marker: string): string {
  const links = [
    {
      customer_user: { id: `fleet-${marker}-1` },
      institution_id: "chase",
      provider: "mx",
      provider_data: { user_id: "u-1" },
      accounts: [account("a1")],
      transactions: txns(3),
    },
    {
      customer_user: { id: `fleet-${marker}-2` },
      institution_id: "mx.wells_fargo",
      accounts: [account("a1")],
      transactions: txns(4_500),
    },
    {
      customer_user: { email: { address: "no-id@example.com" } },
      institution_id: "chase",
      provider: "acme",
      accounts: [account("a1")],
      transactions: txns(1),
    },
    ...Array.from({ length: 5 }, (_, i) => ({
      customer_user: { id: `fleet-${marker}-${i + 4}` },
      institution_id: "ally",
      accounts: [account("a1")],
      transactions: txns(2),
    })),
  ];
  return links.map((l) => JSON.stringify(l)).join("\n");
}

async function upload(page: Page, name: string, content: string | Buffer) {
  await page.locator("#import-file").setInputFiles({
    name,
    mimeType: "application/json",
    buffer: typeof content === "string" ? Buffer.from(content) : content,
  });
}

test.describe("as ops", () => {
  test.afterEach(async () => {
    await clearFaults();
  });

  test("imports a fleet file with one broken link, survives a reload mid-job, and never imports the file twice", async ({
    page,
    signIn,
  }) => {
    test.setTimeout(120_000);
    await signIn(page, "ops");
    await page.getByRole("link", { name: "Import" }).click();
    await expect(page).toHaveURL(/\/import$/);
    await expect(page.getByText("up to 25 MB").first()).toBeVisible();
    const file = fleetFile(randomUUID());
    await upload(page, "fleet.ndjson", file);

    await expect(page.getByTestId("file-summary")).toContainText("8 links, 7 valid, 1 with problems");
    const invalid = page.getByTestId("invalid-links");
    await expect(invalid).toContainText("1 link cannot be imported; the 7 valid ones can go ahead.");
    await expect(invalid).toContainText("#3 (line 3)");
    await expect(invalid.getByText("customer_user.id", { exact: true })).toBeVisible();
    await expect(invalid).toContainText("is missing");
    await expect(invalid).toContainText('"acme" is not a known provider');
    // The server checks the file at once against every link imported before (nothing is sent) and plans what is new.
    await expect(page.getByTestId("plan")).toContainText("7 import calls and 1 transaction batch for 7 new links");
    const preview = page.getByRole("table", { name: "Links in the file" });
    await expect(preview.getByRole("row").nth(1)).toContainText("Connected");
    await expect(preview.getByRole("row").nth(2)).toContainText("Disconnected (auth_expired)");
    await expect(preview.getByRole("row").nth(2)).toContainText("4,500");
    // Institutions are named (looked up once per distinct id on the server); an id the upstream does not know shows alone.
    await expect(preview.getByRole("row").nth(1).getByTestId("institution")).toHaveText("Chase chase");
    await expect(preview.getByRole("row").nth(2).getByTestId("institution")).toContainText("Wells Fargo");
    await expect(preview.getByRole("row").nth(4).getByTestId("institution")).toHaveText("Ally Bank ally");

    await page.getByRole("button", { name: "Check again" }).click();
    await expect(page.getByTestId("dry-run")).toContainText(
      "7 new links, 0 already imported, 0 listed twice, 1 with problems",
    );
    await expect(page.getByTestId("dry-run")).toContainText("8 calls (7 imports, 1 batch)");

    // Slow answers, so the reload lands in the middle of the job.
    await setFaults({ latencyMs: 1_500, paths: ["/import"] });
    await page.getByRole("button", { name: "Import 7 new links" }).click();
    await expect(page).toHaveURL(/\/import\?job=[0-9a-f-]{36}$/);
    const jobUrl = page.url();
    await expect(page.getByTestId("job-progress")).toBeVisible();
    await page.reload();
    await expect(page).toHaveURL(jobUrl);
    await expect(page.getByTestId("job-progress")).toContainText(/of 8/);
    await expect(page.getByTestId("job-progress")).toContainText("Finished: 8 done of 8.", { timeout: 60_000 });
    const imported = "7 of 7 new links created. Of the file’s 8 lines: 0 already imported, 0 listed twice, 1 invalid.";
    await expect(page.getByTestId("links-imported")).toHaveText(imported);
    // Every line of the file, the broken one too.
    const results = page.getByRole("table", { name: "Results per link" });
    await expect(results.getByRole("row")).toHaveCount(9);
    await expect(results.getByRole("row").nth(1)).toContainText("connected");
    await expect(results.getByRole("row").nth(2)).toContainText("Disconnected (auth_expired)");
    await expect(results.getByRole("row").nth(2)).toContainText("4,500");
    await expect(results.getByRole("row").nth(3)).toContainText("Invalid");
    const linkId = (await results.getByRole("row").nth(1).getByRole("link").textContent())!.trim();
    expect(linkId).toMatch(/^mk_/);

    // The reconciliation as CSV, one row per line of the file.
    const csv = await page.request.get(`/import/${new URL(jobUrl).searchParams.get("job")}/export`);
    expect(csv.status()).toBe(200);
    const [header, ...rows] = parseCsv(await csv.text());
    expect(header).toEqual([
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
    ]);
    expect(rows.map((r) => r[4])).toEqual([
      "created",
      "created",
      "invalid",
      "created",
      "created",
      "created",
      "created",
      "created",
    ]);
    expect(rows[0]![5]).toBe(linkId);

    // The same file again: every link is known, nothing new to import, nothing started or sent.
    const importCalls = await sandboxRequests("POST /links/import");
    await page.getByRole("link", { name: "Import another file" }).click();
    await upload(page, "fleet-again.ndjson", file);
    await expect(page.getByTestId("plan")).toContainText(
      "Nothing new to import: every link of the file that can be imported is imported already.",
    );
    const known = page.getByTestId("known-links").getByRole("listitem");
    await expect(known).toHaveCount(7);
    await expect(known.first()).toContainText(`#1 (line 1): already imported, link ${linkId}`);
    await expect(page.getByRole("button", { name: "Import 0 new links" })).toBeDisabled();
    await expect(page).toHaveURL(/\/import$/);
    expect(await sandboxRequests("POST /links/import")).toBe(importCalls);
    await known.first().getByRole("link", { name: "its import" }).click();
    await expect(page).toHaveURL(jobUrl);
    await expect(page.getByTestId("links-imported")).toHaveText(imported);
  });

  test("bad files each get a clear message, and the page stays usable", async ({ page }) => {
    test.setTimeout(120_000);
    await signInAs(page, "ops", { from: "/sign-in?callbackUrl=/import" });
    await expect(page).toHaveURL(/\/import$/);
    const good = JSON.stringify({
      customer_user: { id: `ok-${randomUUID()}` },
      institution_id: "chase",
      accounts: [account("a1")],
      transactions: txns(2),
    });
    const bigLink = {
      customer_user: { id: `big-${randomUUID()}` },
      institution_id: "chase",
      accounts: [account("a1")],
      transactions: [] as unknown[],
    };
    let size = JSON.stringify(bigLink).length;
    for (let k = 0; size <= IMPORT_MAX_BYTES; k++) {
      const t = {
        account_id: "a1",
        transaction_id: `b${k}`,
        amount: "-1",
        date: "2024-01-01",
        description: "x".repeat(300),
      };
      bigLink.transactions.push(t);
      size += JSON.stringify(t).length + 1;
    }
    const cases: [string, string | Buffer, RegExp | string][] = [
      ["empty.json", "", "The file is empty."],
      ["notes.json", "hello, this is not JSON", "Not valid JSON at line 1, column 1: expected a value"],
      [
        "broken.json",
        '{\n  "customer_user": {"id": "a"}\n  "institution_id": "chase"\n}',
        "Not valid JSON at line 3, column 3",
      ],
      ["huge.json", Buffer.alloc(25 * 1024 * 1024 + 1, 0x20), "over the 25 MB Linkdesk takes"],
      [
        "latin1.json",
        Buffer.from([
          ...Buffer.from('{"customer_user": {"id": "M'),
          0xfc,
          ...Buffer.from('ller"}, "institution_id": "chase"}'),
        ]),
        "is not UTF-8 text: byte 28 (on line 1)",
      ],
      [
        "proto.json",
        '{"customer_user": {"id": "a"}, "institution_id": "chase", "provider_data": {"__proto__": {"admin": true}}}',
        "a property named __proto__, which Linkdesk refuses",
      ],
      [
        "surrogate.json",
        '{"customer_user": {"id": "a"}, "institution_id": "chase", "accounts": [{"account_id": "a1", "name": "Sav\\ud800ings"}]}',
        "half of a surrogate pair",
      ],
      [
        "deep.json",
        `{"customer_user": {"id": "a"}, "provider_data": ${"[".repeat(5_000)}${"]".repeat(5_000)}}`,
        "nested deeper than 32 levels",
      ],
      [
        "dup-accounts.json",
        JSON.stringify({
          customer_user: { id: "d" },
          institution_id: "chase",
          accounts: [account("a1"), account("a1")],
        }),
        '"a1" appears twice',
      ],
      [
        "many.json",
        JSON.stringify({
          customer_user: { id: `many-${randomUUID()}` },
          institution_id: "chase",
          accounts: [account("a1")],
          transactions: txns(4_001),
        }),
        "1 import call and 1 transaction batch for 1 new link",
      ],
      ["big.json", JSON.stringify(bigLink), "1 import call and 1 transaction batch for 1 new link"],
    ];
    for (const [name, content, message] of cases) {
      await upload(page, name, content);
      await expect(page.getByText(message).first(), name).toBeVisible();
    }
    // Still usable: a good file reads and plans.
    await upload(page, "good.json", good);
    await expect(page.getByTestId("file-summary")).toContainText("1 link, 1 valid, 0 with problems");
    await expect(page.getByRole("button", { name: "Import 1 new link" })).toBeEnabled();
  });
});

test.describe("as support", () => {
  test("has no Import page, and the page refuses them", async ({ page, signIn }) => {
    await signIn(page, "support");
    await expect(page.getByRole("navigation").getByRole("link", { name: "Import" })).toHaveCount(0);
    await page.goto("/import");
    await expect(page.getByText("Your role may not import links.")).toBeVisible();
    await expect(page.locator("#import-file")).toHaveCount(0);
    // Nor the import's own route (institution names for a preview).
    const lookup = await page.request.get("/api/import/institutions?id=chase");
    expect(lookup.status()).toBe(403);
  });
});
