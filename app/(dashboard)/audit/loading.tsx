import { PageHeaderSkeleton } from "@/components/ui/page-header";

// Shaped like the Audit page: header with the export button, the filter bar, then table rows.
export default function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading the audit trail" className="animate-pulse">
      <PageHeaderSkeleton titleWidth="w-40" descriptionWidth="w-96" />
      <div className="mb-4 grid grid-cols-1 gap-3 rounded-lg border border-slate-200 bg-white p-4 sm:grid-cols-2 lg:grid-cols-6">
        {Array.from({ length: 7 }, (_, i) => (
          <div key={i} className={i === 0 ? "lg:col-span-2" : undefined}>
            <div className="h-3 w-16 rounded bg-slate-200" />
            <div className="mt-2 h-8 rounded-md bg-slate-200" />
          </div>
        ))}
      </div>
      <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
        <div className="h-9 border-b border-slate-200 bg-slate-50" />
        {Array.from({ length: 10 }, (_, i) => (
          <div key={i} className="flex gap-4 border-b border-slate-100 px-3 py-3 last:border-b-0">
            <div className="h-4 w-36 rounded bg-slate-200" />
            <div className="h-4 w-48 rounded bg-slate-200" />
            <div className="h-4 w-32 rounded bg-slate-200" />
            <div className="h-4 flex-1 rounded bg-slate-200" />
            <div className="h-4 w-20 rounded bg-slate-200" />
          </div>
        ))}
      </div>
    </div>
  );
}
