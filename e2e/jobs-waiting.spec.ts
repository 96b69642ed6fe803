import type { Page } from "@playwright/test";
import { categoryLabel, subcategoryLabel } from "../lib/upstream/taxonomy";
import { expect, test } from "./fixtures";
import { upstreamCall } from "./sandbox-control";

// A big job on one link, as staff see it: while it waits for the per-link limit its page says so and when the next
// slot frees, then settles to finished (chips, progress and items agree, nothing pending) without a reload; and a
// person who went elsewhere in the dashboard is told, once, when their long job ends.
//
// Corrections are 60 a minute per link upstream, 30 of them Linkdesk's (BUDGET_LINK_SHARE 0.5): a job of 36 to 50
// calls on a link nobody else corrects sends 30 at once and waits about a minute for the rest.

// Each test waits a minute or more on the upstream's rolling minute, on links of its own: they spread over the workers.
test.describe.configure({ mode: "parallel" });

const TARGET = { category: "charity", subcategory: "other_charity" } as const;
const CORRECTION_LIMIT = "the per-link limit of POST /links/{id}/transactions/{txn_id}/enrichment";

interface WireTxn {
  transaction_id: string;
  date: string;
  enrichment: { category: { value: string }; subcategory: { value: string } | null } | null;
}

interface Plan {
  linkId: string;
  startDate: string;
  endDate: string;
  /** Transactions in the range not in the target category yet: the job's calls. */
  calls: number;
}

/**
 * A plain seeded link counted from the end of the list (other specs take theirs from its start) and a range of whole
 * days holding between 36 and 50 of its transactions not in the target category, read from the sandbox as any client.
 */
async function planOn(fromEnd: number): Promise<Plan> {
  const fixtures = (await (await fetch(`${process.env.E2E_SANDBOX_URL}/_sandbox/fixtures`)).json()) as Record<
    string,
    string[]
  >;
  const plain = fixtures.plain ?? [];
  const linkId = plain[plain.length - fromEnd];
  if (!linkId) throw new Error(`the sandbox has fewer than ${fromEnd} plain links`);
  const { transactions } = await upstreamCall<{ transactions: WireTxn[] }>(
    "GET",
    `/links/${encodeURIComponent(linkId)}/transactions?start_date=1900-01-01&size=1000`,
  );
  const days = new Map<string, number>();
  for (const t of transactions) {
    const day = t.date.slice(0, 10);
    const inTarget =
      t.enrichment?.category.value === TARGET.category && t.enrichment.subcategory?.value === TARGET.subcategory;
    days.set(day, (days.get(day) ?? 0) + (inTarget ? 0 : 1));
  }
  const sorted = [...days.entries()].sort(([a], [b]) => a.localeCompare(b));
  for (let start = 0; start < sorted.length; start++) {
    let calls = 0;
    for (let end = start; end < sorted.length; end++) {
      calls += sorted[end]![1];
      if (calls > 50) break;
      if (calls >= 36) return { linkId, startDate: sorted[start]![0], endDate: sorted[end]![0], calls };
    }
  }
  throw new Error(`link ${linkId} has no range of days with 36 to 50 transactions to correct`);
}

/** From the link's desk, filtered to the plan's days: every row selected, one category set, the ticked ones applied. */
async function startBulkCorrection(page: Page, plan: Plan) {
  await page.goto(`/links/${plan.linkId}?start_date=${plan.startDate}&end_date=${plan.endDate}`);
  await expect(page.getByTestId("transactions-summary")).toContainText("transactions match");
  await expect(page.getByTestId("transactions-summary")).not.toContainText("updating");
  await page.getByRole("checkbox", { name: "Select every row shown" }).check();
  const bar = page.getByTestId("bulk-bar");
  await bar.getByRole("button", { name: "Set category…" }).click();
  const combobox = bar.getByRole("combobox");
  await combobox.fill(categoryLabel(TARGET.category));
  await page.keyboard.press("Enter");
  await expect(bar.getByText(`Subcategory of ${categoryLabel(TARGET.category)}`)).toBeVisible();
  await combobox.fill(subcategoryLabel(TARGET.subcategory));
  await page.keyboard.press("Enter");
  const review = page.getByTestId("review-list");
  await review.getByRole("button", { name: `Apply to ${plan.calls} ticked` }).click();
  await expect(page.getByTestId("job-progress")).toBeVisible();
}

