/**
 * A usage bar that reads without colour too: the text beside it says how full it is, and "Near limit"/"Full" in
 * words. One line, so a table of meters stays one line a row. `compact` (a table column that must stay on a small
 * screen): a shorter bar, the figures without "used", "Near" for "Near limit".
 */
export function UsageMeter({
  used,
  limit,
  label,
  compact = false,
}: {
  used: number;
  limit: number;
  label: string;
  compact?: boolean;
}) {
  const ratio = limit > 0 ? Math.min(1, used / limit) : 1;
  const level = ratio >= 1 ? "full" : ratio >= 0.8 ? "near" : "ok";
  const colour = level === "full" ? "bg-red-600" : level === "near" ? "bg-amber-500" : "bg-emerald-600";
  return (
    <div className={`flex items-center whitespace-nowrap ${compact ? "gap-1.5" : "min-w-48 gap-2"}`}>
      <div
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={used}
        aria-valuetext={`${used} of ${limit} used`}
        className={`h-2 shrink-0 overflow-hidden rounded bg-slate-200 ${compact ? "w-12" : "w-24"}`}
      >
        <div className={`h-full ${colour}`} style={{ width: `${Math.round(ratio * 100)}%` }} />
      </div>
      <div className="text-xs tabular-nums text-slate-600">
        {used} / {limit}
        {compact ? null : " used"}
        {level === "full" ? <span className="ml-1 font-semibold text-red-700">Full</span> : null}
        {level === "near" ? (
          <span className="ml-1 font-semibold text-amber-800">{compact ? "Near" : "Near limit"}</span>
        ) : null}
      </div>
    </div>
  );
}
