import { type Page, expect } from "@playwright/test";

// What a person would notice is wrong on a page: shared by the specs that visit every page (pages.spec.ts, and
// drift.spec.ts against a sandbox sending what the real service may).

/** Words that are a program's leftovers, not something to tell a person (whole words; "[object Object]" and kin). */
export const RAW_WORDS = /\b(?:NaN|undefined|null)\b|\[object\b/g;

export interface PageCheck {
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
export async function check(page: Page, path: string, keyColumnNames: string[] = []): Promise<PageCheck> {
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
    const keyColumnsCut = await page.evaluate(keyColumnProblems, keyColumnNames);
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
