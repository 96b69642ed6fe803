import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";
import { visibleNavItems } from "../components/shell/nav-items";
import { can, ROLES, type Role } from "../lib/auth/roles";
import { type SignIn, expect, test } from "./fixtures";
import { check } from "./page-check";

// Every page as each role sees it, at a small screen's width, and as admin at a laptop's too: nothing logged as an
// error, no broken image, nothing wider than the window, the main table's rows within their height budget (one line a
// row), the columns that answer the page's question on screen, a count wherever a table hides columns to the side, no
// NaN, undefined, null or [object Object] in what a person reads, and the main pages free of serious accessibility
// problems. One sign-in per role; its page visits every address in turn.
//
// 1024 px is where tables fold columns away and space is short, so every role is checked there. At 1440 px the layout
// differs only by Tailwind's xl: classes (1280 px and up) and the transaction desk's wide grid (a box of 64rem and
// up), and the roles are cumulative: on those pages a role sees admin's less some columns, controls and pages (the
// desk's select column and Change buttons, the audit's Undo, a link's operations, Reprocess). So admin alone stands
// for every role at 1440 px.

const WIDTHS = [1440, 1024] as const;
const NARROW = 1024;

/** The widths a role's pages are checked at: every role at the narrow one, admin (who sees every page) at both. */
const widthsFor = (role: Role) => (role === "admin" ? WIDTHS : [NARROW]);

/** Tallest a main-table row may be, per page (px): one line of text or chips, with padding. */
const ROW_BUDGETS: Record<string, number> = {
  "/links": 44,
  "/audit": 48,
  "/admin/staff": 48,
  "/rate-limits": 44,
  "/webhooks": 44,
};

/**
 * The main table's columns that answer its page's question, by header text: wholly on screen (inside the window and
 * the table's scrolling box) and covered by nothing (a sticky column, the count of hidden columns) at every width.
 */
function keyColumns(path: string, role: Role): string[] {
  const columns: Record<string, string[]> = {
    "/links": ["Link", "State", "Error"],
    "/audit": ["When (UTC)", "Who", "Action", ...(can(role, "correct") ? ["Undo"] : [])],
    "/admin/staff": ["Email", "Actions"],
    "/rate-limits": ["Endpoint", "Used / 60 s", "Remaining", "Next slot", "429s / hour"],
    "/webhooks": ["Kind", "Link", "Verification", "Outcome"],
  };
  return columns[path.split("?")[0]!] ?? [];
}

/** A page signed in as `role`, kept for every check of that role (in a context of its own: axe needs one). */
async function signedInPage(browser: Browser, signIn: SignIn, role: Role): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, role);
  return page;
}

let linkPath = "";

// Each test visits many pages: generous time for a loaded machine, while each page still has the usual 10 s. The
// tests share nothing but the link the set-up finds, so they spread over the workers (each runs the set-up once).
test.describe.configure({ mode: "parallel", timeout: 300_000 });

test.beforeAll(async ({ browser, signIn }) => {
  test.setTimeout(180_000);
  // The background sync reads error-state links first: wait for the read model to hold some, and take one to open.
  const page = await signedInPage(browser, signIn, "viewer");
  await expect(async () => {
    await page.goto("/links?state=error");
    await expect(page.getByRole("table").getByRole("link", { name: /^mk_/ }).first()).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 120_000 });
  linkPath = (await page.getByRole("table").getByRole("link", { name: /^mk_/ }).first().getAttribute("href")) ?? "";
  expect(linkPath).toMatch(/^\/links\/mk_/);
  await page.context().close();
});

test("the sign-in page is clean at every width", async ({ page }) => {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const result = await check(page, "/sign-in");
    expect(result, `sign-in at ${width} px`).toMatchObject({
      consoleErrors: [],
      brokenImages: [],
      overflowPx: 0,
      rawWords: [],
    });
  }
});

for (const role of ROLES) {
  test(`every page ${role} sees is clean and dense at ${widthsFor(role).join(" and ")} px`, async ({
    browser,
    signIn,
  }) => {
    const page = await signedInPage(browser, signIn, role);
    const paths = [...visibleNavItems(role).map((item) => item.href), linkPath];
    const problems: string[] = [];
    for (const width of widthsFor(role)) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of paths) {
        const result = await check(page, path, keyColumns(path, role));
        const where = `${path} as ${role} at ${width} px`;
        if (result.consoleErrors.length)
          problems.push(`${where}: console errors ${JSON.stringify(result.consoleErrors)}`);
        if (result.brokenImages.length) problems.push(`${where}: broken images ${JSON.stringify(result.brokenImages)}`);
        if (result.overflowPx > 0) problems.push(`${where}: the page is ${result.overflowPx} px wider than the window`);
        const budget = ROW_BUDGETS[path.split("?")[0]!];
        if (budget && result.tallestRow !== null && result.tallestRow > budget)
          problems.push(`${where}: a main-table row is ${result.tallestRow} px tall (budget ${budget})`);
        for (const column of result.keyColumns) problems.push(`${where}: key column ${column}`);
        if (result.unmarkedOverflow > 0)
          problems.push(
            `${where}: ${result.unmarkedOverflow} table(s) wider than their box without a count of the hidden columns`,
          );
        for (const words of result.rawWords) problems.push(`${where}: raw value in the text: ${words}`);
      }
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });
}

test("fifty links fit in about 2,500 px at 1440 px wide, one line a row", async ({ browser, signIn }) => {
  const page = await signedInPage(browser, signIn, "viewer");
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/links");
  const rows = page.getByRole("table", { name: "Links" }).locator("tbody tr");
  await expect(rows).toHaveCount(50);
  const { table, document: pageHeight } = await page.evaluate(() => ({
    table: document.querySelector("main table")!.getBoundingClientRect().height,
    document: document.documentElement.scrollHeight,
  }));
  expect(table).toBeLessThanOrEqual(50 * 44 + 40);
  expect(pageHeight).toBeLessThanOrEqual(2_700);
  await page.context().close();
});

// One test per role, so that the two spread over the workers.
for (const role of ["viewer", "admin"] as const) {
  test(`the pages ${role} sees have no serious or critical accessibility problem, every table has headers, focus always shows`, async ({
    browser,
    signIn,
  }) => {
    const page = await signedInPage(browser, signIn, role);
    await page.setViewportSize({ width: 1440, height: 900 });
    const paths = [...visibleNavItems(role).map((item) => item.href), linkPath];
    for (const path of paths) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
      const serious = results.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map(
          (v) =>
            `${v.id} (${v.impact}): ${v.nodes
              .map((n) => n.target.join(" "))
              .slice(0, 3)
              .join(", ")}`,
        );
      expect(serious, `${path} as ${role}`).toEqual([]);
      const headless = await page
        .locator("main table")
        .evaluateAll((tables) => tables.filter((t) => t.querySelector("th") === null).length);
      expect(headless, `${path}: tables without headers`).toBe(0);
    }
    // Tab through the start of the links page: every stop is a named control with a visible focus mark.
    await page.goto("/links");
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return null;
        const style = getComputedStyle(el);
        return {
          tag: el.tagName,
          name: el.getAttribute("aria-label") ?? el.innerText.trim() ?? "",
          outline: style.outlineStyle !== "none" && style.outlineWidth !== "0px",
        };
      });
      if (!focused) continue;
      expect(focused.outline, `focus mark on ${focused.tag} "${focused.name}"`).toBe(true);
    }
    await page.context().close();
  });
}
