import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Budget, BudgetExceeded, BudgetUnavailable, type BudgetWait } from "./budget";
import { createMemoryStore } from "./memory-store";
import type { BudgetStore } from "./types";

const shares = { app: 0.5, link: 0.5, user: 0.5, client: 0.5 };
const CORRECTION = "POST /links/{id}/transactions/{txn_id}/enrichment";

function budget(store: BudgetStore = createMemoryStore(), interactiveMaxWaitMs = 0) {
  return new Budget({ store, clientId: "client_1", appId: "client_1", shares, interactiveMaxWaitMs });
}

describe("Budget", () => {
  it("reserves on every key of the call: per link and per app at Linkdesk's share", async () => {
    const b = budget();
    const keys = await b.reserve(CORRECTION, { linkId: "mk_1" });
    expect(keys.map((k) => [k.scope, k.scopeId, k.limit])).toEqual([
      ["link", "mk_1", 30],
      ["app", "client_1", 1000],
    ]);
  });

  it("leaves no listener on the caller's signal once a queued call's waits are over", async () => {
    const b = new Budget({
      store: createMemoryStore(),
      clientId: "c",
      appId: "c",
      shares: { ...shares, link: 0.1 },
      interactiveMaxWaitMs: 0,
      windowMs: 150,
    });
    const signal = new AbortController().signal;
    // PATCH /links/{id}: 10 % of 4 a window is 1. Each later call waits for the window to pass, sleeping on the signal.
    for (let i = 0; i < 4; i++) await b.reserve("PATCH /links/{id}", { linkId: "mk_l" }, { mode: "queued", signal });
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("refuses an interactive call at once with the time of the next slot", async () => {
    const b = budget();
    for (let i = 0; i < 30; i++) await b.reserve(CORRECTION, { linkId: "mk_2" });
    const error = (await b.reserve(CORRECTION, { linkId: "mk_2" }).catch((e: unknown) => e)) as BudgetExceeded;
    expect(error).toBeInstanceOf(BudgetExceeded);
    expect(error.blockedBy).toEqual({ endpoint: CORRECTION, scope: "link", scopeId: "mk_2" });
    expect(error.nextSlotAt.getTime()).toBeGreaterThan(Date.now() + 55_000);
    expect(error.message).toMatch(/next slot in \d+ s$/);
    // Another link still has room: the per-app key was not consumed by the refusal.
    await expect(b.reserve(CORRECTION, { linkId: "mk_3" })).resolves.toHaveLength(2);
  });

  it("lets a click wait a little for a slot that comes soon, and refuses a page's read at once", async () => {
    let clock = 0;
    const slept: number[] = [];
    const b = new Budget({
      store: createMemoryStore({ now: () => clock }),
      clientId: "c",
      appId: "c",
      shares: { ...shares, link: 0.1 },
      interactiveMaxWaitMs: 62_000,
      sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      },
    });
    // PATCH /links/{id} allows 4 per link per minute: 10 % of it is 1. The first takes it.
    await b.reserve("PATCH /links/{id}", { linkId: "mk_v" });
    const view = (await b
      .reserve("PATCH /links/{id}", { linkId: "mk_v" }, { mode: "view" })
      .catch((e: unknown) => e)) as BudgetExceeded;
    expect(view).toBeInstanceOf(BudgetExceeded);
    expect(view.nextSlotAt.getTime()).toBeGreaterThan(Date.now() + 55_000);
    expect(slept).toEqual([]);
    // The same call as a click waits for that slot (within its 62 s) and gets it.
    await expect(b.reserve("PATCH /links/{id}", { linkId: "mk_v" })).resolves.toHaveLength(2);
    expect(slept.length).toBeGreaterThan(0);
  });

  it("lets queued work wait for its slot, in order, and says on which limit and until when it waits", async () => {
    let clock = 0;
    const store = createMemoryStore({ now: () => clock });
    const waits: BudgetWait[] = [];
    const b = new Budget({
      store,
      clientId: "c",
      appId: "c",
      shares: { ...shares, link: 0.1 },
      interactiveMaxWaitMs: 0,
      // A fake sleep that moves the store's clock instead of waiting.
      sleep: async (ms) => {
        clock += ms;
      },
    });
    // PATCH /links/{id} allows 4 per link per minute: 10 % of it is 1.
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        b
          .reserve("PATCH /links/{id}", { linkId: "mk_q" }, { mode: "queued", onWait: (wait) => waits.push(wait) })
          .then(() => order.push(n)),
      ),
    );
    expect(order).toEqual([1, 2, 3]);
    expect(waits.length).toBeGreaterThanOrEqual(2);
    // The limit by its rule, not by its key: no link id, client id or app id reaches whoever waits.
    expect(waits[0]).toEqual({
      endpoint: "PATCH /links/{id}",
      scope: "link",
      reason: "full",
      nextSlotAt: expect.any(Date),
    });
    expect(clock).toBeGreaterThanOrEqual(2 * 61_000);
  });

  it("closes the call's keys after an upstream 429 until its Retry-After", async () => {
    const b = budget();
    const retryAt = new Date(Date.now() + 20_000);
    await b.rateLimited(CORRECTION, { linkId: "mk_4" }, retryAt, "20");
    const error = (await b.reserve(CORRECTION, { linkId: "mk_4" }).catch((e: unknown) => e)) as BudgetExceeded;
    expect(error.reason).toBe("closed");
    expect(Math.abs(error.nextSlotAt.getTime() - retryAt.getTime())).toBeLessThan(1000);
    const usage = await b.store.usage(61_000);
    expect(usage.events[0]).toMatchObject({
      endpoint: CORRECTION,
      retryAfter: "20",
      scopeIds: { link: "mk_4", app: "client_1" },
    });
  });

  it("fails closed when its storage fails: no reservation, a clear error", async () => {
    const broken: BudgetStore = {
      kind: "postgres",
      tryReserve: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
      },
      close: async () => undefined,
      release: async () => undefined,
      usage: async () => ({ used: [], closures: [], events: [] }),
    };
    const error = await budget(broken)
      .reserve(CORRECTION, { linkId: "mk_5" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetUnavailable);
    expect((error as Error).message).not.toContain("5432");
  });

  it("reserves one refresh per product per interval, and gives a refresh back when the upstream declined it", async () => {
    const b = budget();
    const ids = { linkId: "mk_r", products: ["accounts", "transactions"] as const };
    const keys = await b.reserve("POST /links/{id}/products", ids);
    expect(keys.map((k) => [k.endpoint, k.scopeId, k.limit])).toEqual([
      ["POST /links/{id}/products (accounts)", "mk_r", 1],
      ["POST /links/{id}/products (transactions)", "mk_r", 1],
    ]);
    const again = (await b
      .reserve("POST /links/{id}/products", { linkId: "mk_r", products: ["transactions"] })
      .catch((e: unknown) => e)) as BudgetExceeded;
    expect(again).toBeInstanceOf(BudgetExceeded);
    expect(again.nextSlotAt.getTime()).toBeGreaterThan(Date.now() + 23 * 60 * 60_000);
    // Another product of the link, or the same product of another link, is its own key.
    await expect(
      b.reserve("POST /links/{id}/products", { linkId: "mk_r", products: ["identity"] }),
    ).resolves.toHaveLength(1);
    await expect(
      b.reserve("POST /links/{id}/products", { linkId: "mk_s", products: ["transactions"] }),
    ).resolves.toHaveLength(1);
    // A declined refresh did nothing: the product may be tried again at once.
    await b.declined("POST /links/{id}/products", ids);
    await expect(
      b.reserve("POST /links/{id}/products", { linkId: "mk_r", products: ["transactions"] }),
    ).resolves.toHaveLength(1);
  });

  it("keeps a declined call's per-minute slots used: the upstream counts declined calls too", async () => {
    const b = budget(createMemoryStore(), 0);
    await b.reserve("PATCH /links/{id}", { linkId: "mk_d" });
    await b.reserve("PATCH /links/{id}", { linkId: "mk_d" });
    await b.declined("PATCH /links/{id}", { linkId: "mk_d" });
    await expect(b.reserve("PATCH /links/{id}", { linkId: "mk_d" })).rejects.toBeInstanceOf(BudgetExceeded);
  });

  it("puts no budget on calls the spec does not limit", async () => {
    await expect(budget().reserve("POST /_sandbox/link-sessions/{token}/complete", {})).resolves.toEqual([]);
  });
});
