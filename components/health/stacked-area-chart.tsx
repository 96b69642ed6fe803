"use client";

import { useId, useMemo, useRef, useState } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";
import { useHydrated } from "@/components/ui/use-hydrated";
import { formatCount, formatUtc } from "./format";

// A stacked area chart drawn as SVG, no chart library (see README, "Health"): a value axis with its unit and a time
// axis in UTC, a tooltip with every series' value at the point under the pointer, a legend whose entries switch a
// series off and on, the arrow keys to walk the points (read out as they change), a description in words and the
// numbers as a table. Areas are drawn in a stretched viewBox; every text (axes, tooltip) is HTML placed in percent,
// so it never stretches and reads the same at any width, in the server's HTML and in the browser.

export interface ChartSeries {
  key: string;
  label: string;
  /** Tailwind fill class for the area, e.g. "fill-red-500". */
  fill: string;
  /** Tailwind background class for the legend swatch and the tooltip, the same colour. */
  swatch: string;
  /** One value per point, in the points' order. */
  values: number[];
}

const WIDTH = 600;
const HEIGHT = 160;
const Y_TICKS = 4;
const X_TICKS = 5;

/** The smallest 1, 2 or 5 times a power of ten at or above n: a round top for the axis. */
export function niceCeiling(n: number): number {
  if (!(n > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * power >= n) return step * power;
  return 10 * power;
}

/** The value axis: a round step (about Y_TICKS of them) and the first multiple of it at or above the largest value. */
export function valueAxis(max: number): { top: number; step: number } {
  const step = niceCeiling(Math.max(1, max) / Y_TICKS);
  return { top: Math.max(step, Math.ceil(max / step) * step), step };
}

const DAY_MS = 86_400_000;
const dateLabel = (ms: number, spanMs: number) => {
  const iso = new Date(ms).toISOString();
  return spanMs <= 2 * DAY_MS ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(5, 10);
};

export function StackedAreaChart({
  title,
  unit,
  times,
  series,
  from,
  to,
  demoUntil = null,
}: {
  title: string;
  /** What the values count, for the axis and the tooltip: "links". */
  unit: string;
  /** Each point's time (ms since the epoch), oldest first. */
  times: number[];
  series: ChartSeries[];
  /** The window drawn (ms). */
  from: number;
  to: number;
  /** Points at or before this time are made-up demo history (demo mode): shaded and said so. */
  demoUntil?: number | null;
}) {
  const id = useId();
  const hydrated = useHydrated();
  const [hidden, setHidden] = useState<ReadonlySet<string>>(() => new Set());
  const [active, setActive] = useState<number | null>(null);
  const [announce, setAnnounce] = useState("");
  // The numbers' table is made when someone opens it: a 30-day window is a few hundred cells the page would otherwise
  // carry in its HTML on every view, for the few who look.
  const [numbersOpen, setNumbersOpen] = useState(false);
  const plot = useRef<HTMLDivElement>(null);

  const span = Math.max(1, to - from);
  const xPct = (t: number) => ((t - from) / span) * 100;
  const shown = useMemo(() => series.filter((s) => !hidden.has(s.key)), [series, hidden]);
  const totals = useMemo(
    () => times.map((_, i) => shown.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)),
    [times, shown],
  );
  const { top, step } = valueAxis(Math.max(0, ...totals));
  const yPct = (v: number) => 100 - (v / top) * 100;

  // Running sums per point, bottom series first: each area lies between the previous sum and its own.
  const areas = useMemo(() => {
    const lower = times.map(() => 0);
    return shown.map((s) => {
      const upper = lower.map((base, i) => base + (s.values[i] ?? 0));
      const at = (t: number, v: number) =>
        `${(((t - from) / span) * WIDTH).toFixed(1)},${(HEIGHT - (v / top) * HEIGHT).toFixed(1)}`;
      const forward = times.map((t, i) => at(t, upper[i]!));
      const back = times.map((t, i) => at(t, lower[i]!)).reverse();
      upper.forEach((v, i) => (lower[i] = v));
      return { key: s.key, fill: s.fill, d: `M${forward.join("L")}L${back.join("L")}Z` };
    });
  }, [times, shown, from, span, top]);

  const pointText = (i: number) =>
    `${formatUtc(new Date(times[i]!))}${demoUntil !== null && times[i]! <= demoUntil ? " (demo history)" : ""}: ${shown
      .map((s) => `${s.label} ${formatCount(s.values[i] ?? 0)}`)
      .join(", ")}; total ${formatCount(totals[i] ?? 0)} ${unit}.`;

  const unitTitle = `${unit.charAt(0).toUpperCase()}${unit.slice(1)}`;
  const first = times[0];
  const last = times.at(-1);
  const description =
    first !== undefined && last !== undefined
      ? `${unitTitle} from ${formatUtc(new Date(first))} to ${formatUtc(new Date(last))}: ${series
          .map((s) => `${s.label} ${formatCount(s.values[0] ?? 0)} to ${formatCount(s.values.at(-1) ?? 0)}`)
          .join("; ")}.`
      : "No snapshots in this window.";

  const nearest = (clientX: number): number | null => {
    const box = plot.current?.getBoundingClientRect();
    if (!box || box.width === 0 || times.length === 0) return null;
    const t = from + ((clientX - box.left) / box.width) * span;
    let best = 0;
    for (let i = 1; i < times.length; i++) if (Math.abs(times[i]! - t) < Math.abs(times[best]! - t)) best = i;
    return best;
  };
  const moveTo = (i: number, spoken: boolean) => {
    const clamped = Math.min(times.length - 1, Math.max(0, i));
    setActive(clamped);
    if (spoken) setAnnounce(pointText(clamped));
  };

  const toggle = (key: string) =>
    setHidden((before) => {
      const next = new Set(before);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const yTicks = Array.from({ length: Math.round(top / step) + 1 }, (_, k) => step * k);
  const xTicks = Array.from({ length: X_TICKS }, (_, k) => from + (span / (X_TICKS - 1)) * k);
  const demoEnd = demoUntil !== null && first !== undefined && first <= demoUntil ? Math.min(demoUntil, to) : null;

  return (
    <figure className="min-w-0 space-y-2" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`} className="text-sm font-medium text-slate-800">
        {title}
      </figcaption>
      <ul className="flex flex-wrap gap-x-1 gap-y-1 text-xs" aria-label={`${title}: series shown`}>
        {series.map((s) => {
          const on = !hidden.has(s.key);
          return (
            <li key={s.key}>
              <button
                type="button"
                aria-pressed={on}
                onClick={() => toggle(s.key)}
                title={on ? `Hide ${s.label}` : `Show ${s.label}`}
                className={`inline-flex items-center gap-1.5 rounded px-1.5 py-0.5 hover:bg-slate-100 ${on ? "text-slate-700" : "text-slate-500 line-through"}`}
              >
                <span
                  aria-hidden="true"
                  className={`inline-block size-2.5 rounded-sm ${on ? s.swatch : "bg-slate-200"}`}
                />
                {s.label}
              </button>
            </li>
          );
        })}
      </ul>
      {times.length < 2 ? (
        <p className="rounded border border-dashed border-slate-300 px-3 py-6 text-center text-sm text-slate-500">
          {times.length === 0
            ? "No snapshots in this window yet: Linkdesk takes one at start and after each sync."
            : "One snapshot so far: the chart needs two."}
        </p>
      ) : !hydrated ? (
        // The plot is drawn in the browser, once React runs: a chart is read by pointing at it, which needs React
        // anyway, and drawing three of them into the server's HTML cost about as much as the rest of the page.
        <div
          aria-hidden="true"
          className="h-[13.75rem] animate-pulse rounded bg-slate-50"
          data-testid="chart-pending"
        />
      ) : (
        <div className="flex gap-1">
          <span
            className="w-4 shrink-0 self-center text-center text-xs text-slate-500 [writing-mode:vertical-rl] rotate-180"
            aria-hidden="true"
          >
            {unitTitle}
          </span>
          <div className="min-w-0 flex-1">
            <div className="relative ml-11 h-44">
              <div aria-hidden="true" className="absolute inset-y-0 -left-11 w-10">
                {yTicks.map((v) => (
                  <span
                    key={v}
                    className="absolute right-0 -translate-y-1/2 text-xs tabular-nums text-slate-500"
                    style={{ top: `${yPct(v)}%` }}
                  >
                    {formatCount(v)}
                  </span>
                ))}
              </div>
              <svg
                role="img"
                aria-labelledby={`${id}-title ${id}-desc`}
                viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
                preserveAspectRatio="none"
                className="absolute inset-0 size-full overflow-visible"
              >
                <title id={`${id}-title`}>{title}</title>
                <desc id={`${id}-desc`}>{description}</desc>
                {demoEnd !== null ? (
                  <rect x={0} y={0} width={(xPct(demoEnd) / 100) * WIDTH} height={HEIGHT} className="fill-slate-100" />
                ) : null}
                {yTicks.map((v) => (
                  <line
                    key={v}
                    x1={0}
                    x2={WIDTH}
                    y1={(yPct(v) / 100) * HEIGHT}
                    y2={(yPct(v) / 100) * HEIGHT}
                    className="stroke-slate-200"
                    strokeWidth={1}
                    vectorEffect="non-scaling-stroke"
                  />
                ))}
                {areas.map((a) => (
                  <path key={a.key} d={a.d} className={`${a.fill} opacity-85`} />
                ))}
              </svg>
              {demoEnd !== null ? (
                <span
                  aria-hidden="true"
                  className="absolute left-1 top-1 rounded bg-white/80 px-1 text-[11px] text-slate-600"
                >
                  Demo history
                </span>
              ) : null}
              {/* The pointer and keyboard surface: the nearest point shows its values. */}
              <div
                ref={plot}
                tabIndex={0}
                role="group"
                aria-label={`${title}: ${times.length} snapshots. Left and right arrow keys read each one; Home and End go to the first and last.`}
                aria-describedby={`${id}-desc`}
                className="absolute inset-0 rounded-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
                onPointerMove={(e) => {
                  const i = nearest(e.clientX);
                  if (i !== null) setActive(i);
                }}
                onPointerLeave={() => setActive(null)}
                onFocus={() => moveTo(active ?? times.length - 1, true)}
                onBlur={() => setActive(null)}
                onKeyDown={(e) => {
                  const step = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
                  if (step !== undefined) moveTo((active ?? times.length - 1) + step, true);
                  else if (e.key === "Home") moveTo(0, true);
                  else if (e.key === "End") moveTo(times.length - 1, true);
                  else if (e.key === "Escape") setActive(null);
                  else return;
                  e.preventDefault();
                }}
              />
              {active !== null && times[active] !== undefined ? (
                <>
                  <span
                    aria-hidden="true"
                    className="pointer-events-none absolute inset-y-0 w-px bg-slate-500"
                    style={{ left: `${xPct(times[active])}%` }}
                  />
                  <div
                    aria-hidden="true"
                    data-testid="chart-tooltip"
                    className="pointer-events-none absolute top-1 z-10 w-52 rounded-md bg-slate-900 px-2.5 py-2 text-xs text-white shadow-lg"
                    style={
                      xPct(times[active]) > 55
                        ? { right: `${100 - xPct(times[active])}%`, marginRight: 8 }
                        : { left: `${xPct(times[active])}%`, marginLeft: 8 }
                    }
                  >
                    <p className="font-medium">{formatUtc(new Date(times[active]))}</p>
                    {demoUntil !== null && times[active] <= demoUntil ? (
                      <p className="text-slate-300">Demo history</p>
                    ) : null}
                    <ul className="mt-1 space-y-0.5">
                      {[...shown].reverse().map((s) => (
                        <li key={s.key} className="flex items-center gap-1.5">
                          <span className={`inline-block size-2 rounded-sm ${s.swatch}`} />
                          <span className="min-w-0 flex-1 truncate">{s.label}</span>
                          <span className="tabular-nums">{formatCount(s.values[active] ?? 0)}</span>
                        </li>
                      ))}
                    </ul>
                    <p className="mt-1 flex justify-between border-t border-slate-700 pt-1">
                      <span>Total</span>
                      <span className="tabular-nums">
                        {formatCount(totals[active] ?? 0)} {unit}
                      </span>
                    </p>
                  </div>
                </>
              ) : null}
            </div>
            <div aria-hidden="true" className="relative ml-11 mt-1 h-4 text-xs text-slate-500">
              {xTicks.map((t, k) => (
                <span
                  key={t}
                  className="absolute whitespace-nowrap tabular-nums"
                  style={
                    k === 0
                      ? { left: 0 }
                      : k === X_TICKS - 1
                        ? { right: 0 }
                        : { left: `${xPct(t)}%`, transform: "translateX(-50%)" }
                  }
                >
                  {dateLabel(t, span)}
                </span>
              ))}
            </div>
            <p aria-hidden="true" className="ml-11 mt-0.5 text-center text-xs text-slate-500">
              Date (UTC)
            </p>
          </div>
        </div>
      )}
      <p role="status" className="sr-only">
        {announce}
      </p>
      {times.length > 0 ? (
        <details className="text-sm" onToggle={(event) => setNumbersOpen(event.currentTarget.open)}>
          <summary className="cursor-pointer text-xs text-slate-500 hover:text-slate-800">Show the numbers</summary>
          {numbersOpen ? <ChartNumbers title={title} times={times} series={series} demoUntil={demoUntil} /> : null}
        </details>
      ) : null}
    </figure>
  );
}

/** The chart's numbers as a table: a row a snapshot, a column a series, and the total. */
export function ChartNumbers({
  title,
  times,
  series,
  demoUntil,
}: {
  title: string;
  times: number[];
  series: ChartSeries[];
  demoUntil: number | null;
}) {
  return (
    <div className="mt-2">
      <ScrollTable className="max-h-72 overflow-y-auto rounded border border-slate-200">
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
              <tr key={t}>
                <th scope="row" className="whitespace-nowrap px-2 py-1 text-left font-normal">
                  <time dateTime={new Date(t).toISOString()}>{formatUtc(new Date(t))}</time>
                  {demoUntil !== null && t <= demoUntil ? <span className="ml-1 text-slate-500">(demo)</span> : null}
                </th>
                {series.map((s) => (
                  <td key={s.key} className="px-2 py-1 text-right">
                    {formatCount(s.values[i] ?? 0)}
                  </td>
                ))}
                <td className="px-2 py-1 text-right font-medium">
                  {formatCount(series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </div>
  );
}
