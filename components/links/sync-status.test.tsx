import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { SyncStatus } from "@/lib/sync/types";
import { SyncStatusLine } from "./sync-status";

const NOW = new Date("2026-11-20T12:00:00Z");
const status = (over: Partial<SyncStatus> = {}): SyncStatus => ({
  phase: "details",
  done: 1006,
  total: 1937,
  etaSeconds: 180,
  runStartedAt: new Date("2026-11-20T11:55:00Z"),
  runFinishedAt: null,
  lastError: null,
  running: true,
  requestedAt: null,
  failing: null,
  ...over,
});

const text = (html: string) => html.replace(/<[^>]+>/g, "");

describe("SyncStatusLine", () => {
  it("counts read and unread links as the read model holds them (the page's own numbers), with the run's time left", () => {
    // The run has done 1,006 of its 1,937, but a person's click read 7 more meanwhile: the read model says 924 unread.
    const html = renderToStaticMarkup(
      <SyncStatusLine status={status()} readModel={{ total: 1937, unread: 924 }} now={NOW} />,
    );
    expect(text(html)).toContain("Not synced yet · 1,013 of 1,937 links read, 924 not read yet, about 3 min left");
    expect(html).toContain('aria-valuenow="1013"');
    expect(html).toContain('aria-valuemax="1937"');
  });

  it("shows a later run's progress once every link has been read", () => {
    const html = renderToStaticMarkup(
      <SyncStatusLine
        status={status({ done: 500, total: 2000, runFinishedAt: new Date("2026-11-20T11:40:00Z") })}
        readModel={{ total: 2000, unread: 0 }}
        now={NOW}
      />,
    );
    expect(text(html)).toContain("Synced 20 min ago · refreshing 500 / 2,000 links, about 3 min left");
  });

  it("says since when and why the sync has been failing and how often it tries, instead of the last problem", () => {
    const failing = { since: new Date("2026-11-20T10:42:10Z"), failure: "the upstream answers 503", retryMs: 120_000 };
    const html = renderToStaticMarkup(
      <SyncStatusLine
        status={status({ failing, lastError: "link mk_1 could not be read (HTTP 503)" })}
        readModel={{ total: 1937, unread: 0 }}
        now={NOW}
      />,
    );
    expect(text(html)).toContain(
      "The links sync has been failing since 10:42 UTC (the upstream answers 503); retrying every 2 min.",
    );
    expect(text(html)).not.toContain("Last problem");
    // Failing since another day: the date too.
    const older = renderToStaticMarkup(
      <SyncStatusLine
        status={status({ failing: { ...failing, since: new Date("2026-11-19T23:05:00Z"), retryMs: 20_000 } })}
        readModel={{ total: 1937, unread: 0 }}
        now={NOW}
      />,
    );
    expect(text(older)).toContain(
      "failing since 2026-11-19 23:05 UTC (the upstream answers 503); retrying every 20 s.",
    );
    // Recovered: the line is gone.
    const recovered = renderToStaticMarkup(
      <SyncStatusLine status={status()} readModel={{ total: 1937, unread: 0 }} now={NOW} />,
    );
    expect(recovered).not.toContain("failing");
  });

  it("says a stopped first read resumes, still with the unread count", () => {
    const html = renderToStaticMarkup(
      <SyncStatusLine status={status({ running: false })} readModel={{ total: 1937, unread: 924 }} now={NOW} />,
    );
    expect(text(html)).toContain("1,013 of 1,937 links read, 924 not read yet, resumes shortly");
    expect(html).not.toContain("progressbar");
  });
});
