// The rate budget's cost: what tryReserve adds to a typical upstream call (a per-link and a per-app key), spread over
// many links, on each store: process memory, PostgreSQL (a scratch database when DATABASE_URL is set) and PGlite.
// Goal: under 2 ms median on PostgreSQL.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { keysFor } from "../../lib/budget/rules";
import { createMemoryStore } from "../../lib/budget/memory-store";
import { createPostgresStore } from "../../lib/budget/postgres-store";
import type { BudgetStore } from "../../lib/budget/types";
import { createDatabase, type Database } from "../../lib/db/client";
import { createScratchDatabase } from "./scratch-database";
import { type Figure, type Goal, type SuiteResult, below, fromRuns, skipped } from "./report";
import { percentile } from "./stats";

const ENDPOINT = "GET /links/{id}/transactions";
const LINKS = 500;
// Two apps take turns, so each per-app key holds about a thousand reservations in its window by the end, as a busy
// app would, and no call is refused (the per-app limit is 2,000 a minute).
const APPS = 2;

export async function benchBudget({ calls = 2000, warmup = 200 } = {}): Promise<SuiteResult> {
  const rows: Figure[] = [];
  rows.push(...(await measure("memory", createMemoryStore(), { calls, warmup })));

  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const scratch = await createScratchDatabase(serverUrl);
    try {
      const postgres = await createDatabase({ url: scratch.url });
      try {
        rows.push(
          ...(await measure("PostgreSQL", createPostgresStore(postgres.db), { calls, warmup, goal: below(2) })),
        );
        rows.push(await tableSize("PostgreSQL", postgres));
      } finally {
        await postgres.close();
      }
    } finally {
      await scratch.drop();
    }
  } else {
    rows.push(skipped("PostgreSQL", "DATABASE_URL is not set"));
  }

  const pglite = await createDatabase({ dataDir: "memory" });
  try {
    rows.push(...(await measure("PGlite (postgres store)", createPostgresStore(pglite.db), { calls, warmup })));
  } finally {
    await pglite.close();
  }
  return { name: `rate budget: tryReserve on a per-link + per-app key (${ENDPOINT}), ${LINKS} links`, figures: rows };
}

async function measure(
  label: string,
  store: BudgetStore,
  { calls, warmup, goal }: { calls: number; warmup: number; goal?: Goal },
): Promise<Figure[]> {
  const run = randomBytes(4).toString("hex");
  const shares = { app: 1, link: 1, user: 1, client: 1 };
  const samples: number[] = [];
  let refused = 0;
  for (let i = 0; i < warmup + calls; i++) {
    const keys = keysFor(
      ENDPOINT,
      { clientId: "client_bench", appId: `app_${run}_${i % APPS}`, linkId: `mk_${run}_${(i * 7919) % LINKS}` },
      shares,
    );
    const started = performance.now();
    const result = await store.tryReserve(keys);
    const elapsed = performance.now() - started;
    if (i >= warmup) samples.push(elapsed);
    if (!result.ok) refused++;
  }
  // A refusal on a full key reads the window's oldest rows as well: time that path too.
  const full = keysFor(
    ENDPOINT,
    { clientId: "client_bench", appId: `app_${run}_full`, linkId: `mk_${run}_full` },
    { ...shares, link: 0.1 },
  );
  const refusals: number[] = [];
  for (let i = 0; i < 206; i++) {
    const started = performance.now();
    const result = await store.tryReserve(full);
    if (i >= 6 && !result.ok) refusals.push(performance.now() - started);
  }
  return [
    fromRuns(`${label}: tryReserve, room on both keys`, samples, "ms", {
      goal,
      note: `p99 ${time(percentile(samples, 99))}, ${calls} calls, ${refused} refused`,
    }),
    fromRuns(`${label}: tryReserve, per-link key full`, refusals, "ms", {
      note: `p99 ${time(percentile(refusals, 99))}, ${refusals.length} refusals`,
    }),
  ];
}

// The memory store answers in microseconds, which two decimals of a millisecond would round to nothing.
const time = (value: number) => (value < 0.1 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(2)} ms`);

async function tableSize(label: string, { db }: Database): Promise<Figure> {
  const result = await db.execute<{ n: number }>(sql`select count(*)::int as n from budget_reservations`);
  return {
    label: `${label}: budget_reservations rows afterwards`,
    value: result.rows[0]?.n ?? Number.NaN,
    unit: "rows",
    note: "pruned per key as reserved, swept for idle keys",
  };
}
