import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { DataTablePagination } from "@/components/data-table/data-table-pagination";
import { formatAgo } from "@/components/data-table/relative-time";
import { hrefWith } from "@/components/data-table/url";
import type { LinkListItem } from "@/lib/links/list-query";
import { LINK_ERROR_INFO } from "@/lib/links/error-codes";
import { InstitutionCell, linkCellHint } from "./cells";
import { LinksTable, SERVER_RENDERED_ROWS } from "./links-table";
import { linkTablePage, linkTableRows, sharedLinkTablePage } from "./rows";

// The view menu's server action is not called while rendering; keep its server-only imports out of this test.
vi.mock("@/lib/actions/preferences", () => ({ saveTableView: async () => ({ data: { saved: true } }) }));

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
      {
        product: "accounts",
        refreshedAt: "2026-11-20T09:00:00.000Z",
        errorCode: null,
        errorMessage: null,
        unavailable: null,
      },
      {
        product: "transactions",
        refreshedAt: null,
        errorCode: "rate_limit",
        errorMessage: "slow down",
        unavailable: null,
      },
      { product: "identity", refreshedAt: null, errorCode: null, errorMessage: null, unavailable: "not_supported" },
    ],
    lastRefreshedAt: "2026-11-20T09:00:00.000Z",
    seenAt: "2026-11-20T11:58:00.000Z",
    deletedSeenAt: null,
    learnedFrom: "registration",
    learnedAt: "2026-11-20T09:30:00.000Z",
    deprecated: { tags: ["legacy"], lastSyncedAt: "2026-11-19T08:00:00Z" },
    ...overrides,
  };
}

/** Text as React writes it into HTML. */
const asHtml = (text: string) => renderToStaticMarkup(<>{text}</>);

const render = (rows: LinkListItem[], query = "state=error&sort=provider&dir=asc&page=3") =>
  renderToStaticMarkup(
    <LinksTable
      page={linkTablePage(rows)}
      sort={{ id: "provider", dir: "asc" }}
      view={{ pathname: "/links", query }}
      renderedAt={NOW}
    />,
  );

describe("InstitutionCell", () => {
  it("loads an avatar only from an http(s) address, else shows initials; the name is text", () => {
    for (const bad of [
      "javascript:alert(1)",
      "JAVASCRIPT:alert(1)",
      "data:image/svg+xml,<svg onload=alert(1)>",
      "/relative.png",
      "not a url",
      null,
    ]) {
      const html = renderToStaticMarkup(
        <InstitutionCell id="x" name={"<img src=x onerror=alert(1)>Évian"} avatar={bad} />,
      );
      expect(html, String(bad)).not.toContain("<img");
      expect(html).toContain('data-testid="avatar-placeholder"');
      expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;Évian");
    }
    const ok = renderToStaticMarkup(
      <InstitutionCell id="chase" name="Chase" avatar="https://cdn.example.com/chase.png" />,
    );
    expect(ok).toContain('src="https://cdn.example.com/chase.png"');
    // Square whatever the picture's shape, by its class (no inline style repeated on every row).
    expect(ok).toMatch(/<img [^>]*width="20" height="20"[^>]*class="entity-avatar"/);
  });
});

