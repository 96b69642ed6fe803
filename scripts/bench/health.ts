// Health at 100,000 links: the summary (three aggregate queries) and the 30-day trend, on PGlite and, when
// DATABASE_URL is set, on PostgreSQL in a scratch database.
import { sql } from "drizzle-orm";
import type { Db } from "../../lib/db/client";
import { onBenchDatabases } from "./scratch-database";
import { healthSummary } from "../../lib/links/health-summary";
import { healthTrend } from "../../lib/links/health-trend";
import { type SuiteResult, fromRuns } from "./report";
import { percentile, time } from "./stats";

const NOW = new Date();

export async function benchHealth(): Promise<SuiteResult> {
  const figures = await onBenchDatabases("health", async (label, { db }) => {
    await fill100k(db);
    const summary = await time(9, 1, () => healthSummary(db, { now: NOW }));
    const trend = await time(9, 1, () => healthTrend(db, { days: 30, now: NOW }));
    return [
      fromRuns(`${label}: healthSummary, 100,000 links`, summary, "ms", {
        note: `p99 ${percentile(summary, 99).toFixed(1)} ms`,
      }),
      fromRuns(`${label}: healthTrend, 30 days of 10-minute snapshots`, trend, "ms", {
        note: `p99 ${percentile(trend, 99).toFixed(1)} ms`,
      }),
    ];
  });
  return { name: "Health page queries at 100,000 links", figures };
}

/** 100,000 links shaped like a synced read model (a fifth in error), plus 30 days of snapshots every 10 minutes. */
async function fill100k(db: Db) {
  await db.execute(sql`
    insert into links (link_id, created_at, institution_id, institution_name, state, error_code, provider, link_tags, raw,
                       product_error_codes, last_refreshed_at, seen_at, listed_at)
    select 'mk_bench_' || i,
           ${NOW.toISOString()}::timestamptz - (i || ' minutes')::interval,
           'inst_' || (i % 500), 'Institution ' || (i % 500),
           case when i % 5 = 0 then 'error' when i % 50 = 1 then 'deleted' when i % 50 = 2 then 'connecting' else 'connected' end,
           case when i % 5 = 0 then (array['auth_expired','institution_error','provider_error','system_error','invalid_credentials','user_error'])[1 + (i / 5) % 6] end,
           (array['moneykit','plaid','mx','finicity','yodlee','akoya'])[1 + i % 6],
           array['team:' || (i % 4)],
           jsonb_build_object('link_id', 'mk_bench_' || i),
           case when i % 7 = 0 then array['rate_limit'] when i % 11 = 0 then array['timeout', 'no_permission'] else '{}' end,
           ${NOW.toISOString()}::timestamptz - ((i % 60) || ' days')::interval,
           ${NOW.toISOString()}::timestamptz - ((i % 1000) || ' seconds')::interval,
           ${NOW.toISOString()}::timestamptz
    from generate_series(1, 100000) as i`);
  await db.execute(sql`
    insert into link_snapshots (at, total, by_state, by_error_code)
    select ${NOW.toISOString()}::timestamptz - (i * 10 || ' minutes')::interval, 100000,
           '{"connected": 76000, "error": 20000, "deleted": 2000, "connecting": 2000}'::jsonb, '{"auth_expired": 3400}'::jsonb
    from generate_series(0, 4319) as i`);
  await db.execute(sql`analyze links`);
  await db.execute(sql`analyze link_snapshots`);
}
