import { describeDuration } from "@/lib/budget/headroom";
import { getDb } from "@/lib/db/client";
import { getSyncStatus } from "@/lib/sync/status";
import type { SyncStatus as SyncStatusData } from "@/lib/sync/types";
import { formatCount, timeAgo } from "@/components/health/format";

/**
 * How fresh the links read model is, and the sync's progress while it runs: "Synced 2 min ago · 1,234 / 2,000 links,
 * about 3 min left", with a progress bar during a run. Reads the status itself; pass `status` to show one already read.
 */
export async function SyncStatus({ status }: { status?: SyncStatusData }) {
  const shown = status ?? (await getSyncStatus((await getDb()).db));
  return <SyncStatusLine status={shown} />;
}

/** The status as given, for pages that read it along with other data. `now` is for tests and stories. */
export function SyncStatusLine({ status, now }: { status: SyncStatusData; now?: Date }) {
  const synced = status.runFinishedAt ? `Synced ${timeAgo(status.runFinishedAt, now)}` : "Not synced yet";
  const reading = status.phase === "details" && status.total > 0;
  let progress: string | null = null;
  if (status.running && status.phase === "listing") progress = `listing links (${formatCount(status.done)} so far)`;
  else if (status.running && reading) {
    progress = `${formatCount(status.done)} / ${formatCount(status.total)} links${status.etaSeconds ? `, ${describeDuration(status.etaSeconds)} left` : ""}`;
  } else if (!status.running && status.phase !== "idle") {
    progress = `paused at ${reading ? `${formatCount(status.done)} / ${formatCount(status.total)} links` : "listing"}, resumes shortly`;
  } else if (status.requestedAt) progress = "refresh of all links requested";

  return (
    <div className="space-y-1 text-sm text-slate-600" data-testid="sync-status">
      <p role="status">
        {synced}
        {progress ? ` · ${progress}` : ""}
      </p>
      {status.running && reading ? (
        <div
          role="progressbar"
          aria-label="Links sync progress"
          aria-valuemin={0}
          aria-valuemax={status.total}
          aria-valuenow={status.done}
          className="h-1.5 w-full max-w-sm overflow-hidden rounded bg-slate-200"
        >
          <div className="h-full bg-indigo-600" style={{ width: `${Math.min(100, Math.round((status.done / status.total) * 100))}%` }} />
        </div>
      ) : null}
      {status.lastError ? <p className="text-xs text-amber-800">Last problem: {status.lastError}</p> : null}
    </div>
  );
}
