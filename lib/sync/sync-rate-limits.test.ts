import { afterAll, beforeAll, expect, it } from "vitest";
import { startSandbox, type TestSandbox } from "../../sandbox/test-support";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { links } from "../db/schema";
import { UpstreamClient } from "../upstream/client";
import { UpstreamApi } from "../upstream/index";
import { runSync } from "./engine";
import { syncPaceOf } from "./pacer";

// The sync at its real pace against a sandbox that enforces the spec's limits: its share of the budget, read evenly,
// and not one 429.

let upstream: TestSandbox;
let database: Database;

beforeAll(async () => {
  upstream = await startSandbox({ links: 50, rateLimits: true });
  database = await openTestPglite();
}, 60_000);
afterAll(async () => {
  await database?.close();
  await upstream?.close();
});

it("reads at the pace of its share, with no 429 from the upstream", async () => {
  const { clientId, clientSecret } = upstream.sandbox.state.options;
  const budget = new Budget({
    store: createMemoryStore(),
    clientId,
    appId: clientId,
    shares: { app: 1, link: 1, user: 1, client: 1 },
    interactiveMaxWaitMs: 0,
  });
  const api = new UpstreamApi(new UpstreamClient({ baseUrl: upstream.base, clientId, clientSecret, gate: budget }));
  // 80 % of 1000 a minute over the budget's 61 s window: one read every 76 ms.
  const pace = syncPaceOf(budget, 0.8);
  expect(pace).toEqual({ limit: 800, windowMs: 61_000 });

  const readAt: number[] = [];
  const started = performance.now();
  const result = await runSync({
    db: database.db,
    api: {
      listLinks: api.listLinks.bind(api),
      getLink: (id, opts) => (readAt.push(performance.now()), api.getLink(id, opts)),
    },
    budget,
    share: 0.8,
  });
  const elapsed = performance.now() - started;

  expect(result).toMatchObject({ outcome: "completed", failed: 0 });
  const reads = readAt.length;
  expect(reads).toBe((await database.db.select().from(links)).length);
  const interval = pace.windowMs / pace.limit;
  // Evenly paced (a start-up burst of three, then one per interval), and keeping that pace.
  expect(readAt.at(-1)! - readAt[0]!).toBeGreaterThanOrEqual((reads - 3) * interval - 5);
  expect(elapsed).toBeLessThan(reads * interval + 3000);
  const stats = (await upstream.raw("GET", "/_sandbox/stats")).json as { rateLimited: number };
  expect(stats.rateLimited).toBe(0);
});
