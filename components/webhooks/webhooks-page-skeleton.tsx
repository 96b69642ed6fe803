"use client";

import { DataTableSkeleton, DataTableToolbarSkeleton } from "@/components/data-table/data-table-states";
import { PageHeaderSkeleton } from "@/components/ui/page-header";

// Shaped like the Webhooks page: header with the export button, the summary strip, the filter bar, the table's
// one-line rows, the pagination. A client component, so each payload carries a reference to it rather than its bars.
export function WebhooksPageSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading the webhooks" className="animate-pulse">
      <PageHeaderSkeleton titleWidth="w-32" descriptionWidth="w-[36rem]" />
      <div className="mb-4 flex flex-wrap gap-2">
        {Array.from({ length: 6 }, (_, i) => (
          <div key={i} className="h-[3.75rem] w-32 rounded-lg border border-slate-200 bg-white px-3 py-2">
            <div className="h-3 w-20 rounded bg-slate-200" />
            <div className="mt-2 h-5 w-10 rounded bg-slate-200" />
          </div>
        ))}
      </div>
      <DataTableToolbarSkeleton fields={5} />
      <DataTableSkeleton columns={[8, 7, 10, 5, 9, 4, 4, 3.5]} rows={12} />
      <div className="mt-4 flex items-center justify-between">
        <div className="h-4 w-48 rounded bg-slate-200" />
        <div className="h-8 w-24 rounded-md bg-slate-200" />
      </div>
    </div>
  );
}
