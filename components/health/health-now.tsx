"use client";

import Link from "next/link";
import { Callout } from "@/components/ui/callout";
import {
  LINK_ERROR_INFO,
  LINK_STATE_LABELS,
  NOT_KNOWN,
  WHO_ACTS_LABELS,
  isKnownLinkErrorCode,
  productErrorLabel,
} from "@/lib/links/error-codes";
import {
  CHANGE_WINDOW_WORDS,
  type ChangeWindow,
  type HealthBaseline,
  type HealthChange,
  healthChange,
  isWhole,
  signed,
} from "@/lib/links/health-change";
import type { HealthSummary } from "@/lib/links/health-summary";
import type { LinkState } from "@/lib/upstream/schemas";
import { BarList } from "./bar-list";
import { HealthCard } from "./card";
import { STATE_COLORS, WHO_ACTS_COLORS } from "./colors";
import { InstitutionErrorsTable, ProviderErrorsTable } from "./error-sources";
import { formatCount, formatUtc, timeAgo } from "./format";
import { linksHref } from "./links-href";
import { StatTile } from "./stat-tile";
import { WhoActsSplit } from "./who-acts";

// Health's widgets of the counts now: client components fed the summary as data, so the page's payload carries the
// counts (a few kB) rather than the element trees drawn from them (about 35 kB, in the HTML a second time). They are
// drawn into the server's HTML all the same; "as of 2 min ago" counts back from when the counts were read, so the HTML and
// the hydrated page say the same.

/** A value the upstream added since this version: neither good nor bad as far as Linkdesk can tell. */
const NOT_KNOWN_COLOR = "bg-slate-400";

/** Healthy first, then problems, then the rest: the order managers read the state bars in. */
const STATE_DISPLAY_ORDER: readonly LinkState[] = [
  "connected",
  "error",
  "connecting",
  "awaiting_token_exchange",
  "deleted",
];

/** What Health's changes are measured from: the window picked, and the snapshot found for it (or the oldest one). */
export interface ChangeBaseline {
  window: ChangeWindow;
  baseline: HealthBaseline | null;
  oldest: Date | null;
}

