import { useId } from "react";
import { formatCount, formatUtc } from "./format";

export interface ChartSeries {
  key: string;
  label: string;
  /** Tailwind fill class for the area, e.g. "fill-red-500". */
  fill: string;
  /** Tailwind background class for the legend swatch, the same colour. */
  swatch: string;
  /** One value per point, in the points' order. */
  values: number[];
}

const WIDTH = 600;
const HEIGHT = 160;

/** The smallest 1, 2 or 5 times a power of ten at or above n: a round top for the axis. */
export function niceCeiling(n: number): number {
  if (!(n > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * power >= n) return step * power;
  return 10 * power;
}

/**
 * A small stacked area chart drawn as SVG, no chart library. Sighted readers get the shapes; everyone gets a title,
 * a description with each series' first and last value, and the numbers as a table behind "Show the numbers".
 */
export function StackedAreaChart({ title, times, series, from, to }: { title: string; times: Date[]; series: ChartSeries[]; from: Date; to: Date }) {
  const id = useId();
  const span = Math.max(1, to.getTime() - from.getTime());
  const x = (t: Date) => ((t.getTime() - from.getTime()) / span) * WIDTH;
  const totals = times.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = niceCeiling(Math.max(0, ...totals));
  const y = (v: number) => HEIGHT - (v / top) * HEIGHT;

  // Running sums per point, bottom series first: each area lies between the previous sum and its own.
  const lower = times.map(() => 0);
  const areas = series.map((s) => {
    const upper = lower.map((base, i) => base + (s.values[i] ?? 0));
    const forward = times.map((t, i) => `${x(t).toFixed(1)},${y(upper[i]!).toFixed(1)}`);
    const back = times.map((t, i) => `${x(t).toFixed(1)},${y(lower[i]!).toFixed(1)}`).reverse();
    upper.forEach((v, i) => (lower[i] = v));
    return { key: s.key, fill: s.fill, d: `M${forward.join("L")}L${back.join("L")}Z` };
  });

  const first = times[0];
  const last = times.at(-1);
  const description =
    first && last
      ? `From ${formatUtc(first)} to ${formatUtc(last)}: ${series
          .map((s) => `${s.label} ${formatCount(s.values[0] ?? 0)} to ${formatCount(s.values.at(-1) ?? 0)}`)
          .join("; ")}.`
      : "No snapshots in this window.";

  return (
    <figure className="space-y-2">
      <figcaption className="text-sm font-medium text-slate-800">{title}</figcaption>
      <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600">
        {series.map((s) => (
          <li key={s.key} className="flex items-center gap-1.5">
            <span aria-hidden="true" className={`inline-block h-2.5 w-2.5 rounded-sm ${s.swatch}`} />
            {s.label}
          </li>
        ))}
      </ul>
      {times.length < 2 ? (
        <p className="rounded border border-dashed border-slate-300 px-3 py-6 text-center text-sm text-slate-500">
          {times.length === 0 ? "No snapshots in this window yet: Linkdesk takes one after each sync." : "One snapshot so far: the chart needs two."}
        </p>
      ) : (
        <div className="grid grid-cols-[auto_1fr] gap-x-2">
          <div aria-hidden="true" className="flex h-40 flex-col justify-between text-right text-xs tabular-nums text-slate-500">
            <span>{formatCount(top)}</span>
            <span>{formatCount(top / 2)}</span>
            <span>0</span>
          </div>
          <svg
            role="img"
            aria-labelledby={`${id}-title ${id}-desc`}
            viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
            preserveAspectRatio="none"
            className="h-40 w-full overflow-visible"
          >
            <title id={`${id}-title`}>{title}</title>
            <desc id={`${id}-desc`}>{description}</desc>
            {[0, 0.5, 1].map((f) => (
              <line key={f} x1={0} x2={WIDTH} y1={HEIGHT * f} y2={HEIGHT * f} className="stroke-slate-200" strokeWidth={1} vectorEffect="non-scaling-stroke" />
            ))}
            {areas.map((a) => (
              <path key={a.key} d={a.d} className={`${a.fill} opacity-85`} />
            ))}
          </svg>
          <span />
          <div aria-hidden="true" className="mt-1 flex justify-between text-xs text-slate-500">
            <span>{formatUtc(from)}</span>
            <span>{formatUtc(to)}</span>
          </div>
        </div>
      )}
      {times.length > 0 ? (
        <details className="text-sm">
          <summary className="cursor-pointer text-xs text-slate-500 hover:text-slate-800">Show the numbers</summary>
          <div className="mt-2 max-h-72 overflow-auto rounded border border-slate-200">
            <table className="min-w-full text-xs">
              <caption className="sr-only">{title}</caption>
              <thead className="sticky top-0 bg-slate-50 text-left text-slate-500">
                <tr>
                  <th scope="col" className="px-2 py-1 font-medium">
                    Snapshot (UTC)
                  </th>
                  {series.map((s) => (
                    <th key={s.key} scope="col" className="px-2 py-1 text-right font-medium">
                      {s.label}
                    </th>
                  ))}
                  <th scope="col" className="px-2 py-1 text-right font-medium">
                    Total
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100 tabular-nums">
                {times.map((t, i) => (
                  <tr key={t.toISOString()}>
                    <th scope="row" className="whitespace-nowrap px-2 py-1 text-left font-normal">
                      <time dateTime={t.toISOString()}>{formatUtc(t)}</time>
                    </th>
                    {series.map((s) => (
                      <td key={s.key} className="px-2 py-1 text-right">
                        {formatCount(s.values[i] ?? 0)}
                      </td>
                    ))}
                    <td className="px-2 py-1 text-right font-medium">{formatCount(totals[i] ?? 0)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ) : null}
    </figure>
  );
}
