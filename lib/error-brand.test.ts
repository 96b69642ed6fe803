import { describe, expect, it, vi } from "vitest";

// The action client's module reads the session through Auth.js, which needs Next's runtime: not under test here.
vi.mock("./auth", () => ({}));

// Next bundles a module into every server chunk that imports it. Loading a module twice (vi.resetModules) makes the
// same situation: two copies of each error class. An error made by one copy must be recognised by the other's guard.

/** Two separately evaluated copies of a module, as two server chunks hold them. */
async function twoCopies<T>(load: () => Promise<T>): Promise<[T, T]> {
  vi.resetModules();
  const first = await load();
  vi.resetModules();
  const second = await load();
  return [first, second];
}

const blockedBy = {
  endpoint: "GET /links/{id}",
  scope: "link" as const,
  scopeId: "link_1",
  limit: 15,
  windowMs: 61_000,
};

describe("errors recognised across server chunks", () => {
  it("a full budget's BudgetExceeded and an unavailable store's error", async () => {
    const [one, other] = await twoCopies(() => import("./budget/budget"));
    expect(one.BudgetExceeded).not.toBe(other.BudgetExceeded);
    const exceeded = new one.BudgetExceeded("GET /links/{id}", new Date(Date.now() + 30_000), blockedBy, "full");
    // What failed in production: instanceof against the other chunk's class.
    expect(exceeded instanceof other.BudgetExceeded).toBe(false);
    expect(other.isBudgetExceeded(exceeded)).toBe(true);
    expect(other.isBudgetUnavailable(exceeded)).toBe(false);

    const unavailable = new one.BudgetUnavailable({ cause: new Error("connection refused") });
    expect(other.isBudgetUnavailable(unavailable)).toBe(true);
    expect(other.isBudgetExceeded(unavailable)).toBe(false);
  });

  it("an upstream failure", async () => {
    const [one, other] = await twoCopies(() => import("./upstream/errors"));
    const error = new one.UpstreamError({ kind: "http", endpoint: "GET /links", status: 503 });
    expect(other.isUpstreamError(error)).toBe(true);
    expect(other.isUpstreamError(new Error("GET /links: HTTP 503"))).toBe(false);
    expect(other.isUpstreamError({ name: "UpstreamError", kind: "http" })).toBe(false);
  });

  it("a refusal thrown by an action body, matched by the action client", async () => {
    const [one, other] = await twoCopies(() => import("./actions/safe-action"));
    expect(other.isActionRefused(new one.ActionRefused("You cannot disable your own account."))).toBe(true);
    expect(other.isActionRefused(new Error("You cannot disable your own account."))).toBe(false);
  });

  it("plain values are never taken for branded errors", async () => {
    const { isBudgetExceeded } = await import("./budget/budget");
    for (const value of [null, undefined, 0, "BudgetExceeded", {}, new Error("BudgetExceeded")])
      expect(isBudgetExceeded(value)).toBe(false);
  });
});