describe("LinksTable", () => {
  it("renders each column on one line: short link id with the whole id, chips that open their explanation, product marks", () => {
    const row = item({ linkId: "mk_eqkWN34UEoa2NxyALG8pcV", linkTags: ["team:retail", "plan:pro"] });
    const html = render([row]);
    expect(html).toContain('href="/links/mk_eqkWN34UEoa2NxyALG8pcV"');
    expect(html).toContain(
      '<span aria-hidden="true">mk_eqkW…8pcV</span><span class="sr-only">mk_eqkWN34UEoa2NxyALG8pcV</span>',
    );
    expect(html).toContain('aria-label="Copy link id mk_eqkWN34UEoa2NxyALG8pcV"');
    // The error code's chip says its name and opens its explanation (what it means and what to do) on demand: the
    // words are not in every row's HTML, only the one shared explanation element is.
    expect(html).toMatch(/data-hint="code:auth_expired"[^>]*>Authorization expired<\/button>/);
    expect(html).not.toContain(asHtml(LINK_ERROR_INFO.auth_expired.remedy));
    expect(html.match(/role="tooltip"/g)).toHaveLength(1);
    const explained = (key: string) =>
      renderToStaticMarkup(
        <>{linkCellHint(key, (id) => (id === row.linkId ? linkTableRows(linkTablePage([row]))[0] : undefined), NOW)}</>,
      );
    expect(explained("code:auth_expired")).toContain(asHtml(LINK_ERROR_INFO.auth_expired.meaning));
    expect(explained("code:auth_expired")).toContain(asHtml(LINK_ERROR_INFO.auth_expired.remedy));
    expect(html).toMatch(/data-hint="state:error"[^>]*>Error<\/button>/);
    expect(explained("state:error")).toContain("Error</span>");
    expect(html).toMatch(
      /data-hint="products:mk_eqkWN34UEoa2NxyALG8pcV"[^>]*aria-label="Products: 1 failing, 1 refreshed, 1 unavailable"/,
    );
    const products = explained("products:mk_eqkWN34UEoa2NxyALG8pcV");
    expect(products).toContain("Transactions: failing (rate_limit): slow down");
    expect(products).toContain("Identity: unavailable: not_supported");
    expect(products).toContain("Accounts: refreshed 3 h ago");
    expect(html).toContain("team:retail</span>");
    expect(html).toContain("+1</span>");
    // Relative to the server's render clock, with the exact time on hover.
    expect(html).toContain(`title="2026-11-20 09:00:00 UTC">3 h ago</time>`);
    // Deprecated upstream fields are not the list's business (the link page has them under "All fields").
    expect(html.toLowerCase()).not.toContain("deprecated");
    expect(html).not.toContain("legacy");
  });

  it("puts a first screen of rows in the server's HTML and leaves the rest of the page to the browser", () => {
    const rows = Array.from({ length: 50 }, (_, i) => item({ linkId: `mk_row${String(i).padStart(2, "0")}` }));
    const html = render(rows);
    const first = SERVER_RENDERED_ROWS.comfortable;
    expect(html.match(/<tr>/g)?.length).toBe(1 + first);
    expect(html).toContain('href="/links/mk_row00"');
    expect(html).toContain(`href="/links/mk_row${first - 1}"`);
    expect(html).not.toContain(`href="/links/mk_row${first}"`);
    // Compact rows are shorter: a first screen holds more of them.
    const compact = renderToStaticMarkup(
      <LinksTable
        page={linkTablePage(rows)}
        sort={{ id: "provider", dir: "asc" }}
        view={{ pathname: "/links", query: "" }}
        renderedAt={NOW}
        tableView={{ table: "links", hidden: [], density: "compact" }}
      />,
    );
    expect(compact.match(/<tr>/g)?.length).toBe(1 + SERVER_RENDERED_ROWS.compact);
    // Every row crosses to the browser in the page's payload (e2e/pages.spec.ts sees all 50 drawn there).
    expect(linkTableRows(linkTablePage(rows))).toHaveLength(50);
  });

  it("shares one table page between the views of one kept read, and makes another for other rows", () => {
    const kept = [item({ linkId: "mk_kept" })];
    const page = sharedLinkTablePage(kept);
    expect(sharedLinkTablePage(kept)).toBe(page);
    expect(page).toEqual(linkTablePage(kept));
    const other = sharedLinkTablePage([item({ linkId: "mk_other" })]);
    expect(linkTableRows(other)[0]!.linkId).toBe("mk_other");
  });

  it("links each sortable header to the view in the next order, back on the first page", () => {
    const html = render([item()]);
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
    // Sorted by provider ascending: its header flips it; the others start at their own first direction.
    expect(hrefs).toContain("/links?state=error&sort=provider&dir=desc");
    expect(hrefs).toContain("/links?state=error&sort=institution_name&dir=asc");
    expect(hrefs).toContain("/links?state=error&sort=last_refreshed_at&dir=desc");
    expect(hrefs.some((h) => h.includes("sort=products") || h.includes("sort=link_tags"))).toBe(false);
    expect(html).toMatch(/<th[^>]*aria-sort="ascending"[^>]*>.*?Provider/);
  });

  it("shows the person's own view: their hidden columns are not rendered, and their row height", () => {
    const all = renderToStaticMarkup(
      <LinksTable
        page={linkTablePage([item()])}
        sort={{ id: "provider", dir: "asc" }}
        view={{ pathname: "/links", query: "" }}
        renderedAt={NOW}
        tableView={{ table: "links", hidden: [], density: "compact" }}
      />,
    );
    expect(all).toContain(">Created<");
    expect(all).toContain('data-density="compact"');
    const fewer = renderToStaticMarkup(
      <LinksTable
        page={linkTablePage([item()])}
        sort={{ id: "provider", dir: "asc" }}
        view={{ pathname: "/links", query: "" }}
        renderedAt={NOW}
        tableView={{ table: "links", hidden: ["provider", "products", "created_at"], density: "comfortable" }}
      />,
    );
    expect(fewer).not.toMatch(/<th[^>]*>.*?Provider/);
    expect(fewer).not.toContain("Products: ");
    expect(fewer).not.toMatch(/<th[^>]*>.*?Created/);
    expect(fewer).toContain('data-density="comfortable"');
    expect(fewer).toContain("(3 hidden)");
  });

  it("says where Linkdesk learned of each link, in words, and when, with the exact time on hover", () => {
    const html = render([
      item({ linkId: "mk_registered" }),
      item({ linkId: "mk_looked_up", learnedFrom: "customer_lookup", learnedAt: "2026-11-20T11:00:00.000Z" }),
      item({ linkId: "mk_older", learnedFrom: null, learnedAt: null }),
    ]);
    expect(html).toMatch(/<th[^>]*>.*?Learned from/);
    expect(html).toMatch(
      /data-hint="source:registration"[^>]*>Registration<\/button><time[^>]*title="2026-11-20 09:30:00 UTC"[^>]*>2 h ago<\/time>/,
    );
    expect(html).toMatch(
      /data-hint="source:customer_lookup"[^>]*>Customer lookup<\/button><time[^>]*title="2026-11-20 11:00:00 UTC"[^>]*>1 h ago<\/time>/,
    );
    expect(renderToStaticMarkup(<>{linkCellHint("source:registration", () => undefined, NOW)}</>)).toContain(
      "The product&#x27;s back end registered the link&#x27;s id",
    );
    // Not sortable: no index orders the list by it.
    expect(html).not.toContain("sort=learned_from");
  });

  it("shows a link never read, and a code Linkdesk does not know, in words", () => {
    const html = render([
      item({
        state: null,
        errorCode: "brand_new_code",
        institutionId: null,
        institutionName: null,
        products: [],
        lastRefreshedAt: null,
        deprecated: { tags: null, lastSyncedAt: null },
      }),
    ]);
    expect(html).toContain("Not read yet");
    expect(html).toContain("brand_new_code");
    expect(html).toMatch(/brand_new_code<\/span><span[^>]*>not known</);
    expect(renderToStaticMarkup(<>{linkCellHint("code:brand_new_code", () => undefined, NOW)}</>)).toContain(
      "brand_new_code (not known to this version of Linkdesk)",
    );
    expect(renderToStaticMarkup(<>{linkCellHint("unread", () => undefined, NOW)}</>)).toContain(
      "has not read its details yet",
    );
    expect(html).toContain("never");
  });
});

