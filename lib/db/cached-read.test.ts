import { afterEach, describe, expect, it, vi } from "vitest";
import type { Db } from "./client";
import { cachedRead, cachedReadBy } from "./cached-read";

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

  it("peeks at a kept answer only once it has arrived and while it is within its time", async () => {
    vi.useFakeTimers();
    let answer!: (value: string) => void;
    const read = cachedRead(() => new Promise<string>((resolve) => (answer = resolve)), 5_000);
    const db = database();
    expect(read.peek(db)).toBeUndefined();
    const pending = read(db);
    expect(read.peek(db)).toBeUndefined();
    answer("counts");
    await pending;
    expect(read.peek(db)).toBe("counts");
    vi.advanceTimersByTime(5_001);
    expect(read.peek(db)).toBeUndefined();
  });
  it("in the last quarter of its time, answers a view at once from the kept read and reads the next one behind it", async () => {
    vi.useFakeTimers();
    let version = 0;
    const load = vi.fn(async () => ++version);
    const read = cachedRead(load, 4_000);
    const db = database();
    expect(await read(db)).toBe(1);
    vi.advanceTimersByTime(2_000);
    expect(await read(db)).toBe(1);
    expect(load).toHaveBeenCalledTimes(1);
    // 3 s in: the kept answer still serves this view, and the next read starts.
    vi.advanceTimersByTime(1_000);
    expect(await read(db)).toBe(1);
    expect(load).toHaveBeenCalledTimes(2);
    expect(await read(db)).toBe(2);
    expect(read.peek(db)).toBe(2);
    // The new read is timed from when it started: 3 s later, the read after it starts.
    vi.advanceTimersByTime(2_999);
    expect(await read(db)).toBe(2);
    expect(load).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1);
    expect(await read(db)).toBe(2);
    expect(load).toHaveBeenCalledTimes(3);
    // No view waits while views keep coming; after a lull longer than the time, a view waits for a fresh read.
    vi.advanceTimersByTime(10_000);
    expect(await read(db)).toBe(4);
  });

  it("leaves the kept answer to serve out its time when the read behind it fails", async () => {
    vi.useFakeTimers();
    let calls = 0;
    const read = cachedRead(async () => {
      calls++;
      if (calls === 2) throw new Error("the database is away");
      return calls;
    }, 4_000);
    const db = database();
    expect(await read(db)).toBe(1);
    vi.advanceTimersByTime(3_000);
    expect(await read(db)).toBe(1);
    await vi.waitFor(() => expect(calls).toBe(2));
    expect(await read(db)).toBe(1);
    expect(calls).toBe(2);
    vi.advanceTimersByTime(1_000);
    expect(await read(db)).toBe(3);
  });
});

describe("cachedReadBy", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps each key apart, shares a key's read within its time, then reads again", async () => {
    vi.useFakeTimers();
    const load = vi.fn(async (_db: Db, page: number) => `page ${page}`);
    const read = cachedReadBy(load, { ttlMs: 5_000, max: 10 });
    const db = database();
    expect(await read(db, "1", 1)).toBe("page 1");
    expect(await read(db, "2", 2)).toBe("page 2");
    expect(await read(db, "1", 1)).toBe("page 1");
    expect(load).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5_001);
    expect(await read(db, "1", 1)).toBe("page 1");
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("reads a steadily viewed key again behind its views, so none of them waits", async () => {
    vi.useFakeTimers();
    let reads = 0;
    const load = vi.fn(async (_db: Db, page: number) => `page ${page}, read ${++reads}`);
    const read = cachedReadBy(load, { ttlMs: 4_000, max: 10 });
    const db = database();
    expect(await read(db, "1", 1)).toBe("page 1, read 1");
    vi.advanceTimersByTime(3_500);
    expect(await read(db, "1", 1)).toBe("page 1, read 1");
    expect(await read(db, "1", 1)).toBe("page 1, read 2");
    vi.advanceTimersByTime(3_500);
    expect(await read(db, "1", 1)).toBe("page 1, read 2");
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("keeps at most `max` keys, letting the oldest read go first", async () => {
    const load = vi.fn(async (_db: Db, key: string) => key);
    const read = cachedReadBy(load, { ttlMs: 60_000, max: 2 });
    const db = database();
    await read(db, "a", "a");
    await read(db, "b", "b");
    await read(db, "c", "c");
    expect(load).toHaveBeenCalledTimes(3);
    await read(db, "c", "c");
    await read(db, "b", "b");
    expect(load).toHaveBeenCalledTimes(3);
    await read(db, "a", "a");
    expect(load).toHaveBeenCalledTimes(4);
  });

  it("keeps no failed read", async () => {
    let calls = 0;
    const read = cachedReadBy(
      async () => {
        calls++;
        if (calls === 1) throw new Error("the database is away");
        return calls;
      },
      { ttlMs: 60_000, max: 10 },
    );
    const db = database();
    await expect(read(db, "k", null)).rejects.toThrow("the database is away");
    expect(await read(db, "k", null)).toBe(2);
    expect(await read(db, "k", null)).toBe(2);
  });
});
