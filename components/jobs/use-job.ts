"use client";

import { useQuery } from "@tanstack/react-query";
import type { JobView } from "@/lib/jobs/view";

/** Polled while a job may still move; a reload picks it up again from the URL or the page, since the job lives on the server. */
export const JOB_POLL_MS = 1_500;

export function jobIsLive(job: Pick<JobView, "state" | "counts"> | undefined): boolean {
  // A cancelled job still settles its calls in flight.
  return job === undefined || job.state === "running" || (job.state === "cancelled" && job.counts.sent > 0);
}

async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new Error(body?.error ?? `HTTP ${response.status}`);
  }
  return (await response.json()) as T;
}

export const jobQueryKey = (jobId: string) => ["job", jobId] as const;

/** One job's progress, polled until it ends. */
export function useJob(jobId: string, initialData?: JobView) {
  return useQuery({
    queryKey: jobQueryKey(jobId),
    queryFn: () => fetchJson<JobView>(`/api/jobs/${jobId}`),
    initialData,
    refetchInterval: (query) => (jobIsLive(query.state.data) ? JOB_POLL_MS : false),
  });
}

/** The jobs list for a query string, polled while any listed job runs. */
export function useJobs(query: string, initialData: JobView[]) {
  return useQuery({
    queryKey: ["jobs", query],
    queryFn: () => fetchJson<JobView[]>(`/api/jobs${query ? `?${query}` : ""}`),
    initialData,
    refetchInterval: (q) => ((q.state.data ?? []).some((job) => jobIsLive(job)) ? JOB_POLL_MS * 2 : false),
  });
}
