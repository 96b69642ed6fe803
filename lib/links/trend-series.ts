import "server-only";
import type { TrendPoint } from "./health-trend";
import { WHO_ACTS_ORDER } from "./health-summary";
import { LINK_ERROR_CODES, type LinkErrorCode } from "../upstream/schemas";
import { LINK_ERROR_INFO, type WhoActs } from "./error-codes";

// The Health trend's error codes over time, grouped for the charts (components/health/trend-charts.tsx).

/** Each party's links per point of a trend: the sum of the counts of the error codes it must act on. */
export function whoActsOverTime(points: readonly TrendPoint[]): Record<WhoActs, number[]> {
  const out = Object.fromEntries(WHO_ACTS_ORDER.map((group) => [group, points.map(() => 0)])) as Record<
    WhoActs,
    number[]
  >;
  points.forEach((p, i) => {
    for (const code of LINK_ERROR_CODES) out[LINK_ERROR_INFO[code].whoActs][i]! += p.byErrorCode[code] ?? 0;
  });
  return out;
}

/** One band of the error codes chart: a code of its own, or the codes not drawn one by one of one party. */
export type ErrorCodeBand =
  | { kind: "code"; errorCode: LinkErrorCode; whoActs: WhoActs; values: number[] }
  | { kind: "rest"; whoActs: WhoActs; codes: LinkErrorCode[]; values: number[] };

/** How many error codes the chart draws one by one at least; more when a party's remainder would outgrow them. */
export const ERROR_CODES_DRAWN = 5;

/**
 * The error codes over a trend, as chart bands. The codes that reached the most links at some point get a band each
 * (an outage's spike ranks its code high even when it is rare the rest of the time), largest first. The rest are
 * summed per party that must act on them, never into one "other" band, and no such remainder may peak above the
 * smallest code drawn: while one would, its largest code is drawn on its own. A remainder of one code is that code.
 * Remainders come first (the bottom of a stack), in WHO_ACTS_ORDER, then the codes drawn, largest first.
 */
export function errorCodeBands(points: readonly TrendPoint[], codesDrawn: number = ERROR_CODES_DRAWN): ErrorCodeBand[] {
  const valuesOf = (code: LinkErrorCode) => points.map((p) => p.byErrorCode[code] ?? 0);
  const sumOf = (values: number[]) => values.reduce((sum, n) => sum + n, 0);
  const peakOf = (values: number[]) => Math.max(0, ...values);
  const values = new Map(LINK_ERROR_CODES.map((code) => [code, valuesOf(code)]));
  const ranked = LINK_ERROR_CODES.filter((code) => sumOf(values.get(code)!) > 0).sort(
    (a, b) => peakOf(values.get(b)!) - peakOf(values.get(a)!) || sumOf(values.get(b)!) - sumOf(values.get(a)!),
  );
  const rank = (code: LinkErrorCode) => ranked.indexOf(code);

  const drawn = ranked.slice(0, Math.max(1, codesDrawn));
  let rest = ranked.slice(drawn.length);
  const restOf = (group: WhoActs) => rest.filter((code) => LINK_ERROR_INFO[code].whoActs === group);
  const restValues = (codes: LinkErrorCode[]) =>
    points.map((_, i) => codes.reduce((sum, code) => sum + values.get(code)![i]!, 0));
  for (;;) {
    const floor = Math.min(...drawn.map((code) => peakOf(values.get(code)!)));
    const over = WHO_ACTS_ORDER.map(restOf).find((codes) => codes.length > 0 && peakOf(restValues(codes)) > floor);
    if (!over) break;
    drawn.push(over[0]!);
    rest = rest.filter((code) => code !== over[0]);
  }

  const remainders = WHO_ACTS_ORDER.map((group) => ({ group, codes: restOf(group) })).filter((r) => r.codes.length > 0);
  for (const r of remainders) if (r.codes.length === 1) drawn.push(r.codes[0]!);
  const bands: ErrorCodeBand[] = remainders
    .filter((r) => r.codes.length > 1)
    .map((r) => ({ kind: "rest", whoActs: r.group, codes: r.codes, values: restValues(r.codes) }));
  for (const code of drawn.sort((a, b) => rank(a) - rank(b))) {
    bands.push({ kind: "code", errorCode: code, whoActs: LINK_ERROR_INFO[code].whoActs, values: values.get(code)! });
  }
  return bands;
}
