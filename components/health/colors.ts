import type { WhoActs } from "@/lib/links/error-codes";
import type { LinkState } from "@/lib/upstream/schemas";

// One colour per state and per who-acts group, the same in bars, the split and the charts. Full class names, so
// Tailwind finds them in the source.

export const STATE_COLORS: Record<LinkState, { bar: string; fill: string }> = {
  connected: { bar: "bg-emerald-500", fill: "fill-emerald-500" },
  connecting: { bar: "bg-sky-400", fill: "fill-sky-400" },
  awaiting_token_exchange: { bar: "bg-indigo-400", fill: "fill-indigo-400" },
  error: { bar: "bg-red-500", fill: "fill-red-500" },
  deleted: { bar: "bg-slate-400", fill: "fill-slate-400" },
};

/** Links listed but not read yet (no state): on top of the states, in the quietest grey. */
export const NOT_READ_COLORS = { bar: "bg-slate-300", fill: "fill-slate-300" } as const;

/** Bottom to top in the stacked chart: healthy at the base, problems on top where the eye lands. */
export const STATE_STACK_ORDER: readonly LinkState[] = ["connected", "connecting", "awaiting_token_exchange", "deleted", "error"];

export const WHO_ACTS_COLORS: Record<WhoActs, { bar: string; text: string }> = {
  user: { bar: "bg-amber-500", text: "text-amber-800" },
  wait: { bar: "bg-sky-500", text: "text-sky-800" },
  service: { bar: "bg-red-500", text: "text-red-800" },
};

/** For error-code series over time, by rank; the last is "other codes". */
export const SERIES_FILLS = ["fill-red-500", "fill-amber-500", "fill-sky-500", "fill-violet-500", "fill-teal-500", "fill-slate-400"] as const;
export const SERIES_BARS = ["bg-red-500", "bg-amber-500", "bg-sky-500", "bg-violet-500", "bg-teal-500", "bg-slate-400"] as const;
