import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { bodyFields } from "@/lib/webhooks/body-fields";
import type { WebhookEventView } from "@/lib/webhooks/query";
import { WebhooksTable } from "./webhooks-table";

// The action module reaches Auth.js, which loads only inside Next.js; a viewer's table never calls it.
vi.mock("@/lib/actions/webhooks", () => ({ reprocessWebhookEvent: async () => undefined }));

const received = new Date("2026-03-01T12:00:00Z");

const event = (overrides: Partial<WebhookEventView>): WebhookEventView => ({
  id: "00000000-0000-4000-8000-000000000001",
  receivedAt: received,
  lastReceivedAt: received,
  verification: "verified",
  refusal: null,
  sourceAddress: "127.0.0.1",
  idempotencyKey: "idem-1",
  deliveryToken: "dt_1",
  deliveryAttempt: 1,
  kid: "key-1",
  signedAt: received,
  event: "link.state_changed",
  linkId: "mk_abc",
  eventAt: received,
  body: bodyFields({ link_id: "mk_abc", state: "error" }),
  redeliveries: 0,
  outcome: "processed",
  processAttempts: 1,
  nextAttemptAt: null,
  processedAt: new Date(received.getTime() + 1000),
  detail: "Link now errored.",
  ...overrides,
});

/** The page's text, as a reader (and find-in-page) sees it: tags dropped, attributes not text; < > & left escaped. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, " ")
    .replaceAll("&#x27;", "'")
    .replaceAll("&quot;", '"')
    .replace(/\s+/g, " ");

const render = (rows: WebhookEventView[]) =>
  renderToStaticMarkup(
    <WebhooksTable
      rows={rows}
      renderedAt={received.getTime() + 60_000}
      canReprocess={false}
      view={{ pathname: "/webhooks", query: "" }}
    />,
  );

describe("WebhooksTable", () => {
  it("puts kind, link, verification and outcome first, in words", () => {
    const html = render([event({})]);
    const headers = [...html.matchAll(/<th[^>]*>(.*?)<\/th>/g)].map((m) => textOf(m[1]!).trim());
    expect(headers.slice(0, 4)).toEqual(["Kind", "Link", "Verification", "Outcome"]);
    const text = textOf(html);
    expect(text).toContain("Link state changed");
    expect(text).toContain("Verified");
    expect(text).toContain("Processed");
    expect(text).toContain("Delivery 1 · 1 try");
    expect(html).toContain('href="/links/mk_abc"');
  });

  it("renders what the sender wrote as text: a URL is no link, markup is no markup", () => {
    const hostile = event({
      event: "<b>product.state_changed</b>",
      body: bodyFields({
        callback: "https://evil.example/steal?x=1",
        note: '<img src=x onerror="alert(1)">',
        link_id: "mk_abc",
      }),
      refusal: null,
    });
    const html = render([hostile]);
    expect(textOf(html)).toContain("https://evil.example/steal?x=1");
    expect(html).not.toMatch(/<a[^>]*evil\.example/);
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<b>product");
    expect(html).toContain("&lt;img src=x");
    // The kind Linkdesk does not know, as sent and marked so.
    expect(textOf(html)).toContain("&lt;b&gt;product.state_changed&lt;/b&gt; not known to this version of Linkdesk");
  });

  it("shows a refused request with its reason and no body, and nothing reads undefined, null or NaN", () => {
    const refused = event({
      verification: "refused",
      refusal: "No MoneyKit-Signature header: Linkdesk takes webhooks only as the upstream signs them.",
      event: null,
      linkId: null,
      eventAt: null,
      idempotencyKey: null,
      kid: null,
      deliveryAttempt: null,
      body: bodyFields(null),
      outcome: "refused",
      processAttempts: 0,
      processedAt: null,
      detail: null,
    });
    const pending = event({
      id: "00000000-0000-4000-8000-000000000002",
      outcome: "pending",
      processAttempts: 0,
      processedAt: null,
      nextAttemptAt: received,
      redeliveries: 2,
    });
    const text = textOf(render([refused, pending]));
    expect(text).toContain(
      "Refused No MoneyKit-Signature header: Linkdesk takes webhooks only as the upstream signs them.",
    );
    expect(text).toContain("Not processed");
    expect(text).toContain("A refused request's body is not kept.");
    expect(text).toContain("Delivery 1 · 2 redeliveries · not tried yet");
    expect(text).toContain("Waiting");
    expect(text).not.toMatch(/undefined|null|NaN|Invalid Date/);
  });

  it("shows a delivery signed late as the upstream's, how late, and that its link was read again instead", () => {
    const late = event({
      verification: "late",
      signedAt: new Date(received.getTime() - 7 * 60_000),
      outcome: "read_again",
      detail: "Not applied as an event: the link is read again from the upstream.",
    });
    const text = textOf(render([late]));
    expect(text).toContain("Signed late signed 7 min before it arrived");
    expect(text).toContain("Link read again");
    // Its body was proven the upstream's: it is kept and shown.
    expect(text).toContain("mk_abc");
    expect(text).not.toContain("body is not kept");
  });

  it("offers Reprocess only to those who may: no column for a viewer", () => {
    expect(textOf(render([event({})]))).not.toContain("Reprocess");
  });
});
