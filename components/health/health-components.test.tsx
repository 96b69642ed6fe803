import { readFileSync } from "node:fs";
import path from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import type { HealthSummary, WhoActsShare } from "@/lib/links/health-summary";
import type { HealthTrend } from "@/lib/links/health-trend";
import { parseLinkListParams } from "@/lib/links/list-params";
import { BarList } from "./bar-list";
import { InstitutionErrorsTable } from "./error-sources";
import { HealthNow } from "./health-now";
import { linksHref } from "./links-href";
import { ChartNumbers, niceCeiling, StackedAreaChart, valueAxis } from "./stacked-area-chart";
import { errorCodesOverTime, statesOverTime, TrendCharts, whoActsSeries } from "./trend-charts";
import { WhoActsSplit } from "./who-acts";

/** Every href on the page opens the list with exactly the filters meant: none dropped by the list's parser. */
function listParamsOf(href: string) {
  const url = new URL(href, "http://linkdesk.test");
  expect(url.pathname).toBe("/links");
  const { params, dropped } = parseLinkListParams(url.searchParams);
  expect(dropped).toEqual([]);
  return params;
}

const hrefsIn = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));

// The charts draw their plot once React runs in the browser; most tests here render them as the browser does.
const browser = vi.hoisted(() => ({ hydrated: true }));
vi.mock("@/components/ui/use-hydrated", () => ({ useHydrated: () => browser.hydrated }));

describe("linksHref", () => {
  it("writes the list's URL contract", () => {
    expect(linksHref()).toBe("/links");
    expect(linksHref({ error_code: "auth_expired" })).toBe("/links?error_code=auth_expired");
    expect(listParamsOf(linksHref({ state: "error", institution: "inst & co/é" }))).toEqual({
      state: "error",
      institution: "inst & co/é",
    });
    expect(listParamsOf(linksHref({ stale: 7 }))).toEqual({ stale: 7 });
    expect(listParamsOf(linksHref({ product_error: "rate_limit" }))).toEqual({ product_error: "rate_limit" });
  });
});

