import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { cache } from "react";
import { BarList } from "@/components/health/bar-list";
import { HealthCard } from "@/components/health/card";
import { STATE_COLORS, WHO_ACTS_COLORS } from "@/components/health/colors";
import { InstitutionErrorsTable, ProviderErrorsTable } from "@/components/health/error-sources";
import { formatCount, formatUtc, timeAgo } from "@/components/health/format";
import { Freshness } from "@/components/health/freshness";
import { linksHref } from "@/components/health/links-href";
import { NowSkeleton, ProblemsSkeleton, TrendChartsSkeleton } from "@/components/health/skeletons";
import { StatTile } from "@/components/health/stat-tile";
import { TrendCharts } from "@/components/health/trend-charts";
import { WhoActsSplit } from "@/components/health/who-acts";
import { RefreshAllButton } from "@/components/links/refresh-buttons";
import { SyncStatusLine } from "@/components/links/sync-status";
import { AtHand } from "@/components/ui/at-hand";
import { Callout } from "@/components/ui/callout";
import { NotPermitted } from "@/components/ui/not-permitted";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { can, PERMISSION_LABELS } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { LINK_ERROR_INFO, LINK_STATE_LABELS, WHO_ACTS_LABELS } from "@/lib/links/error-codes";
import { cachedHealthSummary, type HealthSummary, TOP_ERROR_SOURCES } from "@/lib/links/health-summary";
import { cachedHealthTrend, peekHealthTrend } from "@/lib/links/health-trend";
import { cachedSyncStatus } from "@/lib/sync/status";
import type { SyncStatus as SyncStatusData } from "@/lib/sync/types";
import type { LinkState } from "@/lib/upstream/schemas";
import { cachedReadModelFreshness } from "@/lib/webhooks/freshness";

export const metadata: Metadata = { title: "Health" };

/** The trend windows offered, in days; the URL's `days` picks one. */
const TREND_WINDOWS = [7, 30, 90] as const;
type TrendWindow = (typeof TREND_WINDOWS)[number];
const DEFAULT_TREND_WINDOW: TrendWindow = 30;

/** Healthy first, then problems, then the rest: the order managers read the state bars in. */
const STATE_DISPLAY_ORDER: readonly LinkState[] = [
  "connected",
  "error",
  "connecting",
  "awaiting_token_exchange",
  "deleted",
];

// One summary per request, shared by the widgets that wait for it (each in its own Suspense boundary) when it is not
// at hand. The page's reads are all kept a few seconds (lib/db/cached-read.ts): while they are, it renders in one pass.
const loadSummary = cache(async (): Promise<HealthSummary> => cachedHealthSummary((await getDb()).db));

