import { parseCsv } from "../lib/http/csv";
import { expect, test } from "./fixtures";

test("the Audit export holds exactly the filtered view", async ({ page, signIn }) => {
  await signIn(page, "admin");
  await page.goto("/audit?action=auth.sign_in&outcome=ok");
  const shown = await page.getByRole("row").filter({ hasText: "Sign-in" }).count();
  const href = await page.getByRole("link", { name: "Export CSV" }).getAttribute("href");
  expect(href).toContain("action=auth.sign_in");
  const response = await page.request.get(href!);
  expect(response.headers()["content-type"]).toContain("text/csv");
  const [header, ...rows] = parseCsv(await response.text());
  const action = header!.indexOf("action");
  const outcome = header!.indexOf("outcome");
  expect(rows.length).toBeGreaterThanOrEqual(Math.min(shown, 1));
  for (const row of rows) {
    expect(row[action]).toBe("auth.sign_in");
    expect(row[outcome]).toBe("ok");
  }
});

test("the Links export holds exactly the filtered view, and refuses bad filters", async ({ page, signIn }) => {
  await signIn(page, "viewer");
  let parsed: string[][] = [];
  // The background sync fills the read model; wait until the view has rows to compare.
  await expect(async () => {
    const response = await page.request.get("/links/export?state=connected&provider=plaid");
    expect(response.status()).toBe(200);
    parsed = parseCsv(await response.text());
    expect(parsed.length).toBeGreaterThan(1);
  }).toPass({ timeout: 60_000 });
  const [header, ...rows] = parsed;
  const state = header!.indexOf("state");
  const provider = header!.indexOf("provider");
  for (const row of rows) {
    expect(row[state]).toBe("connected");
    expect(row[provider]).toBe("plaid");
  }
  // A state the upstream may add is a filter like any other (no link has it here); a value no enum has is refused.
  const paused = await page.request.get("/links/export?state=paused");
  expect(paused.status()).toBe(200);
  expect(parseCsv(await paused.text())).toHaveLength(1);
  expect((await page.request.get("/links/export?state=%3Cscript%3E")).status()).toBe(400);
});
