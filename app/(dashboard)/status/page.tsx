import type { Metadata } from "next";
import Link from "next/link";
import { syncFailingText } from "@/components/links/sync-status";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { ReadNotices } from "@/components/status/read-notices";
import { getDb } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import { readNoticesForStatus } from "@/lib/read-notices/store";
import { cachedSyncStatus } from "@/lib/sync/status";
import type { SyncStatus } from "@/lib/sync/types";
import { checkUpstream } from "@/lib/upstream/status";

export const metadata: Metadata = { title: "Status" };

const utc = (date: Date) => `${date.toISOString().replace("T", " ").slice(0, 19)} UTC`;

type CheckView = { ok: true; text: string } | { ok: false; title: string; detail: string };

function CheckRow({
  label,
  okTitle,
  check,
  testId,
}: {
  label: string;
  okTitle: string;
  check: CheckView;
  testId: string;
}) {
  return (
    <div data-testid={testId}>
      <dt className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd>
        {check.ok ? (
          <Callout tone="success" title={okTitle} role="status">
            {check.text}
          </Callout>
        ) : (
          <Callout tone="error" title={check.title}>
            {check.detail}
          </Callout>
        )}
      </dd>
    </div>
  );
}

/** The links sync as every instance sees it (sync_state): failing since when and why, or reading normally. */
function syncCheck(sync: SyncStatus | null, now: Date): CheckView {
  if (!sync)
    return {
      ok: false,
      title: "The links sync's status cannot be read",
      detail: "Linkdesk's database did not answer; the checks of the upstream above do not need it.",
    };
  if (sync.failing)
    return {
      ok: false,
      title: "The links sync is failing",
      detail: `${syncFailingText(sync.failing, now)} Links already read keep their last known state meanwhile; the sync reads at full pace again as soon as a read succeeds.`,
    };
  if (sync.running)
    return {
      ok: true,
      text:
        sync.phase === "details"
          ? `A run is reading links: ${sync.done.toLocaleString("en")} of ${sync.total.toLocaleString("en")}.`
          : "A run is listing links.",
    };
  return {
    ok: true,
    text: sync.runFinishedAt ? `The last run finished at ${utc(sync.runFinishedAt)}.` : "No run has finished yet.",
  };
}

export default async function StatusPage({ searchParams }: { searchParams: Promise<{ refresh?: string }> }) {
  const { refresh } = await searchParams;
  const [status, sync] = await Promise.all([
    checkUpstream({ fresh: refresh !== undefined, read: true }),
    // The page is about the upstream: a database that does not answer costs this row only.
    getDb()
      .then(({ db }) => cachedSyncStatus(db))
      .catch((error: unknown) => {
        logger().child({ component: "status" }).warn({ err: error }, "the links sync's status could not be read");
        return null;
      }),
  ]);
  const { reachable, token, read } = status;
  return (
    <>
      <PageHeader
        title="Upstream status"
        description="Whether Linkdesk can reach the linking API, obtain an access token with its client credentials, and read data."
        actions={
          <Link
            href={`/status?refresh=${status.checkedAt.getTime()}`}
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
          >
            Check again
          </Link>
        }
      />
      <dl className="grid max-w-3xl gap-5">
        <div>
          <dt className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">Upstream</dt>
          <dd className="rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm">
            {status.mode === "sandbox" ? "The bundled sandbox (demo mode)" : "A real upstream"} at{" "}
            <span className="font-mono">{status.displayUrl}</span>
          </dd>
        </div>
        <CheckRow
          label="Reachability"
          okTitle="Reachable"
          testId="status-reachability"
          check={
            reachable.ok
              ? {
                  ok: true,
                  text: `Connected in ${reachable.latencyMs} ms (a connection only: no request, no rate limit spent).`,
                }
              : reachable
          }
        />
        <CheckRow
          label="Access token"
          okTitle="Access token obtained"
          testId="status-token"
          check={
            token.ok
              ? { ok: true, text: `Valid until ${utc(token.expiresAt)}. The token itself stays on the server.` }
              : token
          }
        />
        {read ? (
          <CheckRow
            label="Reading data"
            okTitle="Links can be read"
            testId="status-read"
            check={
              read.ok
                ? {
                    ok: true,
                    text: `GET /links answered ${read.links} link ids in ${read.latencyMs} ms, matching the API contract.`,
                  }
                : read
            }
          />
        ) : null}
        <CheckRow
          label="Links sync"
          okTitle="The links sync reads normally"
          testId="status-sync"
          check={syncCheck(sync, status.checkedAt)}
        />
      </dl>
      <p className="mt-4 text-xs text-slate-500">Checked {utc(status.checkedAt)}.</p>
      <ReadNotices rows={await readNoticesForStatus().catch(() => null)} />
    </>
  );
}
