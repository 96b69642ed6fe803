"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import type { JobNotice } from "@/lib/jobs/notices";
import { type NoticeMemory, decideNotices } from "./job-notice-rules";
import { JOB_LIVE_EVENT, isJobOnScreen } from "./job-on-screen";

// In the dashboard's shell: tells the person that a long job of theirs ended while they were elsewhere in the
// dashboard ("“Import of legacy.json: 50 links” finished: 48 imported, 2 failed."), once, with a link to it. It asks
// GET /api/jobs/mine when a page loads, when a page shows a running job, when the tab comes back into view, and then
// every few seconds only while one of their jobs runs.

/** How often the shell asks while one of the person's jobs runs. */
export const NOTICE_POLL_MS = 4_000;
const MEMORY_KEY = "linkdesk.job-notices";

function readMemory(): NoticeMemory {
  try {
    const value = JSON.parse(window.localStorage.getItem(MEMORY_KEY) ?? "null") as Partial<NoticeMemory> | null;
    const ids = (v: unknown) => (Array.isArray(v) ? v.filter((id): id is string => typeof id === "string") : []);
    return { watching: ids(value?.watching), told: ids(value?.told) };
  } catch {
    return { watching: [], told: [] };
  }
}

function writeMemory(memory: NoticeMemory): void {
  try {
    window.localStorage.setItem(MEMORY_KEY, JSON.stringify(memory));
  } catch {
    // Storage full or refused (a private window): notices still work for this page's life.
  }
}

type Answer = { jobs: JobNotice[] } | "stop" | "retry";

async function askMine(): Promise<Answer> {
  try {
    const response = await fetch("/api/jobs/mine", { cache: "no-store" });
    // Signed out, or a role that may not read jobs: nothing to tell, nothing to ask again.
    if (response.status === 401 || response.status === 403) return "stop";
    if (!response.ok) return "retry";
    const body = (await response.json()) as { jobs?: unknown };
    return Array.isArray(body.jobs) ? { jobs: body.jobs as JobNotice[] } : "retry";
  } catch {
    return "retry";
  }
}

export function JobEndNotices() {
  const [told, setTold] = useState<{ id: string; message: string }[]>([]);
  /** Whether the last answer listed a job of theirs still moving; null before the first answer. */
  const [moving, setMoving] = useState<boolean | null>(null);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let busy = false;
    let again = false;
    let live = false;
    let stopped = false;

    async function ask(): Promise<void> {
      clearTimeout(timer);
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      const answer = await askMine();
      busy = false;
      if (stopped) return;
      if (answer === "stop") {
        live = false;
      } else if (answer !== "retry") {
        const decision = decideNotices(answer.jobs, readMemory(), isJobOnScreen);
        writeMemory(decision.memory);
        live = decision.live;
        if (decision.tell.length > 0)
          setTold((shown) => [...shown, ...decision.tell.filter((t) => !shown.some((s) => s.id === t.id))]);
        setMoving(live);
      }
      if (again) {
        again = false;
        void ask();
      } else if (live) {
        timer = setTimeout(() => void ask(), NOTICE_POLL_MS);
      }
    }

    void ask();
    const onLiveJob = (event: Event) => {
      const jobId = (event as CustomEvent<unknown>).detail;
      if (typeof jobId !== "string") return;
      const memory = readMemory();
      if (!memory.watching.includes(jobId) && !memory.told.includes(jobId))
        writeMemory({ ...memory, watching: [...memory.watching, jobId] });
      // Already asking every few seconds: the next answer covers it.
      if (!live) void ask();
    };
    const onVisible = () => {
      if (document.visibilityState === "visible" && !live) void ask();
    };
    window.addEventListener(JOB_LIVE_EVENT, onLiveJob);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      stopped = true;
      clearTimeout(timer);
      window.removeEventListener(JOB_LIVE_EVENT, onLiveJob);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, []);

  const dismiss = (id: string) => setTold((shown) => shown.filter((t) => t.id !== id));

  return (
    <div
      role="status"
      aria-live="polite"
      aria-label="Jobs that ended"
      data-testid="job-notices"
      data-moving={moving === null ? undefined : String(moving)}
      className="pointer-events-none fixed right-4 bottom-4 z-50 flex w-96 max-w-[calc(100vw-2rem)] flex-col gap-2"
    >
      {told.map((notice) => (
        <div
          key={notice.id}
          data-testid="job-notice"
          className="pointer-events-auto rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-lg"
        >
          <p className="text-slate-900">{notice.message}</p>
          <div className="mt-2 flex items-center gap-3">
            <Link
              href={`/jobs/${notice.id}`}
              onClick={() => dismiss(notice.id)}
              className="font-medium text-indigo-700 underline"
            >
              Open the job
            </Link>
            <button type="button" onClick={() => dismiss(notice.id)} className="text-slate-700 underline">
              Dismiss
            </button>
          </div>
        </div>
      ))}
    </div>
  );
}
