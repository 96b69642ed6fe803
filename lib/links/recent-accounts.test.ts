import { describe, expect, it } from "vitest";
import type { CallOptions, UpstreamApi } from "../upstream";
import { accountsForView } from "./recent-accounts";

describe("a link page's accounts", () => {
  it("share one read among the views of the same link, read without waiting for the budget", async () => {
    const calls: { linkId: string; opts: CallOptions }[] = [];
    const api = {
      getAccounts: async (linkId: string, _params: unknown, opts: CallOptions) => {
        calls.push({ linkId, opts });
        return { accounts: [{ account_id: `${linkId}-acc` }], link: { link_id: linkId } };
      },
    } as unknown as UpstreamApi;
    const [a, b] = await Promise.all([accountsForView(api, "mk_acc_1"), accountsForView(api, "mk_acc_1")]);
    const c = await accountsForView(api, "mk_acc_1");
    const other = await accountsForView(api, "mk_acc_2");
    expect(calls.map((call) => call.linkId)).toEqual(["mk_acc_1", "mk_acc_2"]);
    expect(calls.every((call) => call.opts.mode === "view")).toBe(true);
    expect([a, b, c].map((read) => read.accounts)).toEqual([
      [{ account_id: "mk_acc_1-acc" }],
      [{ account_id: "mk_acc_1-acc" }],
      [{ account_id: "mk_acc_1-acc" }],
    ]);
    expect(c.readAt).toBe(a.readAt);
    expect(c.now).toBeGreaterThanOrEqual(c.readAt);
    expect(other.accounts).toEqual([{ account_id: "mk_acc_2-acc" }]);
  });
});