export default async function HealthPage({ searchParams }: { searchParams: Promise<{ days?: string | string[] }> }) {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/health");
  if (!can(staff.role, "read")) {
    return (
      <>
        <PageHeader title="Health" />
        <NotPermitted what={PERMISSION_LABELS.read} />
      </>
    );
  }
  const requested = Number((await searchParams).days);
  const days = TREND_WINDOWS.find((w) => w === requested) ?? DEFAULT_TREND_WINDOW;
  const { db } = await getDb();
  const summary = cachedHealthSummary.peek(db);
  const syncStatus = cachedSyncStatus.peek(db);

  return (
    <>
      <PageHeader
        title="Health"
        description="Links by state and error code, who must act, and where refreshes fail. Every number opens the links it counts."
        actions={can(staff.role, "refreshAll") ? <RefreshAllButton /> : undefined}
      />
      <div className="space-y-6">
        <AtHand
          value={summary && syncStatus ? { summary, syncStatus } : undefined}
          load={async () => ({ summary: await loadSummary(), syncStatus: await cachedSyncStatus(db) })}
          fallback={<div className="h-5 w-64 animate-pulse rounded bg-slate-200" />}
        >
          {(read) => <SyncBanner {...read} />}
        </AtHand>
        <AtHand
          value={cachedReadModelFreshness.peek(db)}
          load={() => cachedReadModelFreshness(db)}
          fallback={<div className="h-5 w-96 animate-pulse rounded bg-slate-200" />}
        >
          {(freshness) => <Freshness freshness={freshness} />}
        </AtHand>
        <AtHand value={summary} load={loadSummary} fallback={<NowSkeleton />}>
          {(read) => <NowWidgets summary={read} />}
        </AtHand>
        <HealthCard
          title="Over time"
          description="From the snapshots Linkdesk takes at start and after each sync. Point at a chart, or focus it and use the arrow keys, to read each snapshot; click a series in the legend to hide or show it."
        >
          <TrendWindowPicker days={days} />
          <AtHand
            key={days}
            value={peekHealthTrend(db, days)}
            load={() => cachedHealthTrend(db, days)}
            fallback={<TrendChartsSkeleton />}
          >
            {(trend) => <TrendCharts trend={trend} />}
          </AtHand>
        </HealthCard>
        <AtHand value={summary} load={loadSummary} fallback={<ProblemsSkeleton />}>
          {(read) => <ProblemWidgets summary={read} />}
        </AtHand>
      </div>
    </>
  );
}

/** The sync's banner, counting read and unread links from the same summary as the note under "Links by state". */
function SyncBanner({ summary, syncStatus }: { summary: HealthSummary; syncStatus: SyncStatusData }) {
  return <SyncStatusLine status={syncStatus} readModel={{ total: summary.total, unread: summary.unread }} />;
}

function NowWidgets({ summary }: { summary: HealthSummary }) {
  if (summary.total === 0) {
    return (
      <Callout title="No links in Linkdesk's read model yet">
        <p>
          A sync fills it: Linkdesk walks the upstream&rsquo;s list of links and reads each link&rsquo;s details within
          its share of the rate budget, in the background and on demand. The counts appear here as links are read.
        </p>
      </Callout>
    );
  }
  const stateCount = (state: LinkState) => summary.byState.find((s) => s.state === state)?.count ?? 0;
  return (
    <>
      <AsOf summary={summary} />
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6" data-testid="health-tiles">
        <StatTile label="Links" count={summary.total} href={linksHref()} />
        <StatTile
          label={LINK_STATE_LABELS.connected}
          count={stateCount("connected")}
          href={linksHref({ state: "connected" })}
          tone="good"
        />
        <StatTile label="In error" count={stateCount("error")} href={linksHref({ state: "error" })} tone="bad" />
        <StatTile
          label={LINK_STATE_LABELS.deleted}
          count={stateCount("deleted")}
          href={linksHref({ state: "deleted" })}
          hint="Removed upstream 90 days after deletion"
        />
        {summary.stale.map((s) => (
          <StatTile
            key={s.days}
            label={`Not refreshed in ${s.days} days`}
            count={s.count}
            href={linksHref({ stale: s.days })}
            tone="warn"
            hint="Never refreshed included"
          />
        ))}
      </div>
      <HealthCard
        title="Who must act"
        description={`Links with an error code (${formatCount(summary.withErrorCode)}), by who can fix them.`}
      >
        <WhoActsSplit groups={summary.whoActs} withErrorCode={summary.withErrorCode} />
      </HealthCard>
      <div className="grid gap-6 lg:grid-cols-2">
        <HealthCard title="Links by state">
          <BarList
            bars={STATE_DISPLAY_ORDER.map((state) => ({
              key: state,
              label: LINK_STATE_LABELS[state],
              detail: state,
              count: stateCount(state),
              href: linksHref({ state }),
              color: STATE_COLORS[state].bar,
            }))}
          />
          {summary.unread > 0 ? (
            <p className="mt-3 text-xs text-slate-500">
              {formatCount(summary.unread)} listed {summary.unread === 1 ? "link is" : "links are"} not read yet: the
              sync reads
              {summary.unread === 1 ? " its" : " their"} details next, and until then{" "}
              {summary.unread === 1 ? "it is" : "they are"} in no state.
            </p>
          ) : null}
        </HealthCard>
        <HealthCard title="Links by error code">
          <BarList
            empty="No link has an error code."
            bars={summary.byErrorCode.map(({ errorCode, count }) => ({
              key: errorCode,
              label: LINK_ERROR_INFO[errorCode].label,
              detail: `${errorCode} · ${WHO_ACTS_LABELS[LINK_ERROR_INFO[errorCode].whoActs]}`,
              count,
              href: linksHref({ error_code: errorCode }),
              color: WHO_ACTS_COLORS[LINK_ERROR_INFO[errorCode].whoActs].bar,
            }))}
          />
        </HealthCard>
      </div>
    </>
  );
}

