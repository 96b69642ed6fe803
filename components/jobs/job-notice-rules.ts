import type { JobNotice } from "@/lib/jobs/notices";

// What the shell does with an answer of GET /api/jobs/mine: which ended jobs to tell the person of, which jobs to keep
// watching, and whether to ask again. Kept apart from the component so the rules are tested as they are.

export interface NoticeMemory {
  /** Jobs this browser saw moving: an end is told only of a job seen running, never of an old one. */
  watching: string[];
  /** Jobs told of already: each is told once, whichever page or tab saw it end. */
  told: string[];
}

/** How many told jobs are remembered: enough for a day's work, small enough for localStorage. */
const TOLD_KEPT = 100;

export interface NoticeDecision {
  /** Jobs to tell of now, with their message. */
  tell: { id: string; message: string }[];
  memory: NoticeMemory;
  /** Whether any of the person's jobs still moves: then the shell asks again in a few seconds, else it stops. */
  live: boolean;
}

/**
 * A job seen moving is watched. When it has ended: told of, once, if it ran long (it has a message) and its progress is
 * not on the page (the person is elsewhere in the dashboard); forgotten either way. A watched job missing from the
 * answer ended long ago or was never theirs: forgotten. A paused one stays watched.
 */
export function decideNotices(
  jobs: readonly JobNotice[],
  memory: NoticeMemory,
  onScreen: (jobId: string) => boolean,
): NoticeDecision {
  const watching = new Set(memory.watching);
  const told = [...memory.told];
  const tell: NoticeDecision["tell"] = [];
  const listed = new Set(jobs.map((j) => j.id));
  for (const id of watching) if (!listed.has(id)) watching.delete(id);
  for (const job of jobs) {
    if (job.live) {
      if (!told.includes(job.id)) watching.add(job.id);
      continue;
    }
    if (!job.ended || !watching.has(job.id)) continue;
    watching.delete(job.id);
    if (told.includes(job.id)) continue;
    told.push(job.id);
    if (job.message && !onScreen(job.id)) tell.push({ id: job.id, message: job.message });
  }
  return { tell, memory: { watching: [...watching], told: told.slice(-TOLD_KEPT) }, live: jobs.some((j) => j.live) };
}
