import type { JobState } from "@/lib/db/schema";

const styles: Record<JobState, string> = {
  running: "tone-indigo",
  paused: "tone-amber",
  cancelled: "tone-slate",
  done: "tone-emerald",
};

const words: Record<JobState, string> = { running: "Running", paused: "Paused", cancelled: "Cancelled", done: "Done" };

export function JobStateChip({ state }: { state: JobState }) {
  return (
    <span
      className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${styles[state]}`}
    >
      {words[state]}
    </span>
  );
}
