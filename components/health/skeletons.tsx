"use client";

// Placeholders shaped like the Health page's widgets, for loading.tsx and each Suspense boundary. A client module, so a
// page's fallbacks cross in its RSC payload as references rather than as trees of grey bars.

const block = "rounded bg-slate-200";

export function TilesSkeleton() {
  return (
    <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6">
      {Array.from({ length: 6 }, (_, i) => (
        <div key={i} className="rounded-lg border border-slate-200 bg-white px-4 py-3">
          <div className={`h-4 w-24 ${block}`} />
          <div className={`mt-2 h-8 w-20 ${block}`} />
        </div>
      ))}
    </div>
  );
}

function CardSkeleton({ rows = 5, className = "" }: { rows?: number; className?: string }) {
  return (
    <div className={`rounded-lg border border-slate-200 bg-white p-4 ${className}`}>
      <div className={`h-5 w-40 ${block}`} />
      <div className="mt-4 space-y-2.5">
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="grid grid-cols-[10rem_1fr_3rem] items-center gap-3">
            <div className={`h-4 ${block}`} />
            <div className={`h-3 ${block}`} style={{ width: `${90 - i * 14}%` }} />
            <div className={`h-4 ${block}`} />
          </div>
        ))}
      </div>
    </div>
  );
}

export function NowSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading link counts" className="animate-pulse space-y-6">
      <div className={`h-4 w-72 ${block}`} />
      <TilesSkeleton />
      <CardSkeleton rows={3} />
      <div className="grid gap-6 lg:grid-cols-2">
        <CardSkeleton rows={5} />
        <CardSkeleton rows={6} />
      </div>
    </div>
  );
}

export function ProblemsSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading error sources" className="grid animate-pulse gap-6 lg:grid-cols-3">
      <CardSkeleton rows={8} />
      <CardSkeleton rows={4} />
      <CardSkeleton rows={5} />
    </div>
  );
}

/** The two charts alone: the fallback inside the "Over time" panel while snapshots load. */
export function TrendChartsSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading trends" className="grid animate-pulse gap-6 lg:grid-cols-2">
      <div className={`h-52 ${block}`} />
      <div className={`h-52 ${block}`} />
      <div className={`h-52 lg:col-span-2 ${block}`} />
    </div>
  );
}

/** The whole "Over time" panel, for loading.tsx. */
export function TrendSkeleton() {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4">
      <div className={`h-5 w-28 animate-pulse ${block}`} />
      <div className={`mt-2 h-4 w-72 animate-pulse ${block}`} />
      <div className="mt-4 mb-4 flex gap-1">
        {Array.from({ length: 3 }, (_, i) => (
          <div key={i} className={`h-7 w-16 animate-pulse ${block}`} />
        ))}
      </div>
      <TrendChartsSkeleton />
    </div>
  );
}
