import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import type { RefreshOffer } from "@/lib/links/operations";
import { wireLink } from "@/lib/testing/wire-fixtures";

// What the link page's operations show before anyone clicks: nothing for a role that may not operate a link, the
// reason a button is disabled, and upstream text as text.

vi.mock("next/navigation", () => ({ useRouter: () => ({ refresh: () => undefined }) }));
// The actions run on the server; here only their place in the forms matters.
vi.mock("@/lib/actions/link-operations", () => ({
  sendTestWebhook: async () => undefined,
  refreshProducts: async () => undefined,
  updateLink: async () => undefined,
}));

const { LinkOperations } = await import("./link-operations");
const { TestWebhookForm } = await import("./test-webhook-form");
const { ProductRefreshList } = await import("./product-refresh-list");
const { LinkSettingsForm } = await import("./link-settings-form");
const { updateLinkDefaults } = await import("@/lib/schemas/link-operations");

const HOSTILE = `<img src=x onerror="alert(1)">`;

describe("LinkOperations", () => {
  it("shows nothing to a viewer, and no form on a deleted link", () => {
    expect(renderToStaticMarkup(<LinkOperations link={wireLink()} role="viewer" deleted={false} />)).toBe("");
    const deleted = renderToStaticMarkup(
      <LinkOperations link={wireLink({ state: "deleted" })} role="support" deleted />,
    );
    expect(deleted).toContain("The link is deleted");
    expect(deleted).not.toContain("<button");
  });
});

describe("TestWebhookForm", () => {
  it("says in words why a link without a webhook cannot be sent a test, beside the disabled button", () => {
    const html = renderToStaticMarkup(<TestWebhookForm linkId="mk_1" webhook={null} />);
    expect(html).toMatch(/<button type="submit" disabled="" aria-describedby="test-webhook-disabled"/);
    expect(html).toContain("The link has no webhook, so the upstream has nowhere to send a test.");
    const withHook = renderToStaticMarkup(
      <TestWebhookForm linkId="mk_1" webhook={`https://hooks.example/${HOSTILE}`} />,
    );
    expect(withHook).not.toContain("test-webhook-disabled");
    expect(withHook).not.toContain(HOSTILE);
    // The three events the upstream sends, and no other.
    expect(withHook.match(/<option /g)).toHaveLength(3);
  });
});

describe("ProductRefreshList", () => {
  it("shows when each product may be refreshed, with the held ones' buttons disabled, upstream text as text", () => {
    const offers: RefreshOffer[] = [
      {
        product: "accounts",
        label: "Accounts",
        refreshedAt: null,
        lastAttemptedAt: null,
        nextAt: null,
        waitFor: null,
        askedAt: null,
        blocked: null,
        sentence: "Accounts: may be refreshed now (never refreshed).",
      },
      {
        product: "transactions",
        label: "Transactions",
        refreshedAt: "2026-11-25T13:05:00Z",
        lastAttemptedAt: null,
        nextAt: "2026-11-26T13:05:00Z",
        waitFor: "interval",
        askedAt: null,
        blocked: null,
        sentence: "Transactions: may be refreshed again at 2026-11-26 13:05 UTC (refreshed 2026-11-25 13:05 UTC).",
      },
      {
        product: "investments",
        label: "Investments",
        refreshedAt: null,
        lastAttemptedAt: null,
        nextAt: null,
        waitFor: null,
        askedAt: null,
        blocked: `Unavailable: ${HOSTILE}`,
        sentence: `Investments: cannot be refreshed now. Unavailable: ${HOSTILE}`,
      },
    ];
    const html = renderToStaticMarkup(<ProductRefreshList linkId="mk_1" offers={offers} />);
    expect(html).toContain(
      "Transactions: may be refreshed again at 2026-11-26 13:05 UTC (refreshed 2026-11-25 13:05 UTC).",
    );
    expect(html).not.toContain(HOSTILE);
    for (const product of ["transactions", "investments"]) {
      expect(html).toMatch(
        new RegExp(`<button type="button" disabled="" aria-describedby="refresh-offer-${product}-when"`),
      );
    }
  });
});

describe("LinkSettingsForm", () => {
  it("starts from the link's webhook and tags, one a line, as text", () => {
    const html = renderToStaticMarkup(
      <LinkSettingsForm
        defaults={updateLinkDefaults(
          wireLink({ webhook: `https://hooks.example/?q=${HOSTILE}`, link_tags: ["team:retail", "region:eu"] }),
        )}
      />,
    );
    expect(html).toContain('value="https://hooks.example/?q=&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"');
    expect(html).toContain(">team:retail\nregion:eu</textarea>");
  });
});