describe("a page of rows as it crosses to the browser", () => {
  it("names each institution once, counts times back from the page's newest and names known products by place, and the browser gets every row back as read", () => {
    const rows = [
      item({ linkId: "mk_a" }),
      item({ linkId: "mk_b", createdAt: "2026-11-02T00:00:00.000Z" }),
      // Read at another time, the same institution id under another name and picture: that row keeps its own.
      item({ linkId: "mk_c", institutionName: "JPMorgan Chase", institutionAvatar: null }),
      item({
        linkId: "mk_d",
        institutionId: null,
        institutionName: "No id bank",
        institutionAvatar: "https://cdn.example.com/x.png",
      }),
      // Ids are upstream text: one that is an object's property name is still only a key.
      item({ linkId: "mk_e", institutionId: "__proto__", institutionName: "Proto", institutionAvatar: null }),
      // A time the upstream sent that is not one stays the text it was.
      item({
        linkId: "mk_f",
        lastRefreshedAt: "yesterday-ish",
        products: [
          { product: "accounts", refreshedAt: "soon", errorCode: null, errorMessage: null, unavailable: null },
        ],
      }),
    ];
    const page = linkTablePage(rows);
    const wire = JSON.stringify({ at: page.at, rows: page.rows, institutions: [...page.institutions] });
    expect(wire.match(/cdn\.example\.com\/chase\.png/g)).toHaveLength(1);
    expect(wire).not.toContain("2026-11-01T00:00:00.000Z");
    expect(page.at).toBe(Date.parse("2026-11-20T09:30:00.000Z"));
    expect(wire).not.toContain(String(Date.parse("2026-11-01T00:00:00.000Z")));
    expect(wire).not.toContain('"accounts"');
    // Fields by position: no field's name is repeated row after row.
    expect(wire).not.toContain('"createdAt"');
    expect(wire).not.toContain('"refreshedAt"');

    const back = linkTableRows(page);
    expect(back[0]!.createdAt).toBe(Date.parse("2026-11-01T00:00:00.000Z"));
    expect(back.map((r) => [r.linkId, r.institutionId, r.institutionName, r.institutionAvatar])).toEqual([
      ["mk_a", "chase", "Chase", "https://cdn.example.com/chase.png"],
      ["mk_b", "chase", "Chase", "https://cdn.example.com/chase.png"],
      ["mk_c", "chase", "JPMorgan Chase", null],
      ["mk_d", null, "No id bank", "https://cdn.example.com/x.png"],
      ["mk_e", "__proto__", "Proto", null],
      ["mk_f", "chase", "Chase", "https://cdn.example.com/chase.png"],
    ]);
    expect(back[5]!.lastRefreshedAt).toBe("yesterday-ish");
    expect(back[5]!.products).toEqual([{ product: "accounts", refreshedAt: "soon" }]);
    // Empty product fields stay on the server.
    expect(back[0]!.products[2]).toEqual({ product: "identity", unavailable: "not_supported" });

    const html = render(rows);
    expect(html).toContain(">yesterday-ish<");
    expect(html).toContain(">JPMorgan Chase<");
    expect(renderToStaticMarkup(<>{linkCellHint("products:mk_f", () => back[5], NOW)}</>)).toContain(
      "Accounts: refreshed soon",
    );
  });
});

describe("the kit's links", () => {
  it("changes only the named parameters", () => {
    expect(hrefWith("/links", "state=error&page=3", { page: undefined, sort: "state" })).toBe(
      "/links?state=error&sort=state",
    );
    expect(hrefWith("/links", "page=2", { page: undefined })).toBe("/links");
  });

  it("pages by number, keeping the view", () => {
    const html = renderToStaticMarkup(
      <DataTablePagination
        view={{ pathname: "/links", query: "state=error&page=2" }}
        page={2}
        pageCount={3}
        total={120}
        pageSize={50}
        noun={{ one: "link", other: "links" }}
      />,
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
