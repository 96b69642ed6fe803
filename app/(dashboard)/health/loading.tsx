import { NowSkeleton, ProblemsSkeleton, TrendSkeleton } from "@/components/health/skeletons";

// Shaped like the Health page: header, the big numbers and panels, the trend charts, then the error sources.
export default function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading health">
      <div className="mb-6 animate-pulse space-y-2">
        <div className="h-7 w-32 rounded bg-slate-200" />
        <div className="h-4 w-[32rem] max-w-full rounded bg-slate-200" />
      </div>
      <div className="space-y-6">
        <NowSkeleton />
        <TrendSkeleton />
        <ProblemsSkeleton />
      </div>
    </div>
  );
}