describe("Health widgets", () => {
  it("make each number of the who-acts split a link to its error code", () => {
    const groups: WhoActsShare[] = [
      { whoActs: "user", count: 3, share: 0.6, codes: [{ errorCode: "auth_expired", count: 3 }] },
      { whoActs: "wait", count: 1, share: 0.2, codes: [{ errorCode: "institution_error", count: 1 }] },
      { whoActs: "service", count: 1, share: 0.2, codes: [{ errorCode: "system_error", count: 1 }] },
    ];
    const html = renderToStaticMarkup(<WhoActsSplit groups={groups} withErrorCode={5} />);
    const params = hrefsIn(html).map(listParamsOf);
    expect(params).toEqual(
      expect.arrayContaining([
        { error_code: "auth_expired" },
        { error_code: "institution_error" },
        { error_code: "system_error" },
      ]),
    );
    expect(html).toContain("60%");
    // Only a person who may start campaigns is offered one over the user's links.
    expect(html).not.toContain("/reconnect");
    const ops = renderToStaticMarkup(<WhoActsSplit groups={groups} withErrorCode={5} canCampaign />);
    expect(hrefsIn(ops)).toContain("/reconnect?who_acts=user");
  });

  it("render institution names from the upstream as text, linking the error count to that institution's error links", () => {
    const html = renderToStaticMarkup(
      <InstitutionErrorsTable
        rows={[{ institutionId: "script_savings", institutionName: "<script>alert(1)</script>", count: 12 }]}
      />,
    );
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(hrefsIn(html).map(listParamsOf)).toEqual([{ state: "error", institution: "script_savings" }]);
  });

  it("draw bars whose rows are links, the bar itself hidden from screen readers", () => {
    const html = renderToStaticMarkup(
      <BarList bars={[{ key: "a", label: "Connected", count: 1234, href: "/links?state=connected" }]} />,
    );
    expect(html).toContain("1,234");
    expect(html).toContain('href="/links?state=connected"');
    expect(html).toContain('aria-hidden="true"');
    // Sized by the list's width: in a narrow card the bar takes a row of its own rather than shrinking to a dot.
    expect(html).toContain("@container");
    expect(html).toContain('class="group bar-row"');
    expect(html).toContain('class="bar-track"');
    const css = readFileSync(path.join(process.cwd(), "app/globals.css"), "utf8");
    expect(css).toMatch(/\.bar-row \{\s*@apply [^;]*@md:grid-cols-\[minmax\(8rem,14rem\)_minmax\(6rem,1fr\)_auto\]/);
    expect(css).toMatch(/\.bar-track \{\s*@apply [^;]*col-span-2/);
  });
});

describe("StackedAreaChart", () => {
  const DAY = 86_400_000;
  const to = new Date("2026-11-20T00:00:00Z");
  const from = new Date(to.getTime() - 3 * DAY);
  const trend: HealthTrend = {
    from,
    to,
    points: [0, 1, 2].map((i) => ({
      at: new Date(from.getTime() + (i + 1) * DAY),
      total: 10 + i,
      byState: { connected: 8, error: 2 + i },
      byErrorCode: { auth_expired: 1 + i, system_error: 1 },
      source: i === 0 ? ("demo" as const) : ("sync" as const),
    })),
  };
  const times = trend.points.map((p) => p.at.getTime());
  const statesChart = () =>
    renderToStaticMarkup(
      <StackedAreaChart
        title="Links by state"
        unit="links"
        times={times}
        series={statesOverTime(trend)}
        from={from.getTime()}
        to={to.getTime()}
      />,
    );

  it("rounds the axis up to 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 7, 10, 11, 180, 4_900, 76_001].map(niceCeiling)).toEqual([1, 1, 10, 10, 20, 200, 5_000, 100_000]);
    // About four round steps, up to the first at or above the largest value.
    expect([12, 2_000, 2_100].map(valueAxis)).toEqual([
      { top: 15, step: 5 },
      { top: 2_000, step: 500 },
      { top: 3_000, step: 1_000 },
    ]);
  });

  it("leaves the plot to the browser: the server's HTML has the caption, the legend and a box of the plot's size", () => {
    browser.hydrated = false;
    try {
      const html = statesChart();
      expect(html).toContain("Links by state</figcaption>");
      expect(html).toContain('aria-pressed="true"');
      expect(html).toContain('data-testid="chart-pending"');
      expect(html).not.toContain("<svg");
    } finally {
      browser.hydrated = true;
    }
  });

  it("draws one area per series, with axes in units, a legend of toggles, a keyboard surface, words and a table", () => {
    const html = statesChart();
    expect(html).toContain('role="img"');
    expect(html).toMatch(/<title id="[^"]+">Links by state<\/title>/);
    expect(html).toContain("Error 2 to 4");
    expect(html.match(/<path /g)).toHaveLength(5);
    // The numbers are behind "Show the numbers", made when it opens: the table has a row a snapshot.
    expect(html).toContain("Show the numbers");
    expect(html).not.toContain("<table");
    const numbers = renderToStaticMarkup(
      <ChartNumbers title="Links by state" times={times} series={statesOverTime(trend)} demoUntil={null} />,
    );
    expect(numbers.match(/<tr>|<tr /g)).toHaveLength(4);
    // The value axis: its unit and round ticks up to the top (12 links at most: 0, 5, 10, 15).
    expect(html).toMatch(/>Links<\/span>/);
    for (const tick of ["0", "5", "10", "15"]) expect(html).toContain(`>${tick}</span>`);
    expect(html).not.toContain(">20</span>");
    expect(html).toContain("Date (UTC)");
    expect(html).toContain(">11-17</span>");
    // Each series is a toggle, on at first.
    expect(html.match(/aria-pressed="true"/g)).toHaveLength(5);
    expect(html).toMatch(
      /tabindex="0" role="group" aria-label="Links by state: 3 snapshots. Left and right arrow keys/,
    );
  });

  it("counts the links not read yet on top of the states, and shades made-up demo history", () => {
    const withUnread: HealthTrend = { ...trend, points: trend.points.map((p) => ({ ...p, total: p.total + 5 })) };
    const series = statesOverTime(withUnread);
    expect(series.at(-1)).toMatchObject({ key: "unread", label: "Not read yet", values: [5, 5, 5] });
    const html = renderToStaticMarkup(
      <StackedAreaChart
        title="t"
        unit="links"
        times={times}
        series={series}
        from={from.getTime()}
        to={to.getTime()}
        demoUntil={times[0]!}
      />,
    );
    expect(html).toContain("Demo history");
    expect(
      renderToStaticMarkup(<ChartNumbers title="t" times={times} series={series} demoUntil={times[0]!} />),
    ).toContain("(demo)");
  });

  it("says so when there are too few snapshots to draw", () => {
    const html = renderToStaticMarkup(
      <StackedAreaChart title="t" unit="links" times={[]} series={[]} from={from.getTime()} to={to.getTime()} />,
    );
    expect(html).toContain("No snapshots in this window yet");
    expect(html).not.toContain("<svg");
  });

  it("ranks a code by its peak, so an outage shows, and draws a code alone rather than let a remainder outgrow it", () => {
    const codes = [
      "auth_expired",
      "invalid_credentials",
      "user_error",
      "incomplete",
      "no_accounts",
      "system_error",
    ] as const;
    const days = [0, 1, 2].map((i) => ({
      at: new Date(from.getTime() + (i + 1) * DAY),
      total: 100,
      byState: {},
      byErrorCode: { ...Object.fromEntries(codes.map((c) => [c, 10])), institution_error: i === 1 ? 40 : 1 },
      source: "sync" as const,
    }));
    const series = errorCodesOverTime({ from, to, points: days });
    expect(series[0]).toMatchObject({ key: "institution_error", values: [1, 40, 1] });
    // Two user codes of 10 left over would make a band of 20 over codes of 10: both are drawn alone.
    expect(series.map((s) => s.key).sort()).toEqual([...codes, "institution_error"].sort());
    expect(series.some((s) => s.key.startsWith("other"))).toBe(false);
  });

  it("sums the codes not drawn by who must act, each remainder a small band at the bottom named after its party", () => {
    const counts = [
      {
        auth_expired: 100,
        system_error: 50,
        institution_error: 40,
        provider_error: 30,
        user_error: 20,
        no_accounts: 2,
        invalid_credentials: 3,
        incomplete: 1,
      },
      {
        auth_expired: 90,
        system_error: 60,
        institution_error: 10,
        provider_error: 35,
        user_error: 25,
        no_accounts: 1,
        invalid_credentials: 4,
        user_oauth_denied: 2,
      },
    ];
    const points = counts.map((byErrorCode, i) => ({
      at: new Date(from.getTime() + (i + 1) * DAY),
      total: 400,
      byState: {},
      byErrorCode,
      source: "sync" as const,
    }));
    const series = errorCodesOverTime({ from, to, points });
    expect(series[0]).toMatchObject({
      key: "other-user",
      label: "Needs the user: 4 more codes",
      fill: "fill-amber-200",
      values: [6, 7],
    });
    expect(series.slice(1).map((s) => s.key)).toEqual([
      "auth_expired",
      "system_error",
      "institution_error",
      "provider_error",
      "user_error",
    ]);
    // Every code is counted once: the bands add up to every link with an error code at each point.
    const sums = points.map((_, i) => series.reduce((sum, s) => sum + s.values[i]!, 0));
    expect(sums).toEqual(counts.map((c) => Object.values(c).reduce((a, b) => a + b, 0)));

    const parties = whoActsSeries({ from, to, points });
    expect(parties.map((s) => [s.key, s.label, s.values])).toEqual([
      ["user", "Needs the user", [126, 122]],
      ["wait", "Waiting on institution or provider", [70, 45]],
      ["service", "Service fault", [50, 60]],
    ]);

    const html = renderToStaticMarkup(<TrendCharts trend={{ from, to, points }} />);
    for (const title of ["Links by state", "Links in error by who must act", "Links by error code"])
      expect(html).toContain(`>${title}</figcaption>`);
    expect(html).not.toMatch(/NaN|undefined|null|Other codes/);
  });

  it("draws the error codes with most links, largest first", () => {
    expect(errorCodesOverTime(trend).map((s) => [s.key, s.values])).toEqual([
      ["auth_expired", [1, 2, 3]],
      ["system_error", [1, 1, 1]],
    ]);
  });
});

describe("HealthNow, what changed and a fleet still being read", () => {
  const NOW = new Date("2026-11-28T12:00:00.000Z");
  const base = {
    otherStates: [],
    otherErrorCodes: [],
    whoActs: [],
    topInstitutions: [],
    topProviders: [],
    productErrors: [],
    otherProductErrors: 0,
    asOf: NOW,
    readAt: NOW,
  };
  const summaryOf = (connected: number, error: number, unread: number, authExpired: number): HealthSummary =>
    ({
      ...base,
      total: connected + error + unread,
      unread,
      byState: [
        { state: "connected", count: connected },
        { state: "error", count: error },
      ],
      byErrorCode: [{ errorCode: "auth_expired", count: authExpired }],
      withErrorCode: authExpired,
      stale: [{ days: 7, count: unread + 3 }],
    }) as unknown as HealthSummary;
  const baseline = {
    window: "24h" as const,
    baseline: {
      at: new Date(NOW.getTime() - 24 * 60 * 60_000),
      total: 100,
      byState: { connected: 95, error: 5 },
      byErrorCode: { auth_expired: 5 },
    },
    oldest: null,
  };

  it("shows each tile's and error code's change since the snapshot, worse in red, and what moved most", () => {
    const html = renderToStaticMarkup(<HealthNow summary={summaryOf(88, 12, 0, 12)} baseline={baseline} />);
    expect(html).toContain("+7 vs 24 h ago");
    expect(html).toContain("−7 vs 24 h ago");
    expect(html).toMatch(/Moved most vs 24 h ago:.*Authorization expired.*\+7/);
    expect(html).not.toContain("Still reading");
  });

  it("says the fleet is still being read instead of counts that look like an outage, and compares nothing yet", () => {
    const html = renderToStaticMarkup(<HealthNow summary={summaryOf(0, 3, 950, 3)} baseline={baseline} />);
    expect(html).toContain("Still reading the fleet");
    expect(html).toContain("3 of 953 links read (0 %)");
    expect(html).toContain("of 3 read so far");
    // No stale tile (every unread link would count as never refreshed), and no change against a partial count.
    expect(html).not.toContain("Not refreshed in 7 days");
    expect(html).not.toContain(" vs ");
  });

  it("says when there is nothing to compare with yet", () => {
    const html = renderToStaticMarkup(
      <HealthNow
        summary={summaryOf(88, 12, 0, 12)}
        baseline={{ window: "7d", baseline: null, oldest: new Date(NOW.getTime() - 2 * 60 * 60_000) }}
      />,
    );
    expect(html).toContain("No snapshot of the whole fleet from 7 days ago yet: the oldest is from 2 h ago");
  });
});