function AsOf({ summary }: { summary: HealthSummary }) {
  if (!summary.asOf)
    return (
      <p className="text-sm text-slate-600">No link&rsquo;s details read yet: counts fill in as the sync reads them.</p>
    );
  return (
    <p className="text-sm text-slate-600" data-testid="health-as-of">
      Counts from Linkdesk&rsquo;s read model, as of{" "}
      <time dateTime={summary.asOf.toISOString()} title={formatUtc(summary.asOf)}>
        {timeAgo(summary.asOf)}
      </time>{" "}
      (the newest read of a link).
    </p>
  );
}

function ProblemWidgets({ summary }: { summary: HealthSummary }) {
  if (summary.total === 0) return null;
  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <HealthCard
        title="Institutions with most errors"
        description={`Top ${TOP_ERROR_SOURCES} by links in state error.`}
      >
        <InstitutionErrorsTable rows={summary.topInstitutions} />
      </HealthCard>
      <HealthCard
        title="Providers with most errors"
        description="By links in state error; a link's provider may change."
      >
        <ProviderErrorsTable rows={summary.topProviders} />
      </HealthCard>
      <HealthCard
        title="Refresh problems"
        description="Links whose products stopped refreshing, and why refreshes fail."
      >
        <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500">Stale links</h3>
        <BarList
          bars={summary.stale.map((s) => ({
            key: String(s.days),
            label: `No refresh in ${s.days} days`,
            count: s.count,
            href: linksHref({ stale: s.days }),
            color: "bg-amber-500",
          }))}
          max={summary.total}
        />
        <p className="mt-1 text-xs text-slate-500">
          No product refreshed in that time, or never refreshed: links still connecting and links not read yet count
          too.
        </p>
        <h3 className="mt-4 text-xs font-medium uppercase tracking-wide text-slate-500">Product refresh errors</h3>
        <BarList
          empty="No product refresh is failing."
          bars={summary.productErrors.map(({ code, count }) => ({
            key: code,
            label: code,
            count,
            href: linksHref({ product_error: code }),
            color: "bg-orange-500",
          }))}
        />
        {summary.otherProductErrors > 0 ? (
          <p className="mt-1 text-xs text-slate-500">
            {formatCount(summary.otherProductErrors)} more under rarer codes: filter the list by product error to see
            them.
          </p>
        ) : null}
      </HealthCard>
    </div>
  );
}

function TrendWindowPicker({ days }: { days: TrendWindow }) {
  return (
    <nav aria-label="Trend window" className="mb-4 flex gap-1 text-sm">
      {TREND_WINDOWS.map((w) => (
        <Link
          key={w}
          href={w === DEFAULT_TREND_WINDOW ? "/health" : `/health?days=${w}`}
          aria-current={w === days ? "page" : undefined}
          scroll={false}
          className={`rounded-md px-2.5 py-1 ${w === days ? "bg-indigo-600 text-white" : "border border-slate-300 bg-white text-slate-700 hover:bg-slate-50"}`}
        >
          {w} days
        </Link>
      ))}
    </nav>
  );
}
