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
export const STATE_STACK_ORDER: readonly LinkState[] = [
  "connected",
  "connecting",
  "awaiting_token_exchange",
  "deleted",
  "error",
];

/** Per party: `bar`/`fill` for its own share and series, `restBar`/`restFill` (a light tint) for its error codes not
 * drawn one by one in the error codes chart, `text` for its figures. */
export const WHO_ACTS_COLORS: Record<
  WhoActs,
  { bar: string; fill: string; restBar: string; restFill: string; text: string }
> = {
  user: {
    bar: "bg-amber-500",
    fill: "fill-amber-500",
    restBar: "bg-amber-200",
    restFill: "fill-amber-200",
    text: "text-amber-800",
  },
  wait: {
    bar: "bg-sky-500",
    fill: "fill-sky-500",
    restBar: "bg-sky-200",
    restFill: "fill-sky-200",
    text: "text-sky-800",
  },
  service: {
    bar: "bg-red-500",
    fill: "fill-red-500",
    restBar: "bg-red-200",
    restFill: "fill-red-200",
    text: "text-red-800",
  },
};

/**
 * For error codes drawn one by one over time, by rank: one per code at most (every code may be drawn), hues apart
 * from the who-acts tints that the remainders use.
 */
export const SERIES_FILLS = [
  "fill-violet-500",
  "fill-teal-500",
  "fill-pink-500",
  "fill-lime-500",
  "fill-indigo-500",
  "fill-orange-500",
  "fill-cyan-600",
  "fill-fuchsia-600",
  "fill-rose-400",
  "fill-yellow-400",
  "fill-emerald-700",
] as const;
export const SERIES_BARS = [
  "bg-violet-500",
  "bg-teal-500",
  "bg-pink-500",
  "bg-lime-500",
  "bg-indigo-500",
  "bg-orange-500",
  "bg-cyan-600",
  "bg-fuchsia-600",
  "bg-rose-400",
  "bg-yellow-400",
  "bg-emerald-700",
] as const;
