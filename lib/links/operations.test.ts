import { describe, expect, it } from "vitest";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import { wireLink } from "../testing/wire-fixtures";
import { describeSlot, refreshSchedule } from "./operations";

// When each product of a link may be refreshed, from the link's own times and Linkdesk's budget, and how it is said.

const NOW = Date.parse("2026-11-25T13:30:00Z");
const budget = () =>
  new Budget({
    store: createMemoryStore(),
    clientId: "c",
    appId: "c",
    shares: { app: 0.5, link: 0.5, user: 0.5, client: 0.5 },
    interactiveMaxWaitMs: 0,
  });

describe("refreshSchedule", () => {
  it("adds each product's interval to its last refresh or attempt, whichever is later", async () => {
    const link = wireLink({
      products: {
        accounts: { refreshed_at: "2026-11-25T13:05:00Z", last_attempted_at: "2026-11-25T13:05:00Z" },
        transactions: { refreshed_at: "2026-11-24T13:05:00Z", last_attempted_at: "2026-11-25T09:00:00Z" },
        identity: { refreshed_at: "2026-11-24T10:00:00Z", last_attempted_at: null },
      },
    });
    const slots = await refreshSchedule(link, { budget: budget(), now: NOW });
    expect(slots.map((s) => [s.product, s.nextAt, s.waitFor])).toEqual([
      ["accounts", "2026-11-25T14:05:00.000Z", "interval"],
      ["identity", null, null],
      ["transactions", "2026-11-26T09:00:00.000Z", "interval"],
    ]);
    expect(slots.map(describeSlot)).toEqual([
      "Accounts: may be refreshed again at 2026-11-25 14:05 UTC (refreshed 2026-11-25 13:05 UTC).",
      "Identity: may be refreshed now (refreshed 2026-11-24 10:00 UTC).",
      "Transactions: may be refreshed again at 2026-11-26 09:00 UTC (last attempt 2026-11-25 09:00 UTC, refreshed 2026-11-24 13:05 UTC).",
    ]);
  });

  it("holds a product Linkdesk asked to refresh for its interval, and one the upstream refused until its Retry-After", async () => {
    const b = budget();
    const link = wireLink({
      products: { accounts: { refreshed_at: null, last_attempted_at: null }, investments: { refreshed_at: null } },
    });
    await b.reserve("POST /links/{id}/products", { linkId: link.link_id, products: ["accounts"] });
    const retryAt = new Date(Date.now() + 10 * 60_000);
    await b.rateLimited(
      "POST /links/{id}/products",
      { linkId: link.link_id, products: ["investments"] },
      retryAt,
      "600",
    );
    const [accounts, investments] = await refreshSchedule(link, { budget: b });
    expect(accounts).toMatchObject({ waitFor: "linkdesk", askedAt: expect.any(String) });
    expect(Date.parse(accounts!.nextAt!)).toBeGreaterThan(Date.now() + 59 * 60_000);
    expect(describeSlot(accounts!)).toMatch(
      /^Accounts: may be refreshed again at .* \(Linkdesk asked for a refresh at .*\)\.$/,
    );
    // The memory store keeps times on a monotonic clock: the Date it gives back may differ by a millisecond.
    expect(investments?.waitFor).toBe("upstream");
    expect(Math.abs(Date.parse(investments!.nextAt!) - retryAt.getTime())).toBeLessThan(1000);
    expect(describeSlot(investments!)).toMatch(
      /^Investments: the upstream asked Linkdesk to wait; may be tried again at .* \(never refreshed\)\.$/,
    );
  });

  it("says why nothing can be refreshed on a link that is not connected, or a product the upstream marks unavailable", async () => {
    const broken = wireLink({ state: "error", error_code: "auth_expired" });
    const [slot] = await refreshSchedule(broken, { budget: budget(), now: NOW });
    expect(describeSlot(slot!)).toMatch(
      /^Accounts: cannot be refreshed now\. The link is in error \(Authorization expired\): User must reconnect/,
    );
    const unavailable = wireLink({
      products: { investments: { refreshed_at: null, unavailable: "The institution does not offer <b>holdings</b>." } },
    });
    const [investments] = await refreshSchedule(unavailable, { budget: budget(), now: NOW });
    expect(investments?.blocked).toBe("Unavailable: The institution does not offer <b>holdings</b>.");
  });
});
