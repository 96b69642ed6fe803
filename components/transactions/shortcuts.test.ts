import { describe, expect, it } from "vitest";
import { type RecentChange, RECENT_CHANGES_KEPT, readRecentChanges, writeRecentChanges } from "./shortcuts";

/** sessionStorage's behaviour, in memory. */
function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, String(value)),
    removeItem: (key: string) => void items.delete(key),
  };
}

const single: RecentChange = {
  kind: "single",
  correlationId: "00000000-0000-4000-8000-000000000001",
  transactionId: "txn_1",
  date: "2025-03-01",
  before: { category: "shopping" },
  label: "Coffee shop to Food and drink › Coffee",
};
const job: RecentChange = { kind: "job", jobId: "job_1", label: "3 similar to Coffee shop to Food and drink › Coffee" };

describe("recent changes for z", () => {
  it("come back after a reload, for the same link only", () => {
    const storage = memoryStorage();
    writeRecentChanges(storage, "lnk_a", [single, job]);
    expect(readRecentChanges(storage, "lnk_a")).toEqual([single, job]);
    expect(readRecentChanges(storage, "lnk_b")).toEqual([]);
  });

  it("keep only pointers and words, and forget the link when nothing is left", () => {
    const storage = memoryStorage();
    writeRecentChanges(storage, "lnk_a", [single]);
    expect(JSON.parse([...storage.items.values()][0]!)).toEqual([single]);
    writeRecentChanges(storage, "lnk_a", []);
    expect(storage.items.size).toBe(0);
  });

  it("keep the newest ones only", () => {
    const storage = memoryStorage();
    const many = Array.from({ length: RECENT_CHANGES_KEPT + 5 }, (_, i): RecentChange => ({
      kind: "job",
      jobId: `job_${i}`,
      label: `job ${i}`,
    }));
    writeRecentChanges(storage, "lnk_a", many);
    const kept = readRecentChanges(storage, "lnk_a");
    expect(kept).toHaveLength(RECENT_CHANGES_KEPT);
    expect(kept.at(-1)).toEqual(many.at(-1));
  });

  it("drop what is unreadable or of another shape, never throwing", () => {
    const storage = memoryStorage();
    storage.setItem("linkdesk:recent-changes:lnk_a", "{not json");
    expect(readRecentChanges(storage, "lnk_a")).toEqual([]);
    storage.setItem(
      "linkdesk:recent-changes:lnk_a",
      JSON.stringify([
        null,
        { kind: "job" },
        {
          kind: "single",
          correlationId: "c",
          transactionId: "t",
          date: "d",
          label: "l",
          before: { category: "not_a_category" },
        },
        { kind: "evil", jobId: "x", label: "y" },
        job,
      ]),
    );
    expect(readRecentChanges(storage, "lnk_a")).toEqual([job]);
    expect(readRecentChanges(undefined, "lnk_a")).toEqual([]);
    const blocked = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => {
        throw new Error("SecurityError");
      },
    };
    expect(readRecentChanges(blocked, "lnk_a")).toEqual([]);
    expect(() => writeRecentChanges(blocked, "lnk_a", [job])).not.toThrow();
  });
});
