// A long queued job against its limit: corrections of one link sent one after another in queued mode, with Linkdesk's
// share of the per-link limit at 100 %, against the sandbox enforcing the spec's rolling minute. Goal: at least 95 % of
// the allowed rate, zero 429s.
import { Budget } from "../../lib/budget/budget";
import { createMemoryStore } from "../../lib/budget/memory-store";
import { UpstreamClient } from "../../lib/upstream/client";
import { UpstreamApi } from "../../lib/upstream/index";
import { createSandbox } from "../../sandbox/server";
import { type SuiteResult, atLeast, exactly } from "./report";

export async function benchBudgetThroughput({ calls = 150 } = {}): Promise<SuiteResult> {
  const sandbox = createSandbox({ importDelayMs: 0 });
  const url = await sandbox.listen(0);
  try {
    const { clientId, clientSecret } = sandbox.state.options;
    const budget = new Budget({
      store: createMemoryStore(),
      clientId,
      appId: clientId,
      shares: { app: 1, link: 1, user: 1, client: 1 },
      interactiveMaxWaitMs: 0,
    });
    const api = new UpstreamApi(new UpstreamClient({ baseUrl: url, clientId, clientSecret, gate: budget }));
    const fixtures = (await (await fetch(`${url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
    const linkId = fixtures.plain![0]!;
    const { transactions } = await api.getTransactions(linkId, { size: 50 });
    const limit = budget
      .keys("POST /links/{id}/transactions/{txn_id}/enrichment", { linkId })
      .find((k) => k.scope === "link")!.limit;

    const sentAt: number[] = [];
    const startedAt = Date.now();
    for (let i = 0; i < calls; i++) {
      await api.correctEnrichment(
        linkId,
        transactions[i % transactions.length]!.transaction_id,
        { category: i % 2 ? "banking" : "travel" },
        { mode: "queued" },
      );
      sentAt.push(Date.now());
    }
    const stats = (await (await fetch(`${url}/_sandbox/stats`)).json()) as { rateLimited: number };
    // At most `limit` calls in any rolling minute: the fastest any client may send `calls` calls is a burst of `limit`,
    // then `limit` more each minute, the last going out floor((calls - 1) / limit) minutes after the first.
    const idealSeconds = Math.floor((calls - 1) / limit) * 60;
    const actualSeconds = (sentAt.at(-1)! - startedAt) / 1000;
    return {
      name: "a long queued job against the per-link limit (corrections, 60/min upstream, share 100 %)",
      figures: [
        {
          label: `${calls} calls: share of the allowed rate`,
          value: (idealSeconds / actualSeconds) * 100,
          unit: "%",
          goal: atLeast(95),
          note: `${calls} calls in ${actualSeconds.toFixed(1)} s (fastest allowed ${idealSeconds} s), ${((calls / actualSeconds) * 60).toFixed(1)}/min`,
        },
        { label: "429s from the upstream", value: stats.rateLimited, unit: "", goal: exactly(0) },
      ],
    };
  } finally {
    await sandbox.close();
  }
}
