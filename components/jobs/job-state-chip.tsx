import type { JobState } from "@/lib/db/schema";

const styles: Record<JobState, string> = {
  running: "bg-indigo-50 text-indigo-800 ring-indigo-200",
  paused: "bg-amber-50 text-amber-900 ring-amber-200",
  cancelled: "bg-slate-100 text-slate-700 ring-slate-300",
  done: "bg-emerald-50 text-emerald-800 ring-emerald-200",
};

const words: Record<JobState, string> = { running: "Running", paused: "Paused", cancelled: "Cancelled", done: "Done" };

export function JobStateChip({ state }: { state: JobState }) {
  return <span className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${styles[state]}`}>{words[state]}</span>;
}