export function HealthNow({
  summary,
  canCampaign = false,
  baseline = null,
}: {
  summary: HealthSummary;
  canCampaign?: boolean;
  baseline?: ChangeBaseline | null;
}) {
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
  const otherErrors = summary.otherErrorCodes.reduce((sum, e) => sum + e.count, 0);
  const read = summary.total - summary.unread;
  // While the first sync (or a sync after many new links) reads, the counts are of the links read so far: a fleet of
  // 2,000 shows "Connected 0" and "Not refreshed in 7 days 1,995" and reads as an outage. Say so instead.
  const reading = !isWhole(summary.total, read);
  const change = !reading && baseline?.baseline ? healthChange(baseline.window, summary, baseline.baseline) : null;
  const since = change ? timeAgo(change.since, summary.readAt) : "";
  const readNote = reading ? `of ${formatCount(read)} read so far` : undefined;
  return (
    <>
      <AsOf summary={summary} />
      {reading ? (
        <Callout title="Still reading the fleet" tone="info">
          <p data-testid="health-reading">
            {formatCount(read)} of {formatCount(summary.total)} links read ({Math.floor((100 * read) / summary.total)}{" "}
            %). The counts below are of the links read so far, not of the fleet: a link not read yet is in no state, so
            &ldquo;Connected&rdquo; is low and nothing is stale until it is read. The sync line above says how long is
            left.
          </p>
        </Callout>
      ) : null}
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6" data-testid="health-tiles">
        <StatTile
          label="Links"
          count={summary.total}
          href={linksHref()}
          change={change ? { delta: change.total, since } : undefined}
        />
        <StatTile
          label={LINK_STATE_LABELS.connected}
          count={stateCount("connected")}
          href={linksHref({ state: "connected" })}
          tone={reading ? "neutral" : "good"}
          hint={readNote}
          change={change ? { delta: change.byState.connected ?? 0, since, worse: "down" } : undefined}
        />
        <StatTile
          label="In error"
          count={stateCount("error")}
          href={linksHref({ state: "error" })}
          tone={reading ? "neutral" : "bad"}
          hint={readNote}
          change={change ? { delta: change.byState.error ?? 0, since, worse: "up" } : undefined}
        />
        <StatTile
          label={LINK_STATE_LABELS.deleted}
          count={stateCount("deleted")}
          href={linksHref({ state: "deleted" })}
          hint={readNote ?? "Removed upstream 90 days after deletion"}
          change={change ? { delta: change.byState.deleted ?? 0, since } : undefined}
        />
        {reading
          ? null
          : summary.stale.map((s) => (
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
      {reading ? null : <WhatChanged baseline={baseline} change={change} since={since} readAt={summary.readAt} />}
      <HealthCard
        title="Who must act"
        description={`Links with an error code (${formatCount(summary.withErrorCode)}), by who can fix them.${
          otherErrors > 0
            ? ` ${formatCount(otherErrors)} more carry a code this version of Linkdesk does not know, so who acts is not known (Links by error code).`
            : ""
        }`}
      >
        <WhoActsSplit groups={summary.whoActs} withErrorCode={summary.withErrorCode} canCampaign={canCampaign} />
      </HealthCard>
      <div className="grid gap-6 lg:grid-cols-2">
        <HealthCard title="Links by state">
          <BarList
            bars={[
              ...STATE_DISPLAY_ORDER.map((state) => ({
                key: state,
                label: LINK_STATE_LABELS[state],
                detail: state,
                count: stateCount(state),
                href: linksHref({ state }),
                color: STATE_COLORS[state].bar,
              })),
              ...summary.otherStates.map(({ value, count }) => ({
                key: value,
                label: value,
                detail: NOT_KNOWN,
                count,
                href: linksHref({ state: value }),
                color: NOT_KNOWN_COLOR,
              })),
            ]}
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
            bars={[
              ...summary.byErrorCode.map(({ errorCode, count }) => ({
                key: errorCode,
                label: LINK_ERROR_INFO[errorCode].label,
                detail: `${errorCode} · ${WHO_ACTS_LABELS[LINK_ERROR_INFO[errorCode].whoActs]}`,
                count,
                href: linksHref({ error_code: errorCode }),
                color: WHO_ACTS_COLORS[LINK_ERROR_INFO[errorCode].whoActs].bar,
                change: change?.byErrorCode[errorCode],
              })),
              ...summary.otherErrorCodes.map(({ value, count }) => ({
                key: value,
                label: value,
                detail: NOT_KNOWN,
                count,
                href: linksHref({ error_code: value }),
                color: NOT_KNOWN_COLOR,
                change: change?.byErrorCode[value],
              })),
            ]}
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
        {timeAgo(summary.asOf, summary.readAt)}
      </time>{" "}
      (the newest read of a link).
    </p>
  );
}

export function HealthProblems({ summary, top }: { summary: HealthSummary; top: number }) {
  if (summary.total === 0) return null;
  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <HealthCard title="Institutions with most errors" description={`Top ${top} by links in state error.`}>
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
            label: productErrorLabel(code),
            detail: code,
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

/** The error codes that moved most over the window, or why there is nothing to compare with yet. */
function WhatChanged({
  baseline,
  change,
  since,
  readAt,
}: {
  baseline: ChangeBaseline | null;
  change: HealthChange | null;
  since: string;
  /** The clock the summary was read by: the page's HTML and the hydrated page say the same. */
  readAt: Date;
}) {
  if (!baseline) return null;
  const window = CHANGE_WINDOW_WORDS[baseline.window];
  if (!change)
    return (
      <p className="text-sm text-slate-600" data-testid="health-no-change">
        No snapshot of the whole fleet from {window} ago yet
        {baseline.oldest ? `: the oldest is from ${timeAgo(baseline.oldest, readAt)}` : ""}. Changes show once Linkdesk
        has read the fleet that long.
      </p>
    );
  return (
    <div className="text-sm text-slate-700" data-testid="health-movers">
      <span className="font-medium text-slate-900">Moved most vs {since}:</span>{" "}
      {change.movers.length === 0
        ? "no error code moved."
        : change.movers.map((m, i) => (
            <span key={m.errorCode}>
              {i > 0 ? ", " : ""}
              <Link href={linksHref({ error_code: m.errorCode })} className="underline hover:text-indigo-700">
                {isKnownLinkErrorCode(m.errorCode) ? LINK_ERROR_INFO[m.errorCode].label : m.errorCode}
              </Link>{" "}
              <span className={m.delta > 0 ? "text-red-700" : "text-emerald-700"}>{signed(m.delta)}</span>
            </span>
          ))}
    </div>
  );
}
