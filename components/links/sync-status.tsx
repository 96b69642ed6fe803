import { describeDuration } from "@/lib/budget/headroom";
import { getDb } from "@/lib/db/client";
import { cachedSyncStatus } from "@/lib/sync/status";
import type { SyncFailing, SyncStatus as SyncStatusData } from "@/lib/sync/types";
import { formatCount, formatUtc, timeAgo } from "@/components/health/format";

/** How many links the read model holds, and how many of them were listed but never read (no state yet). */
export interface ReadModelCounts {
  total: number;
  unread: number;
}

/**
 * How fresh the links read model is, and the sync's progress while it runs: "Synced 2 min ago · 1,013 of 1,937 links
 * read, 924 not read yet, about 3 min left", with a progress bar during a run. The counts of links read and not read
 * are the page's own (readModelSummary on /links, the health summary on /health), so both come from one query; the
 * run's own progress gives the time left.
 */
export async function SyncStatus({ status, readModel }: { status?: SyncStatusData; readModel: ReadModelCounts }) {
  return <SyncStatusLine status={status ?? (await cachedSyncStatus((await getDb()).db))} readModel={readModel} />;
}

/** "every 5 s", "every 2 min": how often the failing sync tries. */
function everyWords(ms: number): string {
  const seconds = ms / 1000;
  return seconds < 90 ? `every ${Math.max(1, Math.round(seconds))} s` : `every ${Math.round(seconds / 60)} min`;
}

/**
 * "The links sync has been failing since 10:42 UTC (the upstream answers 503); retrying every 2 min." The time alone
 * on the day it started, with the date before that. Shared by Health, Links and the Status page.
 */
export function syncFailingText(failing: SyncFailing, now: Date = new Date()): string {
  const sameDay = failing.since.toISOString().slice(0, 10) === now.toISOString().slice(0, 10);
  const since = sameDay ? formatUtc(failing.since).slice(11) : formatUtc(failing.since);
  return `The links sync has been failing since ${since} (${failing.failure}); retrying ${everyWords(failing.retryMs)}.`;
}

/** The status as given, for pages that read it along with other data. `now` is for tests and stories. */
export function SyncStatusLine({
  status,
  readModel,
  now,
}: {
  status: SyncStatusData;
  readModel: ReadModelCounts;
  now?: Date;
}) {
  const synced = status.runFinishedAt ? `Synced ${timeAgo(status.runFinishedAt, now)}` : "Not synced yet";
  const reading = status.phase === "details" && status.total > 0;
  const read = readModel.total - readModel.unread;
  const left = status.running && reading && status.etaSeconds ? `, ${describeDuration(status.etaSeconds)} left` : "";
  // While links are still unread, progress is the read model's: read of all, and the same "not read yet" as the page.
  const firstRead =
    readModel.unread > 0
      ? `${formatCount(read)} of ${formatCount(readModel.total)} links read, ${formatCount(readModel.unread)} not read yet`
      : null;
  let progress: string | null = null;
  if (status.running && status.phase === "listing") progress = `listing links (${formatCount(status.done)} so far)`;
  else if (status.running && reading)
    progress = `${firstRead ?? `refreshing ${formatCount(status.done)} / ${formatCount(status.total)} links`}${left}`;
  else if (!status.running && status.phase !== "idle")
    progress = `${firstRead ?? `paused at ${reading ? `${formatCount(status.done)} / ${formatCount(status.total)} links` : "listing"}`}, resumes shortly`;
  else if (status.requestedAt) progress = "refresh of all links requested";
  else if (firstRead) progress = firstRead;

  const bar = firstRead ? { value: read, max: readModel.total } : { value: status.done, max: status.total };
  return (
    <div className="space-y-1 text-sm text-slate-600" data-testid="sync-status">
      <p role="status">
        {synced}
        {progress ? ` · ${progress}` : ""}
      </p>
      {status.running && reading && bar.max > 0 ? (
        <div
          role="progressbar"
          aria-label="Links sync progress"
          aria-valuemin={0}
          aria-valuemax={bar.max}
          aria-valuenow={bar.value}
          className="h-1.5 w-full max-w-sm overflow-hidden rounded bg-slate-200"
        >
          <div
            className="h-full bg-indigo-600"
            style={{ width: `${Math.min(100, Math.round((bar.value / bar.max) * 100))}%` }}
          />
        </div>
      ) : null}
      {status.failing ? (
        <p className="text-xs text-red-800" data-testid="sync-failing">
          {syncFailingText(status.failing, now)}
        </p>
      ) : status.lastError ? (
        <p className="text-xs text-amber-800">Last problem: {status.lastError}</p>
      ) : null}
    </div>
  );
}
