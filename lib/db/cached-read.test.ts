import { afterEach, describe, expect, it, vi } from "vitest";
import type { Db } from "./client";
import { cachedRead } from "./cached-read";

const database = () => ({}) as Db;

describe("cachedRead", () => {
  afterEach(() => vi.useRealTimers());

  it("answers the views within its time from one read of each database, then reads again", async () => {
    vi.useFakeTimers();
    const load = vi.fn(async (db: Db) => (db === a ? "a" : "b"));
    const read = cachedRead(load, 5_000);
    const a = database();
    const b = database();
    expect(await read(a)).toBe("a");
    expect(await read(a)).toBe("a");
    expect(await read(b)).toBe("b");
    expect(load).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5_001);
    expect(await read(a)).toBe("a");
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("keeps no failed read: the next view tries again", async () => {
    let calls = 0;
    const read = cachedRead(async () => {
      calls++;
      if (calls === 1) throw new Error("the database is away");
      return calls;
    }, 60_000);
    const db = database();
    await expect(read(db)).rejects.toThrow("the database is away");
    expect(await read(db)).toBe(2);
    expect(await read(db)).toBe(2);
  });
});
