"use client";

import Link from "next/link";
import { DataTable } from "@/components/data-table/data-table";
import { createDataTableColumnHelper } from "@/components/data-table/features";
import { RelativeTime } from "@/components/data-table/relative-time";
import { ShortId } from "@/components/ui/short-id";
import type { JobView } from "@/lib/jobs/view";
import { summary } from "./job-progress";
import { JobStateChip } from "./job-state-chip";
import { useJobs } from "./use-job";

const helper = createDataTableColumnHelper<JobView>();

const columns = helper.columns([
  helper.accessor("title", {
    id: "title",
    header: "Job",
    enableSorting: false,
    // A title names what the job works on and can be long: it wraps, and the kind and who started it sit under it, so
    // every column stays on screen at 1024 px.
    meta: { cellClassName: "min-w-56 whitespace-normal" },
    cell: ({ row }) => (
      <>
        <Link href={`/jobs/${row.original.id}`} className="font-medium text-indigo-700 hover:underline">
          {row.original.title}
        </Link>
        <div className="text-xs text-slate-500" data-testid="job-kind-and-starter">
          {row.original.kindLabel} · {row.original.createdByEmail}
        </div>
      </>
    ),
  }),
  helper.accessor("state", {
    id: "state",
    header: "State",
    enableSorting: false,
    cell: ({ row }) => <JobStateChip state={row.original.state} />,
  }),
  helper.accessor("settled", {
    id: "progress",
    header: "Progress",
    enableSorting: false,
    // A job waiting for a slot names the limit and its endpoint: the sentence wraps rather than widening the table.
    meta: { cellClassName: "min-w-64 whitespace-normal" },
    cell: ({ row }) => <span className="tabular-nums text-slate-700">{summary(row.original)}</span>,
  }),
  helper.accessor("linkId", {
    id: "link",
    header: "Link",
    enableSorting: false,
    cell: ({ row }) =>
      row.original.linkId ? (
        <ShortId id={row.original.linkId} what="link id" href={`/links/${encodeURIComponent(row.original.linkId)}`} />
      ) : (
        <span className="text-slate-500">many</span>
      ),
  }),
  helper.accessor("createdAt", {
    id: "started",
    header: "Started",
    enableSorting: false,
    cell: ({ row, table }) => <RelativeTime value={row.original.createdAt} now={table.options.meta?.renderedAt ?? 0} />,
  }),
  helper.accessor("finishedAt", {
    id: "finished",
    header: "Finished",
    enableSorting: false,
    cell: ({ row, table }) =>
      row.original.finishedAt ? (
        <RelativeTime value={row.original.finishedAt} now={table.options.meta?.renderedAt ?? 0} />
      ) : (
        <span className="text-slate-500">—</span>
      ),
  }),
]);

/** The jobs of the current filter, refreshed while any of them runs. */
export function JobsTable({
  initial,
  query,
  renderedAt,
  pathname,
}: {
  initial: JobView[];
  query: string;
  renderedAt: number;
  pathname: string;
}) {
  const { data = initial } = useJobs(query, initial);
  return (
    <DataTable
      columns={columns}
      data={data}
      getRowId={(row) => row.id}
      sort={null}
      view={{ pathname, query }}
      renderedAt={renderedAt}
      label="Jobs"
    />
  );
}
