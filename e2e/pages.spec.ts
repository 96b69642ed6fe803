import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";
import { visibleNavItems } from "../components/shell/nav-items";
import { can, ROLES, type Role } from "../lib/auth/roles";
import { type SignIn, expect, test } from "./fixtures";

// Every page as each role sees it, at a laptop's and a small screen's width: nothing logged as an error, no broken
// image, nothing wider than the window, the main table's rows within their height budget (one line a row), the columns
// that answer the page's question on screen, a count wherever a table hides columns to the side, no NaN, undefined,
// null or [object Object] in what a person reads, and the main pages free of serious accessibility problems. One
// sign-in per role; its page visits every address in turn.

const WIDTHS = [1440, 1024] as const;

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

/** Words that are a program's leftovers, not something to tell a person (whole words; "[object Object]" and kin). */
const RAW_WORDS = /\b(?:NaN|undefined|null)\b|\[object\b/g;

interface PageCheck {
  path: string;
  consoleErrors: string[];
  brokenImages: string[];
  overflowPx: number;
  tallestRow: number | null;
  /** Each key column not wholly on screen or covered, in words. */
  keyColumns: string[];
  /** Tables wider than their box with no count of the columns off to the side. */
  unmarkedOverflow: number;
  /** Each raw word found in the page's text, with what surrounds it. */
  rawWords: string[];
}

/** Opens `path` and reports what a person would notice is wrong. Scrolls through it so lazy images load. */
async function check(page: Page, path: string, role?: Role): Promise<PageCheck> {
  const consoleErrors: string[] = [];
  const onConsole = (message: { type(): string; text(): string }) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  };
  const onPageError = (error: Error) => consoleErrors.push(`uncaught: ${error.message}`);
  page.on("console", onConsole);
  page.on("pageerror", onPageError);
  try {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.evaluate(async () => {
      for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight) {
        window.scrollTo(0, y);
        await new Promise((r) => setTimeout(r, 50));
      }
      window.scrollTo(0, 0);
    });
    await page.waitForFunction(() => [...document.images].every((img) => img.complete), null, { timeout: 10_000 });
    // A table's count of hidden columns is the browser's own measurement, made once the page runs: give it the moment
    // it needs. Whether it came is judged below, not here.
    await page
      .waitForFunction(
        () =>
          [...document.querySelectorAll("main [data-scroll-box]")].every(
            (box) => box.scrollWidth <= box.clientWidth + 1 || box.parentElement!.querySelector("[data-more-columns]"),
          ),
        null,
        { timeout: 5_000 },
      )
      .catch(() => undefined);
    const keyColumnsCut = await page.evaluate(keyColumnProblems, role ? keyColumns(path, role) : []);
    const rawWords = [...(await page.evaluate(() => document.body.innerText)).matchAll(RAW_WORDS)].map((m) =>
      JSON.stringify(m.input.slice(Math.max(0, m.index - 40), m.index + m[0].length + 40)),
    );
    const found = await page.evaluate(() => {
      const table = document.querySelector("main table");
      const rows = table ? [...table.querySelectorAll(":scope > tbody > tr")].filter((r) => r.querySelector("td")) : [];
      return {
        brokenImages: [...document.images].filter((img) => img.naturalWidth === 0).map((img) => img.src),
        overflowPx: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        tallestRow: rows.length > 0 ? Math.max(...rows.map((r) => r.getBoundingClientRect().height)) : null,
        unmarkedOverflow: [...document.querySelectorAll("main [data-scroll-box]")].filter((box) => {
          if (box.scrollWidth <= box.clientWidth + 1 || box.getClientRects().length === 0) return false;
          const count = box.parentElement!.querySelector("[data-more-columns]");
          return !count || count.getBoundingClientRect().width === 0;
        }).length,
      };
    });
    return { path, consoleErrors, keyColumns: keyColumnsCut, rawWords, ...found };
  } finally {
    page.off("console", onConsole);
    page.off("pageerror", onPageError);
  }
}

/**
 * In the page: each of `names` (header texts of the main table) that is missing, not wholly inside the window and its
 * table's scrolling box, or covered at its middle or near either end by something else (a sticky column, a count).
 */
function keyColumnProblems(names: string[]): string[] {
  const table = document.querySelector("main table");
  if (!table || names.length === 0) return [];
  const textOf = (cell: Element) => {
    const copy = cell.cloneNode(true) as Element;
    copy.querySelectorAll('[aria-hidden="true"], .sr-only').forEach((n) => n.remove());
    return (copy.textContent ?? "").replace(/\s+/g, " ").trim();
  };
  const headers = [...table.querySelectorAll(":scope > thead th")];
  const box = table.closest("[data-scroll-box]");
  const problems: string[] = [];
  for (const name of names) {
    const header = headers.find((th) => textOf(th) === name);
    if (!header) {
      problems.push(`no "${name}" column`);
      continue;
    }
    // Into view vertically only: scrolling sideways would hide the very problem looked for.
    let rect = header.getBoundingClientRect();
    if (rect.top < 0 || rect.bottom > window.innerHeight) {
      window.scrollBy(0, rect.top - 80);
      rect = header.getBoundingClientRect();
    }
    const inner = box ? box.getBoundingClientRect() : null;
    const left = Math.max(0, inner ? inner.left + box!.clientLeft : 0);
    const right = Math.min(
      document.documentElement.clientWidth,
      inner ? inner.left + box!.clientLeft + box!.clientWidth : Infinity,
    );
    if (rect.left < left - 0.5 || rect.right > right + 0.5) {
      problems.push(
        `"${name}" is cut off (${Math.round(rect.left)} to ${Math.round(rect.right)} px, visible ${Math.round(left)} to ${Math.round(right)} px)`,
      );
      continue;
    }
    const y = rect.top + rect.height / 2;
    const covered = [rect.left + 3, rect.left + rect.width / 2, rect.right - 3].some((x) => {
      const hit = document.elementFromPoint(x, y);
      return !hit || !header.contains(hit);
    });
    if (covered) problems.push(`"${name}" is covered`);
  }
  window.scrollTo(0, 0);
  return problems;
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
  test(`every page ${role} sees is clean and dense at ${WIDTHS.join(" and ")} px`, async ({ browser, signIn }) => {
    const page = await signedInPage(browser, signIn, role);
    const paths = [...visibleNavItems(role).map((item) => item.href), linkPath];
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of paths) {
        const result = await check(page, path, role);
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