test("a job waiting for the per-link limit says so, with its next slot, and its page settles to finished without a reload", async ({
  page,
  signIn,
}) => {
  test.setTimeout(240_000);
  const plan = await planOn(1);
  await signIn(page, "support");
  await startBulkCorrection(page, plan);
  await page.getByTestId("job-progress").getByRole("link", { name: "Job details" }).click();
  await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
  // Every full page load from here on would be a reload: there must be none.
  let loads = 0;
  page.on("load", () => loads++);

  const progress = page.getByTestId("job-progress");
  // Thirty calls go at once; the rest wait for the link's slots, and the page says which limit and when.
  await expect(progress).toContainText(
    new RegExp(
      `of ${plan.calls}[^.]*\\. Waiting for ${escape(CORRECTION_LIMIT)}, next slot in \\d+ s; (about \\d+ (s|min)|a few seconds) left\\.`,
    ),
    { timeout: 60_000 },
  );
  // The items not sent yet say what they wait for; the settled ones are named as people know them, with their link.
  const items = page.getByRole("table", { name: "Items of this category correction job" });
  await expect(items.getByRole("row").nth(1)).toContainText(/\d{4}-\d{2}-\d{2} · .+ · [−+]/);
  await expect(items.getByRole("link", { name: /^Link / }).first()).toHaveAttribute("href", `/links/${plan.linkId}`);

  // Then the slots free, the rest go out, and the page settles by itself: progress, chips and items agree.
  await expect(progress).toContainText(`Finished: ${plan.calls} done of ${plan.calls}.`, { timeout: 150_000 });
  const chips = page.getByRole("navigation", { name: "Filter items by state" });
  await expect(chips.getByRole("link", { name: "Pending (0)" })).toBeVisible();
  await expect(chips.getByRole("link", { name: "Being checked (0)" })).toBeVisible();
  await expect(chips.getByRole("link", { name: `Done (${plan.calls})` })).toBeVisible();
  await expect(items.getByRole("cell", { name: "pending", exact: true })).toHaveCount(0);
  await expect(items.getByRole("cell", { name: "done", exact: true })).toHaveCount(plan.calls);
  await expect(page.getByText(/Waiting for the per-/)).toHaveCount(0);
  // Seen ending on its own page: no notice of it as well, once the shell knows nothing of theirs moves.
  await expect(page.getByTestId("job-notices")).toHaveAttribute("data-moving", "false", { timeout: 15_000 });
  await expect(page.getByTestId("job-notice")).toHaveCount(0);
  expect(loads).toBe(0);
});

test("a long job that ends while its starter is elsewhere in the dashboard is told of once, with a link to it", async ({
  page,
  signIn,
}) => {
  test.setTimeout(240_000);
  const plan = await planOn(2);
  await signIn(page, "support");
  await startBulkCorrection(page, plan);
  await expect(page.getByTestId("job-progress")).toContainText(/Waiting for the per-link limit/, { timeout: 60_000 });
  const jobUrl = await page.getByTestId("job-progress").getByRole("link", { name: "Job details" }).getAttribute("href");
  expect(jobUrl).toMatch(/^\/jobs\/[0-9a-f-]{36}$/);

  // Elsewhere: another page of the dashboard, through its sidebar.
  await page.getByRole("link", { name: "Rate limits", exact: true }).first().click();
  await expect(page).toHaveURL(/\/rate-limits$/);
  const notice = page.getByTestId("job-notice");
  await expect(notice).toHaveText(
    new RegExp(
      `^“${plan.calls} transactions to ${escape(categoryLabel(TARGET.category))} › ${escape(subcategoryLabel(TARGET.subcategory))}” finished: ${plan.calls} corrected\\.`,
    ),
    { timeout: 150_000 },
  );
  await expect(notice).toHaveCount(1);
  await notice.getByRole("link", { name: "Open the job" }).click();
  await expect(page).toHaveURL(new RegExp(`${jobUrl}$`));
  await expect(page.getByTestId("job-progress")).toContainText(`Finished: ${plan.calls} done of ${plan.calls}.`);
  await expect(page.getByTestId("job-notice")).toHaveCount(0);

  // Once: another page, loaded afresh, hears of the job again and says nothing more.
  await page.goto("/links");
  await expect(page.getByTestId("job-notices")).toHaveAttribute("data-moving", "false");
  await expect(page.getByTestId("job-notice")).toHaveCount(0);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
