import { describe, expect, it } from "vitest";
import type { WireTransaction } from "../upstream/schemas";
import { TransactionHistoryCache } from "./history";
import type { TransactionHistory } from "./read";

const txn = (id: string, category = "shopping") =>
  ({ transaction_id: id, enrichment: { category: { value: category, confidence: 80 } } }) as unknown as WireTransaction;

function setup() {
  let now = 1_000_000;
  const reads: string[] = [];
  let fail = false;
  const releases: (() => void)[] = [];
  let hold = false;
  const cache = new TransactionHistoryCache(
    async (linkId) => {
      reads.push(linkId);
      if (hold) await new Promise<void>((resolve) => releases.push(resolve));
      if (fail) throw new Error("upstream down");
      return {
        transactions: [txn("a"), txn("b")],
        accounts: [],
        link: { link_id: linkId },
      } as unknown as TransactionHistory;
    },
    { maxAgeMs: 30_000, maxLinks: 2, now: () => now },
  );
  return {
    cache,
    reads,
    tick: (ms: number) => (now += ms),
    failReads: (value: boolean) => (fail = value),
    holdReads: () => (hold = true),
    releaseRead: () => releases.shift()?.(),
  };
}

describe("the per-link transaction history cache (filtering and paging spend no upstream calls)", () => {
  it("serves one read for 30 s, then reads again", async () => {
    const { cache, reads, tick } = setup();
    await cache.get("L1");
    tick(29_000);
    await cache.get("L1");
    expect(reads).toEqual(["L1"]);
    tick(1_000);
    await cache.get("L1");
    expect(reads).toEqual(["L1", "L1"]);
  });

  it("shares one read among views asking at once", async () => {
    const { cache, reads } = setup();
    await Promise.all([cache.get("L1"), cache.get("L1"), cache.get("L1")]);
    expect(reads).toEqual(["L1"]);
  });

  it("does not keep a failed read", async () => {
    const { cache, reads, failReads } = setup();
    failReads(true);
    await expect(cache.get("L1")).rejects.toThrow("upstream down");
    failReads(false);
    await expect(cache.get("L1")).resolves.toMatchObject({
      transactions: [{ transaction_id: "a" }, { transaction_id: "b" }],
    });
    expect(reads).toEqual(["L1", "L1"]);
  });

  it("takes a correction's answer into the cached copy without reading again", async () => {
    const { cache, reads } = setup();
    await cache.get("L1");
    cache.update("L1", [txn("b", "mortgage_and_rent")]);
    const history = await cache.get("L1");
    expect(history.transactions.map((t) => t.enrichment?.category.value)).toEqual(["shopping", "mortgage_and_rent"]);
    expect(reads).toEqual(["L1"]);
  });

  it("forgets a read still under way when a correction lands, since that read may predate it", async () => {
    const { cache, reads, holdReads, releaseRead } = setup();
    holdReads();
    const first = cache.get("L1");
    cache.update("L1", [txn("b", "mortgage_and_rent")]);
    const second = cache.get("L1");
    await Promise.resolve();
    releaseRead();
    await first;
    releaseRead();
    await second;
    expect(reads).toEqual(["L1", "L1"]);
  });

  it("forgets on demand and keeps only the most recently used links", async () => {
    const { cache, reads } = setup();
    await cache.get("L1");
    cache.forget("L1");
    await cache.get("L1");
    await cache.get("L2");
    await cache.get("L3");
    await cache.get("L2");
    await cache.get("L1");
    expect(reads).toEqual(["L1", "L1", "L2", "L3", "L1"]);
  });
});
