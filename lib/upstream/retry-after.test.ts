import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./retry-after";

const now = Date.parse("2026-11-20T10:00:00Z");

describe("parseRetryAfter", () => {
  it("reads delta-seconds relative to now", () => {
    expect(parseRetryAfter("30", now)?.toISOString()).toBe("2026-11-20T10:00:30.000Z");
    expect(parseRetryAfter(" 0 ", now)?.toISOString()).toBe("2026-11-20T10:00:00.000Z");
  });

  it("reads an HTTP-date", () => {
    expect(parseRetryAfter("Fri, 20 Nov 2026 10:01:05 GMT", now)?.toISOString()).toBe("2026-11-20T10:01:05.000Z");
  });

  it("ignores missing and unreadable values", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("1.5", now)).toBeUndefined();
    expect(parseRetryAfter("-3", now)).toBeUndefined();
    expect(parseRetryAfter("Fri, 99 Nov 2026 99:00:00 GMT", now)).toBeUndefined();
  });
});
