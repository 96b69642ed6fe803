import { expect, test } from "./fixtures";
import { clearFaults, setFaults } from "./sandbox-control";
import { plainLinkId } from "./session";

// Jobs as staff meet them: a bulk correction started from a link's transactions runs on the server; its page shows
// progress, survives a reload, and offers pause, resume and undo to those who may correct, and nothing to a viewer.
// In order: the viewer looks at the job support started.
test.describe.configure({ mode: "serial" });

test.afterEach(() => clearFaults());

test("support pauses, reloads, resumes and undoes a bulk correction job from its page", async ({ page, signIn }) => {
  test.setTimeout(180_000);
  await signIn(page, "support");
  const linkId = await plainLinkId();
  await page.goto(`/links/${linkId}`);
  await expect(page.getByTestId("transaction-description").first()).toBeVisible();
  const descriptions = await page.getByTestId("transaction-description").allTextContents();
  // A transaction whose merchant comes again further down (older) has similar past ones.
  const index = descriptions.findIndex((d, i) => descriptions.indexOf(d, i + 1) > i);
  expect(index).toBeGreaterThanOrEqual(0);
  const row = page.getByTestId("transaction-row").nth(index);
  await row.getByRole("button", { name: /^Change category of/ }).click();
  await row.getByRole("combobox").fill("Education");
  await page.keyboard.press("Enter");
  await row.getByRole("combobox").fill("Other education");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("desk-announcement")).toContainText(/found \d+ similar/);
  // The upstream starts failing corrections (503): the job keeps checking and retrying them, and support pauses it.
  await setFaults({ status: 503, paths: ["/enrichment"] });
  await page.getByRole("button", { name: /^Review the \d+ similar/ }).click();
  await page.getByRole("button", { name: /^Apply to \d+ ticked$/ }).click();
  await page.getByTestId("job-progress").getByRole("link", { name: "Job details" }).click();
  await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
  const jobUrl = page.url();

  const progress = page.getByTestId("job-progress");
  await page.getByRole("button", { name: "Pause" }).click();
  await expect(progress).toContainText(/^Paused|Paused:/);
  await page.reload();
  await expect(page.getByTestId("job-progress")).toContainText("Paused:");
  await clearFaults();
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByTestId("job-progress")).toContainText(/Finished: \d+ done/, { timeout: 120_000 });

  await page.getByRole("button", { name: "Undo the whole job" }).click();
  await expect(page).not.toHaveURL(jobUrl);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^Undo: /);
  await expect(page.getByTestId("job-progress")).toContainText(/Finished: \d+ done/, { timeout: 120_000 });

  await page.goto("/audit?action=job.pause");
  await expect(page.getByRole("row").filter({ hasText: "support@demo.linkdesk.test" }).first()).toContainText("Done");
});

test("a viewer sees jobs and their progress, and no control", async ({ page, signIn }) => {
  await signIn(page, "viewer");
  await page.goto("/jobs");
  const first = page.getByRole("table", { name: "Jobs" }).getByRole("link").first();
  await first.click();
  await expect(page.getByTestId("job-progress")).toBeVisible();
  for (const name of ["Pause", "Resume", "Cancel job", /^Retry/, "Undo the whole job"]) {
    await expect(page.getByRole("button", { name })).toHaveCount(0);
  }
  await expect(page.getByRole("link", { name: "Results CSV" })).toBeVisible();
});
