import { describe, expect, it } from "vitest";
import type { TrendPoint } from "./health-trend";
import { errorCodeBands, whoActsOverTime } from "./trend-series";

const NOW = new Date("2026-11-20T12:00:00.000Z");
const DAY_MS = 86_400_000;

/** Trend points with the given error code counts, a day apart. */
const pointsOf = (counts: TrendPoint["byErrorCode"][]): TrendPoint[] =>
  counts.map((byErrorCode, i) => ({
    at: new Date(NOW.getTime() + i * DAY_MS),
    total: 1_000,
    byState: {},
    byErrorCode,
    source: "sync",
  }));
const peak = (values: number[]) => Math.max(...values);

describe("errorCodeBands", () => {
  it("draws the top codes, sums the rest per party that must act, and draws alone any code a remainder would hide", () => {
    const points = pointsOf([
      { auth_expired: 100, system_error: 50, user_error: 30, no_accounts: 30, institution_error: 5, provider_error: 5 },
      { auth_expired: 90, system_error: 40, user_error: 20, no_accounts: 25, institution_error: 2 },
    ]);
    const bands = errorCodeBands(points, 2);
    // With two codes drawn the user's remainder (user_error + no_accounts, 60) would outgrow system_error (50): its
    // largest code (no_accounts: the same peak, more links in all) is drawn alone, which leaves user_error alone too.
    expect(bands).toEqual([
      { kind: "rest", whoActs: "wait", codes: ["institution_error", "provider_error"], values: [10, 2] },
      { kind: "code", errorCode: "auth_expired", whoActs: "user", values: [100, 90] },
      { kind: "code", errorCode: "system_error", whoActs: "service", values: [50, 40] },
      { kind: "code", errorCode: "no_accounts", whoActs: "user", values: [30, 25] },
      { kind: "code", errorCode: "user_error", whoActs: "user", values: [30, 20] },
    ]);
  });

  it("never lets a remainder peak above a code drawn alone, and counts every link once", () => {
    const points = pointsOf([
      {
        auth_expired: 3,
        invalid_credentials: 3,
        user_error: 3,
        incomplete: 3,
        no_accounts: 3,
        user_oauth_denied: 3,
        user_setup_required: 3,
        user_input_incorrect: 3,
        system_error: 1,
      },
      {
        auth_expired: 2,
        invalid_credentials: 2,
        user_error: 2,
        incomplete: 2,
        no_accounts: 2,
        user_oauth_denied: 2,
        user_setup_required: 2,
        user_input_incorrect: 2,
        provider_error: 9,
      },
    ]);
    const bands = errorCodeBands(points);
    const floor = Math.min(...bands.filter((b) => b.kind === "code").map((b) => peak(b.values)));
    for (const band of bands.filter((b) => b.kind === "rest")) expect(peak(band.values)).toBeLessThanOrEqual(floor);
    expect(points.map((_, i) => bands.reduce((sum, b) => sum + b.values[i]!, 0))).toEqual([25, 25]);
  });

  it("has no bands for a trend without error codes", () => {
    expect(errorCodeBands(pointsOf([{}, {}]))).toEqual([]);
    expect(errorCodeBands([])).toEqual([]);
  });
});

describe("whoActsOverTime", () => {
  it("sums each point's error codes by who must act, zeros included", () => {
    const points = pointsOf([{ auth_expired: 4, incomplete: 1, provider_error: 2 }, { system_error: 3 }, {}]);
    expect(whoActsOverTime(points)).toEqual({ user: [5, 0, 0], wait: [2, 0, 0], service: [0, 3, 0] });
  });
});
