import { LINK_ERROR_INFO, LINK_STATE_LABELS } from "@/lib/links/error-codes";
import type { HealthTrend } from "@/lib/links/health";
import { LINK_ERROR_CODES, type LinkErrorCode } from "@/lib/upstream/schemas";
import { SERIES_BARS, SERIES_FILLS, STATE_COLORS, STATE_STACK_ORDER } from "./colors";
import { type ChartSeries, StackedAreaChart } from "./stacked-area-chart";

/** Error codes drawn one by one over time; the rest are summed as "Other codes" so the chart stays readable. */
const CODES_DRAWN = SERIES_FILLS.length - 1;

export function statesOverTime(trend: HealthTrend): ChartSeries[] {
  return STATE_STACK_ORDER.map((state) => ({
    key: state,
    label: LINK_STATE_LABELS[state],
    fill: STATE_COLORS[state].fill,
    swatch: STATE_COLORS[state].bar,
    values: trend.points.map((p) => p.byState[state] ?? 0),
  }));
}

/** The codes with the most links over the window get a series each, largest at the bottom; then the rest together. */
export function errorCodesOverTime(trend: HealthTrend): ChartSeries[] {
  const totals = new Map<LinkErrorCode, number>();
  for (const p of trend.points) for (const code of LINK_ERROR_CODES) totals.set(code, (totals.get(code) ?? 0) + (p.byErrorCode[code] ?? 0));
  const ranked = LINK_ERROR_CODES.filter((code) => (totals.get(code) ?? 0) > 0).sort((a, b) => totals.get(b)! - totals.get(a)!);
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
    series.push({
      key: "other",
      label: "Other codes",
      fill: SERIES_FILLS[CODES_DRAWN]!,
      swatch: SERIES_BARS[CODES_DRAWN]!,
      values: trend.points.map((p) => rest.reduce((sum, code) => sum + (p.byErrorCode[code] ?? 0), 0)),
    });
  }
  return series;
}

/** Links by state and links by error code over the window, from the snapshots taken after each sync. */
export function TrendCharts({ trend }: { trend: HealthTrend }) {
  const times = trend.points.map((p) => p.at);
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <StackedAreaChart title="Links by state" times={times} series={statesOverTime(trend)} from={trend.from} to={trend.to} />
      <StackedAreaChart title="Links by error code" times={times} series={errorCodesOverTime(trend)} from={trend.from} to={trend.to} />
    </div>
  );
}
