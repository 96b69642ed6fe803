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
