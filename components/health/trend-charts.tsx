import { LINK_ERROR_INFO, LINK_STATE_LABELS, WHO_ACTS_LABELS } from "@/lib/links/error-codes";
import { WHO_ACTS_ORDER } from "@/lib/links/health-summary";
import { demoHistoryUntil, type HealthTrend } from "@/lib/links/health-trend";
import { errorCodeBands, whoActsOverTime } from "@/lib/links/trend-series";
import { NOT_READ_COLORS, SERIES_BARS, SERIES_FILLS, STATE_COLORS, STATE_STACK_ORDER, WHO_ACTS_COLORS } from "./colors";
import { type ChartSeries, StackedAreaChart } from "./stacked-area-chart";

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
  if (unread.some((n) => n > 0))
    states.push({
      key: "unread",
      label: "Not read yet",
      fill: NOT_READ_COLORS.fill,
      swatch: NOT_READ_COLORS.bar,
      values: unread,
    });
  return states;
}

/**
 * The error codes as lib/links/trend-series.ts bands them: the codes worth watching one by one, each in a hue of its rank, and
 * the rest summed per party that must act, in a light tint of that party's colour, at the bottom of the stack.
 */
export function errorCodesOverTime(trend: HealthTrend): ChartSeries[] {
  let rank = 0;
  return errorCodeBands(trend.points).map((band): ChartSeries => {
    if (band.kind === "rest") {
      return {
        key: `other-${band.whoActs}`,
        label: `${WHO_ACTS_LABELS[band.whoActs]}: ${band.codes.length} more codes`,
        fill: WHO_ACTS_COLORS[band.whoActs].restFill,
        swatch: WHO_ACTS_COLORS[band.whoActs].restBar,
        values: band.values,
      };
    }
    const i = rank++ % SERIES_FILLS.length;
    return {
      key: band.errorCode,
      label: LINK_ERROR_INFO[band.errorCode].label,
      fill: SERIES_FILLS[i]!,
      swatch: SERIES_BARS[i]!,
      values: band.values,
    };
  });
}

/** The links with an error code by the party that must act on them: the person, the institution or provider, the service. */
export function whoActsSeries(trend: HealthTrend): ChartSeries[] {
  const byGroup = whoActsOverTime(trend.points);
  return WHO_ACTS_ORDER.map((group) => ({
    key: group,
    label: WHO_ACTS_LABELS[group],
    fill: WHO_ACTS_COLORS[group].fill,
    swatch: WHO_ACTS_COLORS[group].bar,
    values: byGroup[group],
  }));
}

/**
 * Links by state, links in error by who must act, and links by error code over the window, from the snapshots taken
 * at start and after each sync. The error codes chart spans the row: it has the most series in its legend.
 */
export function TrendCharts({ trend }: { trend: HealthTrend }) {
  const times = trend.points.map((p) => p.at.getTime());
  const window = {
    from: trend.from.getTime(),
    to: trend.to.getTime(),
    demoUntil: demoHistoryUntil(trend)?.getTime() ?? null,
  };
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <StackedAreaChart title="Links by state" unit="links" times={times} series={statesOverTime(trend)} {...window} />
      <StackedAreaChart
        title="Links in error by who must act"
        unit="links"
        times={times}
        series={whoActsSeries(trend)}
        {...window}
      />
      <div className="min-w-0 lg:col-span-2">
        <StackedAreaChart
          title="Links by error code"
          unit="links"
          times={times}
          series={errorCodesOverTime(trend)}
          {...window}
        />
      </div>
    </div>
  );
}
