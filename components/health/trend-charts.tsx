import { LINK_ERROR_INFO, LINK_STATE_LABELS } from "@/lib/links/error-codes";
import { demoHistoryUntil, type HealthTrend } from "@/lib/links/health";
import { LINK_ERROR_CODES, type LinkErrorCode } from "@/lib/upstream/schemas";
import { NOT_READ_COLORS, SERIES_BARS, SERIES_FILLS, STATE_COLORS, STATE_STACK_ORDER } from "./colors";
import { type ChartSeries, StackedAreaChart } from "./stacked-area-chart";

/** Error codes drawn one by one over time; the rest are summed as "Other codes" so the chart stays readable. */
const CODES_DRAWN = SERIES_FILLS.length - 1;

/**
 * One series per state, plus the links listed but not read yet (no state), so each point stacks up to every link the
 * read model held: a snapshot taken while the first sync reads does not look like links vanishing.
 */
export function statesOverTime(trend: HealthTrend): ChartSeries[] {
  const states: ChartSeries[] = STATE_STACK_ORDER.map((state) => ({
    key: state,
    label: LINK_STATE_LABELS[state],
    fill: STATE_COLORS[state].fill,
    swatch: STATE_COLORS[state].bar,
    values: trend.points.map((p) => p.byState[state] ?? 0),
  }));
  const unread = trend.points.map((p, i) => Math.max(0, p.total - states.reduce((sum, s) => sum + s.values[i]!, 0)));
  if (unread.some((n) => n > 0)) states.push({ key: "unread", label: "Not read yet", fill: NOT_READ_COLORS.fill, swatch: NOT_READ_COLORS.bar, values: unread });
  return states;
}

/**
 * The codes that reached the most links at some point in the window get a series each (an outage's spike ranks its
 * code high even when it is rare the rest of the time), largest first; the rest are summed as "Other codes" and drawn
 * at the bottom, a steady base under the codes worth watching.
 */
export function errorCodesOverTime(trend: HealthTrend): ChartSeries[] {
  const peaks = new Map<LinkErrorCode, number>();
  const totals = new Map<LinkErrorCode, number>();
  for (const p of trend.points) {
    for (const code of LINK_ERROR_CODES) {
      const n = p.byErrorCode[code] ?? 0;
      peaks.set(code, Math.max(peaks.get(code) ?? 0, n));
      totals.set(code, (totals.get(code) ?? 0) + n);
    }
  }
  const ranked = LINK_ERROR_CODES.filter((code) => (totals.get(code) ?? 0) > 0).sort(
    (a, b) => peaks.get(b)! - peaks.get(a)! || totals.get(b)! - totals.get(a)!,
  );
  const drawn = ranked.slice(0, CODES_DRAWN);
  const rest = ranked.slice(CODES_DRAWN);
  const series: ChartSeries[] = drawn.map((code, i) => ({
    key: code,
    label: LINK_ERROR_INFO[code].label,
    fill: SERIES_FILLS[i]!,
    swatch: SERIES_BARS[i]!,
    values: trend.points.map((p) => p.byErrorCode[code] ?? 0),
  }));
  if (rest.length > 0) {
    series.unshift({
      key: "other",
      label: "Other codes",
      fill: SERIES_FILLS[CODES_DRAWN]!,
      swatch: SERIES_BARS[CODES_DRAWN]!,
      values: trend.points.map((p) => rest.reduce((sum, code) => sum + (p.byErrorCode[code] ?? 0), 0)),
    });
  }
  return series;
}

/** Links by state and links by error code over the window, from the snapshots taken at start and after each sync. */
export function TrendCharts({ trend }: { trend: HealthTrend }) {
  const times = trend.points.map((p) => p.at.getTime());
  const window = { from: trend.from.getTime(), to: trend.to.getTime(), demoUntil: demoHistoryUntil(trend)?.getTime() ?? null };
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <StackedAreaChart title="Links by state" unit="links" times={times} series={statesOverTime(trend)} {...window} />
      <StackedAreaChart title="Links by error code" unit="links" times={times} series={errorCodesOverTime(trend)} {...window} />
    </div>
  );
}
