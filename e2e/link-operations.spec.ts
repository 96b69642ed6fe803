import type { Page } from "@playwright/test";
import { PRODUCT_LABELS } from "../lib/schemas/link-operations";
import { PRODUCT_REFRESH_INTERVAL_MS } from "../lib/upstream/rate-limits";
import { PRODUCTS, type Product } from "../lib/upstream/schemas";
import { expect, test } from "./fixtures";
import { sandboxLink, upstreamCall } from "./sandbox-control";

// The link page's operations as support staff use them: the link's tags and webhook, a test webhook the sandbox
// records, a product refresh that is then offered again only after its interval; and a viewer, who sees none of it.

interface WireLinkProducts {
  state: string;
  products: Partial<
    Record<Product, { refreshed_at?: string | null; last_attempted_at?: string | null; unavailable?: string | null }>
  >;
}

interface Delivery {
  delivery_token: string;
  webhook_event: string;
  url: string;
  state: string;
  payload: { webhook_idempotency_key: string; link_id: string };
}

const sandboxUrl = () => process.env.E2E_SANDBOX_URL!;

async function plainLinks(): Promise<string[]> {
  const fixtures = (await (await fetch(`${sandboxUrl()}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  // The other specs take the first plain links; these come from the end.
  return [...(fixtures.plain ?? [])].reverse();
}

/** A seeded link with a product the upstream would refresh now (its last refresh longer ago than its interval). */
async function linkWithRefreshableProduct(): Promise<{ linkId: string; product: Product }> {
  for (const linkId of (await plainLinks()).slice(0, 12)) {
    const link = await upstreamCall<WireLinkProducts>("GET", `/links/${encodeURIComponent(linkId)}`);
    if (link.state !== "connected") continue;
    for (const product of PRODUCTS) {
      const status = link.products[product];
      if (!status || status.unavailable) continue;
      const last = Math.max(
        Date.parse(status.refreshed_at ?? "") || 0,
        Date.parse(status.last_attempted_at ?? "") || 0,
      );
      // A few minutes to spare, so it is still refreshable when the test gets to it.
      if (last + PRODUCT_REFRESH_INTERVAL_MS[product] < Date.now() - 5 * 60_000) return { linkId, product };
    }
  }
  throw new Error("no seeded plain link has a product that may be refreshed now");
}

/** "2026-11-25 14:05 UTC" in a sentence, as a time. */
function timeIn(text: string): number {
  const match = /(\d{4}-\d\d-\d\d) (\d\d:\d\d) UTC/.exec(text);
  if (!match) throw new Error(`no time in "${text}"`);
  return Date.parse(`${match[1]}T${match[2]}:00Z`);
}

const operations = (page: Page) => page.getByRole("region", { name: "Operations" });

test("support edits a link's tags and webhook, sends a test webhook and refreshes a product", async ({
  page,
  signIn,
}) => {
  const { linkId, product } = await linkWithRefreshableProduct();
  const webhook = `https://hooks.linkdesk-e2e.example/${linkId}`;
  await signIn(page, "support");
  await page.goto(`/links/${linkId}`);
  const ops = operations(page);
  const settings = ops.getByRole("form", { name: "Tags and webhook" });
  const testWebhook = ops.getByRole("form", { name: "Test webhook" });
  const sendTest = testWebhook.getByRole("button", { name: "Send test webhook" });

  // Without a webhook, a test has nowhere to go: the button says why it is disabled.
  await settings.getByLabel("Webhook address").fill("");
  await settings.getByLabel("Tags").fill("e2e:operations\nteam:support");
  await settings.getByRole("button", { name: "Save tags and webhook" }).click();
  await expect(settings.getByRole("status")).toContainText(
    "Saved upstream. Webhook: none. Tags: e2e:operations, team:support.",
  );
  await expect(sendTest).toBeDisabled();
  await expect(testWebhook).toContainText("The link has no webhook, so the upstream has nowhere to send a test.");

  // A wrong address is refused beside its field, before anything is sent.
  await settings.getByLabel("Webhook address").fill("javascript:alert(1)");
  await settings.getByRole("button", { name: "Save tags and webhook" }).click();
  await expect(settings.getByText("Enter a whole web address starting with https:// or http://")).toBeVisible();

  await settings.getByLabel("Webhook address").fill(webhook);
  await settings.getByRole("button", { name: "Save tags and webhook" }).click();
  await expect(settings.getByRole("status")).toContainText(`Saved upstream. Webhook: ${webhook}.`);
  // The page's own fields show the link as the upstream answered, and so does the upstream.
  const fields = page.getByRole("region", { name: "Link", exact: true });
  await expect(fields).toContainText(webhook);
  await expect(fields).toContainText("e2e:operations");
  expect(await sandboxLink(linkId)).toMatchObject({ link_tags: ["e2e:operations", "team:support"] });

  // The test webhook: the chosen event, and the delivery's token, which the sandbox recorded for this link's webhook.
  await expect(sendTest).toBeEnabled();
  await testWebhook.getByLabel("Event").selectOption("transactions.updates_available");
  await sendTest.click();
  const tokenCell = testWebhook.getByTestId("test-webhook-delivery-token");
  await expect(tokenCell).not.toBeEmpty();
  const token = (await tokenCell.innerText()).trim();
  const { deliveries } = (await (
    await fetch(`${sandboxUrl()}/_sandbox/webhooks?link_id=${encodeURIComponent(linkId)}`)
  ).json()) as { deliveries: Delivery[] };
  expect(deliveries.find((d) => d.delivery_token === token)).toMatchObject({
    webhook_event: "transactions.updates_available",
    url: webhook,
    // A name reserved for documentation is never contacted: recorded, not sent.
    state: "skipped",
    payload: { link_id: linkId },
  });

  // The product refresh: offered now, then held for its interval, said with the time.
  const offer = ops.getByTestId(`refresh-offer-${product}`);
  const label = PRODUCT_LABELS[product];
  await expect(offer).toContainText(`${label}: may be refreshed now`);
  const asked = Date.now();
  await offer.getByRole("button", { name: `Refresh ${label}` }).click();
  await expect(ops.getByRole("status").filter({ hasText: "The upstream started refreshing" })).toContainText(
    `The upstream started refreshing ${label}.`,
  );
  await expect(offer).toContainText(`${label}: may be refreshed again at`);
  await expect(offer.getByRole("button", { name: `Refresh ${label}` })).toBeDisabled();
  const next = timeIn(await offer.innerText());
  // Minutes in the sentence: within a couple of them of one interval from the click.
  expect(Math.abs(next - (asked + PRODUCT_REFRESH_INTERVAL_MS[product]))).toBeLessThan(2 * 60_000);

  // After a reload, worked out again from the read model and the budget: still held until then.
  await page.reload();
  const reloaded = operations(page).getByTestId(`refresh-offer-${product}`);
  await expect(reloaded).toContainText(`${label}: may be refreshed again at`);
  await expect(reloaded.getByRole("button", { name: `Refresh ${label}` })).toBeDisabled();
  expect(Math.abs(timeIn(await reloaded.innerText()) - next)).toBeLessThan(2 * 60_000);
});

test("a viewer sees the link but none of its operations", async ({ page, signIn }) => {
  const [linkId] = await plainLinks();
  await signIn(page, "viewer");
  await page.goto(`/links/${linkId}`);
  await expect(page.getByRole("region", { name: "Link", exact: true })).toContainText(linkId!);
  await expect(page.getByRole("region", { name: "Products", exact: true })).toBeVisible();
  await expect(operations(page)).toHaveCount(0);
  for (const name of [
    /^Save tags and webhook$/,
    /^Send test webhook$/,
    /^Refresh (Accounts|Account numbers|Identity|Transactions|Investments|Enrichment)$/,
  ]) {
    await expect(page.getByRole("button", { name })).toHaveCount(0);
  }
});
