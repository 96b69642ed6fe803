import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { JobControls } from "@/components/jobs/job-controls";
import { JobItemsTable } from "@/components/jobs/job-items-table";
import { JobProgress } from "@/components/jobs/job-progress";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { jobItemStates } from "@/lib/db/schema";
import { getDb } from "@/lib/db/client";
import { jobKind } from "@/lib/jobs/kind-registry";
import { ITEMS_PAGE_SIZE, isItemState, listJobItems, readJobView } from "@/lib/jobs/view";
import { RECONNECT_KIND } from "@/lib/jobs/reconnect";
import { campaignSummary } from "@/lib/reconnect/campaign";
import { CampaignOutcome } from "@/components/reconnect/campaign-outcome";

export const metadata: Metadata = { title: "Job" };

type SearchParams = Record<string, string | string[] | undefined>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const itemWords = {
  pending: "Pending",
  sent: "Being checked",
  done: "Done",
  failed: "Failed",
  skipped: "Skipped",
  cancelled: "Cancelled",
} as const;

export default async function JobPage({
  params,
  searchParams,
}: {
  params: Promise<{ jobId: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { jobId } = await params;
  const staff = await currentStaff();
  if (!staff) redirect(`/sign-in?callbackUrl=/jobs/${encodeURIComponent(jobId)}`);
  if (!can(staff.role, "read")) redirect("/");
  if (!UUID.test(jobId)) notFound();
  const { db } = await getDb();
  const job = await readJobView(db, jobId);
  if (!job) notFound();
  const query = await searchParams;
  const state = typeof query.state === "string" && isItemState(query.state) ? query.state : undefined;
  const after = typeof query.after === "string" && /^\d{1,9}$/.test(query.after) ? Number(query.after) : undefined;
  // One item more than a page: whether a next page exists, without a "Next" link to an empty one.
  const rows = await listJobItems(db, job, { state, after, limit: ITEMS_PAGE_SIZE + 1 });
  const items = rows.slice(0, ITEMS_PAGE_SIZE);
  const kind = jobKind(job.kind);
  const canControl = kind !== undefined && can(staff.role, kind.permission);
  const href = (p: Record<string, string | undefined>) => {
    const base: Record<string, string | undefined> = { state };
    const next = new URLSearchParams(
      Object.entries({ ...base, ...p }).filter((e): e is [string, string] => e[1] !== undefined),
    );
    return next.size ? `/jobs/${job.id}?${next}` : `/jobs/${job.id}`;
  };

  return (
    <>
      <PageHeader
        title={job.title}
        description={`${job.kindLabel} · started by ${job.createdByEmail} · ${new Date(job.createdAt).toISOString().slice(0, 16).replace("T", " ")} UTC${job.finishedAt ? ` · finished ${new Date(job.finishedAt).toISOString().slice(0, 16).replace("T", " ")} UTC` : ""}`}
        actions={
          <>
            <a
              href={`/jobs/${job.id}/export`}
              download
              className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
            >
              Results CSV
            </a>
            <a
              href={`/jobs/${job.id}/export?state=failed`}
              download
              className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
            >
              Failures CSV
            </a>
          </>
        }
      />
      <section className="mb-4 space-y-3 rounded-lg border border-slate-200 bg-white p-4">
        <JobProgress jobId={job.id} initial={job} showLink={false} refreshPage />
        <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
          {job.linkId ? (
            <div>
              <dt className="text-slate-500">Link</dt>
              <dd>
                <Link
                  href={`/links/${encodeURIComponent(job.linkId)}`}
                  className="font-mono text-xs text-indigo-700 hover:underline"
                >
                  {job.linkId}
                </Link>
              </dd>
            </div>
          ) : null}
          {job.undoesJobId ? (
            <div>
              <dt className="text-slate-500">Undoes</dt>
              <dd>
                <Link href={`/jobs/${job.undoesJobId}`} className="text-indigo-700 hover:underline">
                  the original job
                </Link>
              </dd>
            </div>
          ) : null}
          <div>
            <dt className="text-slate-500">Calls planned</dt>
            <dd className="tabular-nums">{job.total}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Audit</dt>
            <dd>
              <Link
                href={`/audit?${new URLSearchParams(job.linkId ? { link: job.linkId } : {})}`}
                className="text-indigo-700 hover:underline"
              >
                Audit rows{job.linkId ? " of this link" : ""}
              </Link>
            </dd>
          </div>
        </dl>
        <JobControls initial={job} canControl={canControl} canUndo={can(staff.role, "correct")} />
      </section>
      {job.kind === RECONNECT_KIND ? (
        <CampaignOutcome
          jobId={job.id}
          summary={await campaignSummary(db, job.id)}
          canAskAgain={can(staff.role, "reconnectCampaign") && (job.state === "done" || job.state === "cancelled")}
        />
      ) : null}
      <nav aria-label="Filter items by state" className="mb-2 flex flex-wrap gap-2">
        <Link
          href={href({ state: undefined, after: undefined })}
          aria-current={state === undefined ? "true" : undefined}
          className={chipClass(state === undefined)}
        >
          All ({job.total})
        </Link>
        {jobItemStates.map((s) => (
          <Link
            key={s}
            href={href({ state: s, after: undefined })}
            aria-current={state === s ? "true" : undefined}
            className={chipClass(state === s)}
          >
            {itemWords[s]} ({job.counts[s]})
          </Link>
        ))}
      </nav>
      <JobItemsTable items={items} kindLabel={job.kindLabel} />
      {rows.length > ITEMS_PAGE_SIZE ? (
        <p className="mt-2 text-sm">
          <Link href={href({ after: String(items[items.length - 1]!.seq) })} className="text-indigo-700 underline">
            Next {ITEMS_PAGE_SIZE} items
          </Link>
        </p>
      ) : null}
    </>
  );
}

function chipClass(active: boolean): string {
  return `rounded-full px-2.5 py-0.5 text-sm ring-1 ring-inset ${active ? "bg-indigo-600 text-white ring-indigo-600" : "bg-white text-slate-700 ring-slate-300 hover:bg-slate-50"}`;
}
