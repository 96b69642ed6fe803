import { describe, expect, it } from "vitest";
import { FREE_FAILURES, LOCK_FAILURES, THROTTLE_WINDOW_MS, decideThrottle, strictest } from "./throttle";

const now = Date.parse("2026-11-20T10:00:00Z");
const failuresAgo = (count: number, spacingMs = 10_000) =>
  Array.from({ length: count }, (_, i) => now - (i + 1) * spacingMs);

describe("sign-in throttle", () => {
  it("lets the first failures through at full speed", () => {
    expect(decideThrottle(failuresAgo(FREE_FAILURES - 1), now)).toEqual({ kind: "allow", delayMs: 0 });
  });

  it("slows repeated failures down, doubling up to a cap", () => {
    expect(decideThrottle(failuresAgo(FREE_FAILURES), now)).toEqual({ kind: "allow", delayMs: 1000 });
    expect(decideThrottle(failuresAgo(FREE_FAILURES + 1), now)).toEqual({ kind: "allow", delayMs: 2000 });
    expect(decideThrottle(failuresAgo(LOCK_FAILURES - 1), now)).toEqual({ kind: "allow", delayMs: 8000 });
  });

  it("refuses for a while after too many failures", () => {
    const decision = decideThrottle(failuresAgo(LOCK_FAILURES), now);
    expect(decision).toEqual({ kind: "locked", until: new Date(now - 10_000 + THROTTLE_WINDOW_MS) });
  });

  it("forgets failures older than the window", () => {
    expect(decideThrottle(failuresAgo(LOCK_FAILURES, THROTTLE_WINDOW_MS), now)).toEqual({ kind: "allow", delayMs: 0 });
  });

  it("applies the stricter of the email's and the address's decisions", () => {
    const until = new Date(now + 60_000);
    expect(
      strictest([
        { kind: "allow", delayMs: 2000 },
        { kind: "locked", until },
      ]),
    ).toEqual({ kind: "locked", until });
    expect(
      strictest([
        { kind: "allow", delayMs: 2000 },
        { kind: "allow", delayMs: 0 },
      ]),
    ).toEqual({ kind: "allow", delayMs: 2000 });
  });
});
