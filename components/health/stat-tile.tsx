import Link from "next/link";
import { signed } from "@/lib/links/health-change";
import { formatCount } from "./format";

const tones = {
  neutral: "text-slate-900",
  good: "text-emerald-700",
  bad: "text-red-700",
  warn: "text-amber-700",
} as const;

/** One big number that opens the links it counts. */
export function StatTile({
  label,
  count,
  href,
  hint,
  tone = "neutral",
  change,
}: {
  label: string;
  count: number;
  href: string;
  hint?: string;
  tone?: keyof typeof tones;
  /** The change over the window Health shows ("vs 1 day ago"), and which way is worse (none: neither). */
  change?: { delta: number; since: string; worse?: "up" | "down" };
}) {
  return (
    <Link
      href={href}
      className="group block rounded-lg border border-slate-200 bg-white px-4 py-3 hover:border-indigo-300 hover:bg-indigo-50/40 focus-visible:outline-2 focus-visible:outline-indigo-600"
    >
      <span className="block text-sm text-slate-600">{label}</span>
      <span className={`mt-1 block text-3xl font-semibold tabular-nums group-hover:underline ${tones[tone]}`}>
        {formatCount(count)}
      </span>
      {change ? (
        <span className={`mt-0.5 block text-xs font-medium ${changeTone(change)}`} data-testid="tile-change">
          {signed(change.delta)} vs {change.since}
        </span>
      ) : null}
      {hint ? <span className="mt-0.5 block text-xs text-slate-500">{hint}</span> : null}
    </Link>
  );
}

function changeTone({ delta, worse }: { delta: number; worse?: "up" | "down" }): string {
  if (delta === 0 || !worse) return "text-slate-600";
  return delta > 0 === (worse === "up") ? "text-red-700" : "text-emerald-700";
}
