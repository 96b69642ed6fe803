import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "./headers";
import type { KeyHeadroom } from "./headroom";

const key = (scope: "link" | "app", limit: number) => ({
  endpoint: "GET /links/{id}",
  scope,
  scopeId: scope === "link" ? "mk_1" : "app_1",
  limit,
  upstreamLimit: limit * 2,
  windowMs: 61_000,
});

describe("RateLimit headers", () => {
  it("names each policy touched with its quota, window, remaining and reset", () => {
    const now = Date.parse("2026-11-20T10:00:00Z");
    const headrooms: KeyHeadroom[] = [
      { key: key("link", 15), used: 15, remaining: 0, nextSlotAt: new Date(now + 12_500), closedUntil: null },
      { key: key("app", 500), used: 10, remaining: 490, nextSlotAt: null, closedUntil: null },
    ];
    expect(rateLimitHeaders(headrooms, now)).toEqual({
      "RateLimit-Policy": '"link";q=15;w=61, "app";q=500;w=61',
      RateLimit: '"link";r=0;t=13, "app";r=490;t=0',
    });
  });

  it("adds nothing when no budget key was touched", () => {
    expect(rateLimitHeaders([])).toEqual({});
  });
});

describe("bulk cost estimate", () => {
  const h = (remaining: number, limit: number): KeyHeadroom => ({
    key: {
      endpoint: "POST /links/{id}/transactions/{txn_id}/enrichment",
      scope: "link",
      scopeId: "mk_1",
      limit,
      upstreamLimit: limit * 2,
      windowMs: 61_000,
    },
    used: limit - remaining,
    remaining,
    nextSlotAt: null,
    closedUntil: null,
  });

  it("sends what fits now and then a window per limit's worth", async () => {
    const { estimateCost, describeDuration } = await import("./headroom");
    expect(estimateCost(20, [h(30, 30)])).toMatchObject({ calls: 20, seconds: 0 });
    // 312 calls, 30 left now, 30 a window: 282 later → 10 windows.
    const e = estimateCost(312, [h(30, 30)])!;
    expect(e.seconds).toBe(610);
    expect(describeDuration(e.seconds)).toBe("about 10 min");
    expect(describeDuration(0)).toBe("a few seconds");
  });
});
