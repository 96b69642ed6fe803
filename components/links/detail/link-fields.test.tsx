import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { wireLink } from "@/lib/testing/wire-fixtures";
import { ErrorExplainer } from "./error-explainer";
import { LinkFields } from "./link-fields";
import { ProductStatusTable } from "./product-status-table";

// The link page renders upstream text: these check it stays text, and that addresses are used only when http(s).

const HOSTILE = `<img src=x onerror="alert(1)">`;

describe("LinkFields", () => {
  it("shows every field of the Link object, the older ones plainly under All fields, and no avatar address", () => {
    const link = wireLink({
      auth_expired_at: "2026-11-01T00:00:00Z",
      tags: ["legacy", { odd: 1 }],
      available_products: ["identity", "investments"],
    });
    const html = renderToStaticMarkup(<LinkFields link={link} createdAt={new Date("2026-01-02T03:04:05Z")} />);
    for (const text of [
      link.link_id,
      link.institution_id,
      link.institution_name,
      "Connected",
      link.provider,
      "team:retail",
      "https://hooks.example.com/links",
      "2026-11-01 00:00:00 UTC",
      "identity",
      "investments",
      "2026-01-02 03:04:05 UTC",
      "2026-11-19 08:00:00 UTC",
      "legacy",
      "{&quot;odd&quot;:1}",
    ]) {
      expect(html).toContain(text);
    }
    expect(html.toLowerCase()).not.toContain("deprecated");
    const allFields = html.slice(html.indexOf('data-testid="all-fields"'));
    expect(allFields).toContain("Last synced at");
    expect(allFields).toContain("legacy");
    expect(html).toContain('<img src="https://cdn.example.com/chase.png"');
    // The picture is shown; its address is not a field to read.
    expect(html.replace(/<img[^>]*>/g, "")).not.toContain("cdn.example.com/chase.png");
    expect(html).toContain('<a href="https://hooks.example.com/links"');
  });

  it("renders hostile upstream text as text, and loads or links nothing that is not http(s)", () => {
    const link = wireLink({
      institution_name: HOSTILE,
      institution_avatar: "javascript:alert(1)",
      webhook: "javascript:alert(2)",
      link_tags: [HOSTILE],
    });
    const html = renderToStaticMarkup(<LinkFields link={link} />);
    expect(html).not.toContain("<img");
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).toContain('data-testid="avatar-placeholder"');
    expect(html).toContain("its logo address is not http(s): not loaded");
  });

  it("shows a provider this version does not know as sent, marked as not known, and a known one plainly", () => {
    const provider = (html: string) => html.slice(html.indexOf('data-testid="link-provider"')).split("</dd>")[0]!;
    const unknown = provider(renderToStaticMarkup(<LinkFields link={wireLink({ provider: "truelayer" })} />));
    expect(unknown).toContain("truelayer");
    expect(unknown).toContain("not known to this version of Linkdesk");
    const known = provider(renderToStaticMarkup(<LinkFields link={wireLink({ provider: "plaid" })} />));
    expect(known).toContain("plaid");
    expect(known).not.toContain("not known");
  });
});

describe("ProductStatusTable", () => {
  it("shows refresh times, errors, unavailable reasons and last_enriched per product", () => {
    const html = renderToStaticMarkup(
      <ProductStatusTable
        products={{
          transactions: {
            refreshed_at: "2026-11-19T08:00:00Z",
            last_enriched: "2026-11-19T08:05:00Z",
            error_code: "rate_limit",
            error_message: HOSTILE,
          },
          investments: { unavailable: "The institution does not offer investment data." },
        }}
      />,
    );
    expect(html).toContain("rate_limit");
    expect(html).toContain("2026-11-19 08:05:00 UTC");
    expect(html).toContain("The institution does not offer investment data.");
    expect(html).toContain("&lt;img src=x");
    expect(html).not.toContain("<img");
    // In PRODUCTS order, whatever order the upstream sent.
    expect(html.indexOf("product-transactions")).toBeLessThan(html.indexOf("product-investments"));
  });
});

describe("ErrorExplainer", () => {
  it("explains a user-action code with the relink through existing_link_id", () => {
    const html = renderToStaticMarkup(
      <ErrorExplainer link={wireLink({ state: "error", error_code: "auth_expired" })} />,
    );
    expect(html).toContain("Authorization expired");
    expect(html).toContain("User must reconnect");
    expect(html).toContain("existing_link_id");
    expect(html).toContain("mk_eqkWN34UEoa2NxyALG8pcV");
  });

  it("tells staff to wait on an outage, without a relink", () => {
    const html = renderToStaticMarkup(
      <ErrorExplainer link={wireLink({ state: "error", error_code: "institution_error" })} />,
    );
    expect(html).toContain("Wait: institution outage");
    expect(html).not.toContain("existing_link_id");
  });

  it("says nothing for a healthy link", () => {
    expect(renderToStaticMarkup(<ErrorExplainer link={wireLink()} />)).toBe("");
  });
});
