import { expect, test } from "@playwright/test";
import { signInAs } from "./session";

function parseCsv(text: string): string[][] {
  // Enough for these files: fields quoted when they hold commas, quotes or line breaks.
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n") {
      row.push(field.replace(/\r$/, ""));
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

test("the Audit export holds exactly the filtered view", async ({ page }) => {
  await signInAs(page, "admin");
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

test("the Links export holds exactly the filtered view, and refuses bad filters", async ({ page }) => {
  await signInAs(page, "viewer");
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
  expect((await page.request.get("/links/export?state=paused")).status()).toBe(400);
});
