"use client";

import { useEffect } from "react";

// Which jobs' progress the page shows right now, and word that one of them runs: the shell's notices
// (job-end-notices.tsx) tell a person of a job that ended only when they did not see it end, and start asking about
// their jobs as soon as one they look at runs.

const onScreen = new Map<string, number>();

/** Sent on window with the job's id when a page shows a job whose items still move. */
export const JOB_LIVE_EVENT = "linkdesk:job-live";

/** Marks the job as shown on this page while the calling component is mounted. */
export function useJobOnScreen(jobId: string): void {
  useEffect(() => {
    onScreen.set(jobId, (onScreen.get(jobId) ?? 0) + 1);
    return () => {
      const left = (onScreen.get(jobId) ?? 1) - 1;
      if (left > 0) onScreen.set(jobId, left);
      else onScreen.delete(jobId);
    };
  }, [jobId]);
}

export function isJobOnScreen(jobId: string): boolean {
  return (onScreen.get(jobId) ?? 0) > 0;
}

/** Tells the shell a job shown here still moves. */
export function announceLiveJob(jobId: string): void {
  window.dispatchEvent(new CustomEvent<string>(JOB_LIVE_EVENT, { detail: jobId }));
}
