import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { cache } from "react";
import { HealthCard } from "@/components/health/card";
import { Freshness } from "@/components/health/freshness";
import { NowSkeleton, ProblemsSkeleton, TrendChartsSkeleton } from "@/components/health/skeletons";
import { HealthNow, HealthProblems } from "@/components/health/health-now";
import { TrendCharts } from "@/components/health/trend-charts";
import { RefreshAllButton } from "@/components/links/refresh-buttons";
import { SyncStatusLine } from "@/components/links/sync-status";
import { AtHand } from "@/components/ui/at-hand";
import { NotPermitted } from "@/components/ui/not-permitted";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { can, PERMISSION_LABELS } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { cachedHealthSummary, type HealthSummary, TOP_ERROR_SOURCES } from "@/lib/links/health-summary";
import { healthBaseline } from "@/lib/links/health-baseline";
import {
  CHANGE_WINDOWS,
  CHANGE_WINDOW_WORDS,
  type ChangeWindow,
  DEFAULT_CHANGE_WINDOW,
  isChangeWindow,
} from "@/lib/links/health-change";
import { cachedHealthTrend, peekHealthTrend } from "@/lib/links/health-trend";
import { cachedSyncStatus } from "@/lib/sync/status";
import type { SyncStatus as SyncStatusData } from "@/lib/sync/types";
import { cachedReadModelFreshness } from "@/lib/webhooks/freshness";

export const metadata: Metadata = { title: "Health" };

/** The trend windows offered, in days; the URL's `days` picks one. */
const TREND_WINDOWS = [7, 30, 90] as const;
type TrendWindow = (typeof TREND_WINDOWS)[number];
const DEFAULT_TREND_WINDOW: TrendWindow = 30;

// One summary per request, shared by the widgets that wait for it (each in its own Suspense boundary) when it is not
// at hand. The page's reads are all kept a few seconds (lib/db/cached-read.ts): while they are, it renders in one pass.
const loadSummary = cache(async (): Promise<HealthSummary> => cachedHealthSummary((await getDb()).db));

export default async function HealthPage({
  searchParams,
}: {
  searchParams: Promise<{ days?: string | string[]; change?: string | string[] }>;
}) {
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
  const query = await searchParams;
  const requested = Number(query.days);
  const days = TREND_WINDOWS.find((w) => w === requested) ?? DEFAULT_TREND_WINDOW;
  const changeWindow = isChangeWindow(query.change) ? query.change : DEFAULT_CHANGE_WINDOW;
  const { db } = await getDb();
  const baseline = { window: changeWindow, ...(await healthBaseline(db, changeWindow)) };
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
        <ChangeWindowPicker change={changeWindow} days={days} />
        <AtHand value={summary} load={loadSummary} fallback={<NowSkeleton />}>
          {(read) => (
            <HealthNow summary={read} canCampaign={can(staff.role, "reconnectCampaign")} baseline={baseline} />
          )}
        </AtHand>
        <HealthCard
          title="Over time"
          description="From the snapshots Linkdesk takes at start and after each sync. Point at a chart, or focus it and use the arrow keys, to read each snapshot; click a series in the legend to hide or show it."
        >
          <TrendWindowPicker days={days} change={changeWindow} />
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
          {(read) => <HealthProblems summary={read} top={TOP_ERROR_SOURCES} />}
        </AtHand>
      </div>
    </>
  );
}

/** The sync's banner, counting read and unread links from the same summary as the note under "Links by state". */
function SyncBanner({ summary, syncStatus }: { summary: HealthSummary; syncStatus: SyncStatusData }) {
  return <SyncStatusLine status={syncStatus} readModel={{ total: summary.total, unread: summary.unread }} />;
}

/** Health's address for a trend window and a change window, each left out at its default. */
function healthHref(days: TrendWindow, change: ChangeWindow): string {
  const query = new URLSearchParams();
  if (days !== DEFAULT_TREND_WINDOW) query.set("days", String(days));
  if (change !== DEFAULT_CHANGE_WINDOW) query.set("change", change);
  return query.size > 0 ? `/health?${query}` : "/health";
}

function ChangeWindowPicker({ change, days }: { change: ChangeWindow; days: TrendWindow }) {
  return (
    <nav aria-label="Change over" className="flex items-center gap-1 text-sm">
      <span className="mr-1 text-slate-600">Change over:</span>
      {(Object.keys(CHANGE_WINDOWS) as ChangeWindow[]).map((w) => (
        <Link
          key={w}
          href={healthHref(days, w)}
          aria-current={w === change ? "page" : undefined}
          scroll={false}
          className={`rounded-md px-2.5 py-1 ${w === change ? "bg-indigo-600 text-white" : "border border-slate-300 bg-white text-slate-700 hover:bg-slate-50"}`}
        >
          {CHANGE_WINDOW_WORDS[w]}
        </Link>
      ))}
    </nav>
  );
}

function TrendWindowPicker({ days, change }: { days: TrendWindow; change: ChangeWindow }) {
  return (
    <nav aria-label="Trend window" className="mb-4 flex gap-1 text-sm">
      {TREND_WINDOWS.map((w) => (
        <Link
          key={w}
          href={healthHref(w, change)}
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
