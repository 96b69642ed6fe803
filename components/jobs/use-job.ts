"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import type { JobView } from "@/lib/jobs/view";

/** Polled while a job may still move; a reload picks it up again from the URL or the page, since the job lives on the server. */
export const JOB_POLL_MS = 1_500;

/**
 * Whether a job's counts can still change without anyone touching it: until it is done (or cancelled) and every item
 * has settled. A paused job's calls in flight still settle; a cancelled one's are still answered or checked.
 */
export function jobIsLive(job: Pick<JobView, "state" | "counts" | "finishedAt"> | undefined): boolean {
  if (job === undefined) return true;
  switch (job.state) {
    case "running":
      return true;
    case "paused":
      return job.counts.sent > 0;
    case "cancelled":
      return job.counts.sent > 0 || job.finishedAt === null;
    case "done":
      return job.counts.pending + job.counts.sent > 0 || job.finishedAt === null;
  }
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

/** One job's progress, polled until it ends and its last item settles. */
export function useJob(jobId: string, initialData?: JobView) {
  return useQuery({
    queryKey: jobQueryKey(jobId),
    queryFn: () => fetchJson<JobView>(`/api/jobs/${jobId}`),
    initialData,
    refetchInterval: (query) => (jobIsLive(query.state.data) ? JOB_POLL_MS : false),
  });
}

/** What moves on a job's page: its state and its counts. */
export function jobMovement(job: Pick<JobView, "state" | "counts">): string {
  return `${job.state} ${JSON.stringify(job.counts)}`;
}

/**
 * Renders the server's part of a job's page again (its state chips and its items table) each time a poll shows the
 * job moved: so the last poll, the one that sees the job end, refreshes it once more, and then nothing does.
 */
export function useRefreshOnMovement(
  job: Pick<JobView, "state" | "counts"> | undefined,
  rendered: Pick<JobView, "state" | "counts"> | undefined,
  enabled = true,
): void {
  const router = useRouter();
  const shown = useRef(rendered ? jobMovement(rendered) : null);
  const movement = job ? jobMovement(job) : null;
  useEffect(() => {
    if (!enabled || movement === null) return;
    if (shown.current === null) shown.current = movement;
    if (movement === shown.current) return;
    shown.current = movement;
    router.refresh();
  }, [enabled, movement, router]);
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
