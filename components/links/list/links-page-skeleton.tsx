"use client";

import { DataTableSkeleton, DataTableToolbarSkeleton } from "@/components/data-table/data-table-states";
import { PageHeaderSkeleton } from "@/components/ui/page-header";

// Shaped like the Links page: header with the export button, the open-by-id line beside the freshness line, the filter
// bar, the view menu, the table's one-line rows, the pagination. A client component: every /links payload carries the
// segment's loading state (for the next navigation), and as a reference it costs a few bytes instead of 17 kB of bars.
export function LinksPageSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading the links" className="animate-pulse">
      <PageHeaderSkeleton titleWidth="w-24" descriptionWidth="w-[32rem]" />
      <div className="mb-4 flex flex-wrap items-center justify-between gap-4">
        <div className="flex w-full max-w-xl items-center gap-2">
          <div className="h-4 w-32 rounded bg-slate-200" />
          <div className="h-8 flex-1 rounded-md bg-slate-200" />
          <div className="h-8 w-16 rounded-md bg-slate-200" />
        </div>
        <div className="space-y-2">
          <div className="h-4 w-56 rounded bg-slate-200" />
          <div className="h-4 w-44 rounded bg-slate-200" />
        </div>
      </div>
      <DataTableToolbarSkeleton fields={8} />
      <div className="mb-2 flex justify-end">
        <div className="h-7 w-40 rounded-md bg-slate-200" />
      </div>
      <DataTableSkeleton columns={[7, 9, 5, 9, 4, 6, 6, 4]} rows={16} />
      <div className="mt-4 flex items-center justify-between">
        <div className="h-4 w-48 rounded bg-slate-200" />
        <div className="flex gap-2">
          {Array.from({ length: 4 }, (_, i) => (
            <div key={i} className="h-8 w-20 rounded-md bg-slate-200" />
          ))}
        </div>
      </div>
    </div>
  );
}
