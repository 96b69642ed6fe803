import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { JobsTable } from "@/components/jobs/jobs-table";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { jobStates } from "@/lib/db/schema";
import { getDb } from "@/lib/db/client";
import { parseJobListFilters } from "@/lib/jobs/filters";
import { JOB_KINDS } from "@/lib/jobs/kind-registry";
import { listJobs } from "@/lib/jobs/view";

export const metadata: Metadata = { title: "Jobs" };

type SearchParams = Record<string, string | string[] | undefined>;

const stateWords = { running: "Running", paused: "Paused", cancelled: "Cancelled", done: "Done" } as const;

export default async function JobsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/jobs");
  if (!can(staff.role, "read")) redirect("/");
  const { filters, dropped } = parseJobListFilters(await searchParams);
  const { jobs, readAt } = await listJobs((await getDb()).db, filters);
  const query = new URLSearchParams(
    Object.entries({ state: filters.state, kind: filters.kind, link: filters.linkId }).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  ).toString();
  const chip = (params: Record<string, string | undefined>, label: string, active: boolean) => {
    const next = new URLSearchParams(
      Object.entries({ ...Object.fromEntries(new URLSearchParams(query)), ...params }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
    return (
      <Link
        key={label}
        href={next.size ? `/jobs?${next}` : "/jobs"}
        aria-current={active ? "true" : undefined}
        className={`rounded-full px-2.5 py-0.5 text-sm ring-1 ring-inset ${active ? "bg-indigo-600 text-white ring-indigo-600" : "bg-white text-slate-700 ring-slate-300 hover:bg-slate-50"}`}
      >
        {label}
      </Link>
    );
  };

  return (
    <>
      <PageHeader
        title="Jobs"
        description="Long upstream work (bulk corrections, undos, imports) that runs on the server within the rate budget, survives reloads and restarts, and sends every call once."
      />
      {dropped.length > 0 ? (
        <Callout tone="warning" title="Some filters were ignored">
          {dropped.map((d) => `${d.param}: ${d.reason}`).join("; ")}
        </Callout>
      ) : null}
      <nav aria-label="Filter jobs" className="mb-3 flex flex-wrap items-center gap-2">
        {chip({ state: undefined }, "All states", filters.state === undefined)}
        {jobStates.map((state) => chip({ state }, stateWords[state], filters.state === state))}
        <span className="mx-1 h-4 w-px bg-slate-300" aria-hidden />
        {chip({ kind: undefined }, "All kinds", filters.kind === undefined)}
        {[...JOB_KINDS.values()].map((kind) => chip({ kind: kind.kind }, kind.label, filters.kind === kind.kind))}
        {filters.linkId ? chip({ link: undefined }, `Link ${filters.linkId} ✕`, true) : null}
      </nav>
      {jobs.length === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-8 text-center text-sm text-slate-600">
          No jobs{query ? " match these filters" : " yet"}. A bulk correction from a link&apos;s transactions, or an
          import, starts one.
        </p>
      ) : (
        <JobsTable initial={jobs} query={query} renderedAt={readAt.getTime()} pathname="/jobs" />
      )}
    </>
  );
}
