import { randomUUID } from "node:crypto";
import { LINK_ERROR_INFO } from "../lib/links/error-codes";
import { expect, test } from "./fixtures";
import { type SandboxLink, sandboxLink, sandboxRequests, upstreamCall } from "./sandbox-control";

// Support asks the end user of a broken link to reconnect, from the link's page. The link is made through the
// sandbox's API as the product would make it (imported without credentials: disconnected, auth_expired), with a
// webhook (Linkdesk's own receiver) and tags; Linkdesk learns whose link it is from support's look-up of the customer.
// The worker's dashboard sends reconnect requests to the worker's product receiver, which verifies each message's
// Standard Webhooks signature (e2e/fixtures.ts).

test("support asks a broken link's user to reconnect: one session, one signed message, recorded on the page, and the link comes back with its webhook and tags", async ({
  page,
  browser,
  signIn,
  stack,
  productReceiver,
}) => {
  const customer = `reconnect-e2e-${randomUUID().slice(0, 8)}`;
  const webhook = `${stack.dashboardUrl}/api/webhooks/upstream`;
  const link = await upstreamCall<SandboxLink>("POST", "/links/import", {
    customer_user: { id: customer },
    institution_id: "chase",
    webhook,
    link_tags: ["plan:pro", "region:eu"],
  });
  expect(link).toMatchObject({ state: "error", error_code: "auth_expired" });

  await signIn(page, "support");
  // Linkdesk learns whose link it is as support would tell it: a look-up of the customer's links.
  const lookup = page.getByRole("form", { name: "Look up a customer's links" });
  await lookup.getByLabel("A customer's links").fill(customer);
  await lookup.getByRole("button", { name: "Look up" }).click();
  await page.getByTestId("customer-links").getByRole("link", { name: link.link_id }).click();
  await expect(page).toHaveURL(new RegExp(`/links/${link.link_id}$`));

  const section = page.getByTestId("link-reconnect");
  await expect(section.getByRole("heading", { name: "Reconnect requests" })).toBeVisible();
  await expect(section).toContainText(`Customer user ${customer}, known from a look-up of the customer's links.`);
  await expect(section).toContainText("Nobody has asked this link's user to reconnect through Linkdesk yet.");

  const sessions = await sandboxRequests("POST /link-session");
  // A double click is one request.
  await section.getByRole("button", { name: "Ask the user to reconnect" }).dblclick();
  await expect(section.getByTestId("reconnect-asked")).toContainText("Asked: a relink session was made");

  // Recorded on the page: who asked, why, and the message delivered to the product's back end.
  const row = section.getByTestId("reconnect-request");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("by support@demo.linkdesk.test");
  await expect(row).toContainText(LINK_ERROR_INFO.auth_expired.label);
  await expect(async () => {
    await page.reload();
    await expect(row.getByTestId("reconnect-delivery-webhook")).toContainText("Delivered", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(row).toContainText("Not yet: the link is still in error (auth_expired).");
  await row.getByText("1 try").click();
  await expect(row).toContainText(
    /1\. \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, \d+ ms: Delivered: HTTP 204 \(No Content\)\./,
  );

  // One session upstream, one message at the product, signed and verified there.
  expect(await sandboxRequests("POST /link-session")).toBe(sessions + 1);
  const messages = productReceiver.tries.filter((t) => t.body.data.link_id === link.link_id);
  expect(messages).toHaveLength(1);
  expect(messages[0]!.body.data).toMatchObject({ customer_user_id: customer, institution_id: "chase" });
  const token = messages[0]!.body.data.link_session_token as string;

  // Another tab asking again is told, in words, and sends nothing.
  const other = await browser.newPage({ baseURL: stack.dashboardUrl });
  try {
    await signIn(other, "support", { from: `/links/${link.link_id}` });
    const again = other.getByTestId("link-reconnect");
    await again.getByRole("button", { name: "Ask the user to reconnect" }).click();
    await expect(again.getByRole("alert")).toContainText(
      "support@demo.linkdesk.test asked this link's user to reconnect",
    );
  } finally {
    await other.close();
  }
  expect(await sandboxRequests("POST /link-session")).toBe(sessions + 1);

  // The end user finishes the relink (the sandbox plays them) and the product exchanges the token: the link is
  // connected, and keeps its webhook and tags.
  const done = await fetch(`${stack.sandboxUrl}/_sandbox/link-sessions/${encodeURIComponent(token)}/complete`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
  });
  expect(done.status).toBe(200);
  const { exchangeable_token } = (await done.json()) as { exchangeable_token: string };
  await upstreamCall("POST", "/link-session/exchange-token", { exchangeable_token });
  expect(await sandboxLink(link.link_id)).toMatchObject({
    state: "connected",
    link_tags: ["plan:pro", "region:eu"],
    webhook,
  });

  // Linkdesk hears it (the link's webhook is Linkdesk's receiver), and the request says the link came back.
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText("Reconnected: connected again at", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
});

test("ops ask every broken link of a view to reconnect as a campaign: each asked once, followed on the campaign's page, and a link that comes back is counted", async ({
  page,
  browser,
  signIn,
  stack,
  productReceiver,
}) => {
  test.setTimeout(120_000);
  const m = randomUUID().slice(0, 8);
  const customer = `campaign-e2e-${m}`;
  const tag = `campaign:${m}`;
  const webhook = `${stack.dashboardUrl}/api/webhooks/upstream`;
  const broken = await Promise.all(
    ["chase", "chase", "ally"].map((institution) =>
      upstreamCall<SandboxLink>("POST", "/links/import", {
        customer_user: { id: customer },
        institution_id: institution,
        webhook,
        link_tags: [tag],
      }),
    ),
  );

  // Support's look-up of the customer tells Linkdesk whose links they are.
  await signIn(page, "ops");
  const lookup = page.getByRole("form", { name: "Look up a customer's links" });
  await lookup.getByLabel("A customer's links").fill(customer);
  await lookup.getByRole("button", { name: "Look up" }).click();
  await expect(page.getByTestId("customer-links").getByRole("link")).toHaveCount(3);

  // From the links list filtered to the campaign's tag: the preview says who is asked, and what it costs.
  await page.goto(`/links?tag=${encodeURIComponent(tag)}`);
  await page.getByRole("link", { name: "Ask these users to reconnect…" }).click();
  await expect(page).toHaveURL(/\/reconnect\?tag=campaign/);
  const plan = page.getByTestId("campaign-plan");
  await expect(plan).toContainText("holds 3 links");
  await expect(page.getByTestId("campaign-targets")).toContainText(
    `3 links to ask (1 end user): 3 ${LINK_ERROR_INFO.auth_expired.label}.`,
  );
  await expect(page.getByTestId("campaign-cost")).toContainText("3 link sessions (POST /link-session");

  const sessions = await sandboxRequests("POST /link-session");
  await plan.getByRole("button", { name: "Send 3 reconnect requests" }).click();
  await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("job-progress")).toContainText("Finished: 3 done of 3.", { timeout: 60_000 });
  const campaignPage = page.url();
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("campaign-delivered")).toHaveText("3", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("campaign-asked")).toHaveText("3");
  expect(await sandboxRequests("POST /link-session")).toBe(sessions + 3);

  // Another tab previewing the same view finds nobody left to ask, and says why.
  const other = await browser.newPage({ baseURL: stack.dashboardUrl });
  try {
    await signIn(other, "ops", { from: `/reconnect?tag=${encodeURIComponent(tag)}` });
    await expect(other.getByTestId("campaign-targets")).toContainText("0 links to ask");
    await expect(other.getByTestId("campaign-skipped")).toContainText("Asked already within the chosen days");
    await expect(other.getByRole("button", { name: /reconnect requests?$/ })).toHaveCount(0);
  } finally {
    await other.close();
  }

  // One end user finishes the relink: the campaign counts the link reconnected (learned from its webhook).
  const message = productReceiver.tries.find((t) => t.body.data.link_id === broken[0]!.link_id)!;
  const done = await fetch(
    `${stack.sandboxUrl}/_sandbox/link-sessions/${encodeURIComponent(message.body.data.link_session_token as string)}/complete`,
    { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" },
  );
  const { exchangeable_token } = (await done.json()) as { exchangeable_token: string };
  await upstreamCall("POST", "/link-session/exchange-token", { exchangeable_token });
  await page.goto(campaignPage);
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("campaign-reconnected")).toHaveText("1 (33 %)", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("campaign-still-broken")).toHaveText("2 (67 %)");
  // The share reconnected over days: on its first day, one of the three.
  await expect(page.getByRole("table", { name: "Reconnected over days" }).getByRole("row").nth(1)).toHaveText(
    /First day\s*1\s*33 %/,
  );
  expect(await sandboxRequests("POST /link-session")).toBe(sessions + 3);

  // The two still broken are a view of their own in the links list, and asking them again is the same preview.
  await page.getByRole("link", { name: "See the 2 still broken in the links list" }).click();
  await expect(page.getByTestId("campaign-filter")).toContainText("this reconnect campaign asked that are not back");
  const listed = page.getByRole("table", { name: "Links" }).getByRole("link", { name: /^mk_/ });
  await expect(listed).toHaveCount(2);
  const hrefs = await listed.evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  expect(hrefs.sort()).toEqual([broken[1]!.link_id, broken[2]!.link_id].map((id) => `/links/${id}`).sort());
  await page.goto(campaignPage);
  await page.getByRole("link", { name: "Ask the still broken again…" }).click();
  await expect(plan).toContainText("holds 2 links");
  // Asked minutes ago: the preview says they would not be asked yet, rather than offering to send what is refused.
  await expect(page.getByTestId("campaign-targets")).toContainText("0 links to ask");
  await expect(page.getByTestId("campaign-skipped")).toContainText("never twice within 10 minutes");
});
