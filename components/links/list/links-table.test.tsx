import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DataTablePagination } from "@/components/data-table/data-table-pagination";
import { formatAgo } from "@/components/data-table/relative-time";
import { hrefWith } from "@/components/data-table/url";
import type { LinkListItem } from "@/lib/links/query";
import { InstitutionCell } from "./cells";
import { LinksTable } from "./links-table";

const NOW = Date.parse("2026-11-20T12:00:00.000Z");

function item(overrides: Partial<LinkListItem> = {}): LinkListItem {
  return {
    linkId: "mk_1",
    createdAt: "2026-11-01T00:00:00.000Z",
    institutionId: "chase",
    institutionName: "Chase",
    institutionAvatar: "https://cdn.example.com/chase.png",
    state: "error",
    errorCode: "auth_expired",
    provider: "plaid",
    linkTags: ["team:retail"],
    productErrorCodes: ["rate_limit"],
    products: [
      { product: "accounts", refreshedAt: "2026-11-20T09:00:00.000Z", errorCode: null, errorMessage: null, unavailable: null },
      { product: "transactions", refreshedAt: null, errorCode: "rate_limit", errorMessage: "slow down", unavailable: null },
      { product: "identity", refreshedAt: null, errorCode: null, errorMessage: null, unavailable: "not_supported" },
    ],
    lastRefreshedAt: "2026-11-20T09:00:00.000Z",
    seenAt: "2026-11-20T11:58:00.000Z",
    deletedSeenAt: null,
    deprecated: { tags: ["legacy"], lastSyncedAt: "2026-11-19T08:00:00Z" },
    ...overrides,
  };
}

const render = (rows: LinkListItem[], query = "state=error&sort=provider&dir=asc&page=3") =>
  renderToStaticMarkup(<LinksTable rows={rows} sort={{ id: "provider", dir: "asc" }} view={{ pathname: "/links", query }} renderedAt={NOW} />);

describe("InstitutionCell", () => {
  it("loads an avatar only from an http(s) address, else shows a placeholder; the name is text", () => {
    for (const bad of ["javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:image/svg+xml,<svg onload=alert(1)>", "/relative.png", "not a url", null]) {
      const html = renderToStaticMarkup(<InstitutionCell id="x" name={'<img src=x onerror=alert(1)>Évian'} avatar={bad} />);
      expect(html, String(bad)).not.toContain("<img");
      expect(html).toContain('data-testid="avatar-placeholder"');
      expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;Évian");
    }
    const ok = renderToStaticMarkup(<InstitutionCell id="chase" name="Chase" avatar="https://cdn.example.com/chase.png" />);
    expect(ok).toContain('<img src="https://cdn.example.com/chase.png"');
    expect(ok).toContain('referrerPolicy="no-referrer"');
  });
});

describe("LinksTable", () => {
  it("renders each column from the row, error code with its meaning and remedy", () => {
    const html = render([item()]);
    expect(html).toContain('href="/links/mk_1"');
    expect(html).toContain("Authorization expired");
    expect(html).toContain("User must reconnect");
    expect(html).toContain("Error</span>");
    expect(html).toContain("error rate_limit");
    expect(html).toContain("unavailable: not_supported");
    expect(html).toContain("team:retail");
    // Relative to the server's render clock, with the exact time on hover.
    expect(html).toContain('title="2026-11-20 09:00:00 UTC">3 h ago</time>');
    // Deprecated fields only with their label.
    expect(html).toMatch(/deprecated<\/span> tags: legacy/);
    expect(html).toMatch(/deprecated<\/span> last_synced_at/);
  });

  it("links each sortable header to the view in the next order, back on the first page", () => {
    const html = render([item()]);
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
    // Sorted by provider ascending: its header flips it; the others start at their own first direction.
    expect(hrefs).toContain("/links?state=error&sort=provider&dir=desc");
    expect(hrefs).toContain("/links?state=error&sort=institution_name&dir=asc");
    expect(hrefs).toContain("/links?state=error&sort=last_refreshed_at&dir=desc");
    expect(hrefs).toContain("/links?state=error&sort=created_at&dir=desc");
    expect(hrefs.some((h) => h.includes("sort=products") || h.includes("sort=link_tags"))).toBe(false);
    expect(html).toMatch(/<th[^>]*aria-sort="ascending"[^>]*>.*?Provider/);
  });

  it("shows a link never read, and a code Linkdesk does not know, in words", () => {
    const html = render([item({ state: null, errorCode: "brand_new_code", institutionId: null, institutionName: null, products: [], lastRefreshedAt: null, deprecated: { tags: null, lastSyncedAt: null } })]);
    expect(html).toContain("Not read yet");
    expect(html).toContain("brand_new_code");
    expect(html).toContain("Not a code Linkdesk knows");
    expect(html).toContain("never");
  });
});

describe("the kit's links", () => {
  it("changes only the named parameters", () => {
    expect(hrefWith("/links", "state=error&page=3", { page: undefined, sort: "state" })).toBe("/links?state=error&sort=state");
    expect(hrefWith("/links", "page=2", { page: undefined })).toBe("/links");
  });

  it("pages by number, keeping the view", () => {
    const html = renderToStaticMarkup(
      <DataTablePagination view={{ pathname: "/links", query: "state=error&page=2" }} page={2} pageCount={3} total={120} pageSize={50} noun={{ one: "link", other: "links" }} />,
    );
    expect(html).toContain("Showing 51–100 of 120 links");
    expect(html).toContain('href="/links?state=error"');
    expect(html).toContain('href="/links?state=error&amp;page=3"');
  });

  it("says how long ago", () => {
    expect(formatAgo(NOW - 5_000, NOW)).toBe("just now");
    expect(formatAgo(NOW - 3 * 60_000, NOW)).toBe("3 min ago");
    expect(formatAgo(NOW - 3 * 3600_000, NOW)).toBe("3 h ago");
    expect(formatAgo(NOW - 5 * 86400_000, NOW)).toBe("5 d ago");
    expect(formatAgo(NOW + 2 * 3600_000, NOW)).toBe("in 2 h");
    expect(formatAgo(NOW - 90 * 86400_000, NOW)).toBe("2026-08-22");
  });
});
