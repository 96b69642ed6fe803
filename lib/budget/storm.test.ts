import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../sandbox/server";
import { type Database, createDatabase } from "../db/client";
import { withTestDatabases } from "../testing/databases";
import { UpstreamClient } from "../upstream/client";
import { isUpstreamError } from "../upstream/errors";
import { UpstreamApi } from "../upstream/index";
import { Budget, isBudgetExceeded } from "./budget";
import { createPostgresStore } from "./postgres-store";

// Two dashboard instances on one database fire 300 concurrent corrections at one link of a sandbox that enforces
// the spec's limits over a rolling minute: the sandbox must answer no 429, and every call is done or refused with the
// time of its next slot.

const databases = withTestDatabases();
const sandbox = createSandbox({ importDelayMs: 0 });
let url = "";

beforeAll(async () => {
  url = await sandbox.listen(0);
});
afterAll(async () => {
  await sandbox.close();
});

describe.each(databases)("two instances sharing $kind", (target) => {
  const extra: Database[] = [];
  afterAll(async () => {
    await Promise.all(extra.map((d) => d.close()));
  });

  async function instance(linkShare: number) {
    // On PostgreSQL each instance has its own pool, as two processes would; PGlite is one process's database.
    const database = target.url ? await createDatabase({ url: target.url }) : target.database;
    if (target.url) extra.push(database);
    const { clientId, clientSecret } = sandbox.state.options;
    const budget = new Budget({
      store: createPostgresStore(database.db),
      clientId,
      appId: clientId,
      shares: { app: 0.5, link: linkShare, user: 0.5, client: 0.5 },
      interactiveMaxWaitMs: 0,
    });
    return new UpstreamApi(new UpstreamClient({ baseUrl: url, clientId, clientSecret, gate: budget }));
  }

  it.each([0.5, 1])("at a per-link share of %s", async (linkShare) => {
    await fetch(`${url}/_sandbox/reset`, { method: "POST" });
    const fixtures = (await (await fetch(`${url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
    // A link of its own per run: this database's budget still remembers the previous run's minute.
    const linkId = fixtures.plain![linkShare === 1 ? 1 : 0]!;
    const [a, b] = [await instance(linkShare), await instance(linkShare)];
    const { transactions } = await a.getTransactions(linkId, { size: 50 });
    const before = (await (await fetch(`${url}/_sandbox/stats`)).json()) as { rateLimited: number };

    const outcomes = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        (i % 2 ? a : b)
          .correctEnrichment(linkId, transactions[i % transactions.length]!.transaction_id, {
            category: i % 3 ? "banking" : "charity",
          })
          .then(
            () => ({ kind: "done" as const }),
            (error: unknown) => {
              if (isBudgetExceeded(error)) return { kind: "refused" as const, nextSlotAt: error.nextSlotAt };
              if (isUpstreamError(error)) return { kind: "upstream" as const, status: error.status };
              throw error;
            },
          ),
      ),
    );

    const after = (await (await fetch(`${url}/_sandbox/stats`)).json()) as { rateLimited: number };
    expect(after.rateLimited - before.rateLimited).toBe(0);
    expect(outcomes.filter((o) => o.kind === "upstream")).toEqual([]);
    // The link's limit is 60 a minute; one listing call was spent on the transactions read above (a different endpoint).
    const done = outcomes.filter((o) => o.kind === "done").length;
    expect(done).toBe(Math.floor(60 * linkShare));
    const refused = outcomes.filter((o) => o.kind === "refused");
    expect(refused).toHaveLength(300 - done);
    for (const r of refused) expect(r.nextSlotAt.getTime()).toBeGreaterThan(Date.now());
  });
});
