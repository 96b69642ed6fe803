import { describe, expect, it } from "vitest";
import { DELETED_RETENTION_DAYS } from "@/lib/links/error-codes";
import { removalBy } from "./deleted-notice";

describe("removalBy", () => {
  it("is the retention period after Linkdesk first saw the link deleted", () => {
    expect(DELETED_RETENTION_DAYS).toBe(90);
    expect(removalBy(new Date("2026-01-01T10:00:00Z"))).toEqual(new Date("2026-04-01T10:00:00Z"));
  });

  it("is unknown when the link was never seen deleted", () => {
    expect(removalBy(null)).toBeNull();
    expect(removalBy(undefined)).toBeNull();
  });
});
