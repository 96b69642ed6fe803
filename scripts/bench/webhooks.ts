// Webhooks into the built dashboard with 100,000 links in the read model (issue 24), and beside them the links sync
// alone at Linkdesk's configured pace. On loopback, the sandbox (in this process) signs and delivers link.state_changed
// to POST /api/webhooks/upstream of a production `next start` (answered beside Next.js), whose sync is off (SYNC_INTERVAL_MINUTES=0) so only
// webhooks change the read model. The sandbox runs here rather than as its program so that every delivery's record
// stays in hand (GET /_sandbox/webhooks keeps the last 1,000). Each row changes links no row touched before:
//   - verified events accepted per second, from the first to the last 2xx the sandbox received;
//   - acknowledgement time: each attempt's duration_ms in the sandbox (sending to the receiver's status line);
//   - lag to the read model: webhook_timestamp (and the receipt) to processed_at, read from webhook_events afterwards;
//   - lost: a change whose delivery did not end delivered, whose event is not stored verified and processed, or whose
//     link in the read model does not show it; doubled: an event processed more than once, or two rows for one key.
// Rows: a burst at the sandbox's default of 8 attempts in flight, a burst at 64 (the receiver's own ceiling), and a
// steady stream. The polling figures come from the sync itself against the sandbox with its rate limits on, at the
// shares Linkdesk is configured with by default, over a bounded window, extrapolated to a full pass (and labelled so).
// On PGlite always, and on PostgreSQL in a scratch database when DATABASE_URL is set. Figures, not assertions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { Budget } from "../../lib/budget/budget";
import { createMemoryStore } from "../../lib/budget/memory-store";
import { type Database, createDatabase } from "../../lib/db/client";
import { type Env, PGLITE_SHARED_BUFFERS_DEFAULT, parseEnv } from "../../lib/env";
import { recordLinks } from "../../lib/links/read-model";
import { runSync } from "../../lib/sync/engine";
import { syncPaceOf } from "../../lib/sync/pacer";
import { UpstreamClient } from "../../lib/upstream/client";
import { UpstreamApi } from "../../lib/upstream/index";
import type { WireLink } from "../../lib/upstream/schemas";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { type Sandbox, createSandbox } from "../../sandbox/server";
import { notifyStateChanged } from "../../sandbox/webhook-events";
import type { Delivery } from "../../sandbox/webhooks";
import { build, buildIsStale, startDashboard } from "../processes";
import { treeCpuMs } from "./proc";
import { type Figure, type SuiteResult, atLeast, below, exactly, skipped } from "./report";
import { createScratchDatabase } from "./scratch-database";
import { percentile } from "./stats";

/** Links in the dashboard's read model. */
const READ_MODEL_LINKS = 100_000;
/** One seeded sandbox link in 32 is deleted, and GET /links leaves deleted links out: a few more make 100,000 listed. */
const SANDBOX_LINKS = 103_300;
const EVENTS_PER_ROW = 1_500;
const POLL_SECONDS = 60;
/** Bounds, whatever the timings: loopback only, and a row gives up waiting after this long. */
const ROW_TIMEOUT_MS = 120_000;
const HOOK_PATH = "/api/webhooks/upstream";

interface Row {
  name: string;
  /** Attempts the sandbox has in flight at most (its webhookConcurrency). */
  inFlight: number;
  /** A steady stream at this share of the setup's measured ceiling (the burst at 64 in flight), for this long; else a burst. */
  steady?: { shareOfCeiling: number; seconds: number };
  /** Which goals this row is judged on (see the docs: a burst's lag is the sender's queue, 64 in flight's ack time is Little's law). */
  goals: { accepted?: boolean; ack?: boolean; lag?: boolean };
}

const ROWS: Row[] = [
  { name: "burst, 8 in flight (the sandbox's default)", inFlight: 8, goals: { ack: true } },
  { name: "burst, 64 in flight (the receiver's ceiling)", inFlight: 64, goals: { accepted: true } },
  {
    name: "steady at half the ceiling, 64 in flight",
    inFlight: 64,
    steady: { shareOfCeiling: 0.5, seconds: 20 },
    goals: { ack: true, lag: true },
  },
];

type Setup = "PGlite" | "PostgreSQL";

export async function benchWebhooks({
  port = 3178,
  events = EVENTS_PER_ROW,
  pollSeconds = POLL_SECONDS,
}: { port?: number; events?: number; pollSeconds?: number } = {}): Promise<SuiteResult> {
  // Linkdesk's defaults for the shares, the interval and the slowdown, from its own configuration schema.
  const config = parseEnv({
    UPSTREAM_BASE_URL: "http://127.0.0.1:1",
    UPSTREAM_CLIENT_ID: "bench",
    UPSTREAM_CLIENT_SECRET: "bench",
    AUTH_SECRET: "bench-secret-0123456789abcdef0123456789",
  });
  if (buildIsStale()) await build();
  const figures: Figure[] = [];
  console.log(`  [webhooks] polling alone: the sync at its configured pace for ${pollSeconds} s of detail reads`);
  const polling = await measurePolling(config, pollSeconds);
  const material = await withSandbox((api) => readSeedMaterial(api, events));
  const setups: ({ setup: Setup } & Measured)[] = [];
  setups.push({ setup: "PGlite", ...(await measureSetup("PGlite", { port, material })) });
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const scratch = await createScratchDatabase(serverUrl);
    try {
      setups.push({
        setup: "PostgreSQL",
        ...(await measureSetup("PostgreSQL", { port, material, databaseUrl: scratch.url })),
      });
    } finally {
      await scratch.drop();
    }
  }
  for (const { setup, rows, baseline, refused } of setups) {
    figures.push(...rows.flatMap((row) => rowFigures(setup, row)));
    figures.push({
      label: `${setup}: requests refused over the run`,
      value: refused.reduce((sum, r) => sum + r.count, 0),
      unit: "",
      note: refused.length ? refused.map((r) => `${r.count} × ${r.reason}`).join("; ") : "none",
    });
    figures.push({
      label: `${setup}: beside it, a request through Next.js that does nothing (GET /api/health), 8 in flight: dashboard CPU per request`,
      value: baseline.cpuMsPerRequest,
      unit: "ms",
      note: `${baseline.perSecond.toFixed(0)} requests/s: what a webhook would cost before the receiver did anything, were it answered by Next.js (it is answered beside it: docs/decisions/direct-webhooks.md)`,
    });
  }
  if (!serverUrl) figures.push(skipped("PostgreSQL", "DATABASE_URL is not set"));
  figures.push(...pollingFigures(polling, config));
  const steadyLag = setups.map(({ setup, rows }) => {
    const steady = rows.find((row) => row.row.steady);
    return { setup, seconds: steady ? percentile(steady.lagFromEventMs, 95) / 1000 : Number.NaN };
  });
  figures.push(...freshnessFigures(polling, config, steadyLag));
  return {
    name: `webhooks from the sandbox into the built dashboard, ${READ_MODEL_LINKS.toLocaleString("en")} links in the read model (${events.toLocaleString("en")} state changes a row), beside the links sync alone`,
    figures,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Polling alone: the sync against the sandbox's limits at the configured shares.

interface Polling {
  listed: number;
  listingSeconds: number;
  windowSeconds: number;
  reads: number;
  /** Steady detail reads a second: after the pacer's start-up burst of three, from the third to the last. */
  readsPerSecond: number;
  plannedPerSecond: number;
  pace: { limit: number; windowMs: number };
  rateLimited: number;
}

async function measurePolling(config: Env, seconds: number): Promise<Polling> {
  const sandbox = createSandbox({ links: SANDBOX_LINKS, linksListing: "all", importDelayMs: 0, rateLimits: true });
  const url = await sandbox.listen(0);
  const folder = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-webhooks-poll-"));
  const database = await createDatabase({
    dataDir: path.join(folder, "pglite"),
    sharedBuffers: PGLITE_SHARED_BUFFERS_DEFAULT,
  });
  try {
    const { clientId, clientSecret } = sandbox.state.options;
    const budget = new Budget({
      store: createMemoryStore(),
      clientId,
      appId: clientId,
      shares: {
        app: config.BUDGET_APP_SHARE,
        link: config.BUDGET_LINK_SHARE,
        user: config.BUDGET_USER_SHARE,
        client: config.BUDGET_CLIENT_SHARE,
      },
      interactiveMaxWaitMs: 0,
    });
    const api = new UpstreamApi(new UpstreamClient({ baseUrl: url, clientId, clientSecret, gate: budget }));
    const pace = syncPaceOf(budget, config.SYNC_SHARE);
    const readAt: number[] = [];
    let detailsFrom: number | undefined;
    let listed = 0;
    const stopper = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const started = performance.now();
    await runSync({
      db: database.db,
      api: {
        listLinks: async (params, opts) => {
          const page = await api.listLinks(params, opts);
          listed += page.links.length;
          return page;
        },
        getLink: (linkId, opts) => {
          readAt.push(performance.now());
          return api.getLink(linkId, opts);
        },
      },
      budget,
      share: config.SYNC_SHARE,
      signal: stopper.signal,
      onProgress: (p) => {
        if (p.phase === "details" && detailsFrom === undefined) {
          detailsFrom = performance.now();
          timer = setTimeout(() => stopper.abort(new Error("bounded window: time is up")), seconds * 1000);
        }
      },
    });
    clearTimeout(timer);
    const stats = (await (await fetch(`${url}/_sandbox/stats`)).json()) as { rateLimited: number };
    const spanMs = readAt.length > 3 ? readAt.at(-1)! - readAt[2]! : Number.NaN;
    return {
      listed,
      listingSeconds: ((detailsFrom ?? performance.now()) - started) / 1000,
      windowSeconds: seconds,
      reads: readAt.length,
      readsPerSecond: ((readAt.length - 3) / spanMs) * 1000,
      plannedPerSecond: (pace.limit / pace.windowMs) * 1000,
      pace,
      rateLimited: stats.rateLimited,
    };
  } finally {
    await database.close();
    rmSync(folder, { recursive: true, force: true });
    await sandbox.close();
  }
}

/** Seconds of a full pass over `links` at the measured pace: the listing scaled from what was listed, then one read each. */
const passSeconds = (polling: Polling, links: number) =>
  polling.listingSeconds * (links / Math.max(1, polling.listed)) + links / polling.readsPerSecond;

function pollingFigures(polling: Polling, config: Env): Figure[] {
  const pass = passSeconds(polling, READ_MODEL_LINKS);
  return [
    {
      label: "polling: detail reads per minute at the configured pace",
      value: polling.readsPerSecond * 60,
      unit: "/min",
      note:
        `measured: ${polling.reads} GET /links/{id} in a ${polling.windowSeconds} s window after listing ` +
        `${polling.listed.toLocaleString("en")} links in ${polling.listingSeconds.toFixed(1)} s; planned ${polling.pace.limit} per ` +
        `${polling.pace.windowMs / 1000} s (${(polling.plannedPerSecond * 60).toFixed(0)}/min: SYNC_SHARE ${config.SYNC_SHARE} of ` +
        `BUDGET_APP_SHARE ${config.BUDGET_APP_SHARE} of 1000/min); ${polling.rateLimited} 429s`,
    },
    {
      label: `polling: a full pass over ${READ_MODEL_LINKS.toLocaleString("en")} links (extrapolated)`,
      value: pass / 3600,
      unit: "h",
      note:
        `extrapolated from the measured pace: listing ${(polling.listingSeconds * (READ_MODEL_LINKS / Math.max(1, polling.listed))).toFixed(0)} s + ` +
        `${READ_MODEL_LINKS.toLocaleString("en")} reads; the sync sees every changed link once within the pass, the last of them after the whole pass`,
    },
  ];
}

/**
 * How stale a link's row can be, from the figures above. Polling reads each link once a cycle (a pass, then the
 * interval before the next), so a change waits for its link's next read: uniformly within one cycle. With webhooks,
 * an announced change waits the measured lag; a missed one waits for the reconciliation pass, SYNC_WEBHOOK_SLOWDOWN
 * times less often.
 */
function freshnessFigures(polling: Polling, config: Env, lagP95: { setup: Setup; seconds: number }[]): Figure[] {
  const [first, ...others] = lagP95;
  const figures: Figure[] = [];
  for (const links of [100_000, 1_000_000]) {
    const pass = passSeconds(polling, links);
    const plain = pass + config.SYNC_INTERVAL_MINUTES * 60;
    const slowed = pass + config.SYNC_INTERVAL_MINUTES * config.SYNC_WEBHOOK_SLOWDOWN * 60;
    const scale = links.toLocaleString("en");
    const hours = (seconds: number) => `${(seconds / 3600).toFixed(2)} h`;
    figures.push(
      {
        label: `freshness at ${scale} links, polling alone: p95 (worst)`,
        value: (0.95 * plain) / 3600,
        unit: "h",
        note: `derived: cycle = pass ${hours(pass)} + interval ${config.SYNC_INTERVAL_MINUTES} min = ${hours(plain)} worst; p50 ${hours(plain / 2)}`,
      },
      {
        label: `freshness at ${scale} links, with webhooks, a change announced: p95`,
        value: first?.seconds ?? Number.NaN,
        unit: "s",
        note:
          `the measured lag p95 of the steady row on ${first?.setup}${others.map((o) => ` (${o.setup}: ${o.seconds.toFixed(2)} s)`).join("")}` +
          (links > READ_MODEL_LINKS
            ? "; taken as the same at 1M rows (one upsert by primary key an event), not measured there"
            : ""),
      },
      {
        label: `freshness at ${scale} links, with webhooks, a change missed: p95 (worst)`,
        value: (0.95 * slowed) / 3600,
        unit: "h",
        note:
          `derived: reconciliation cycle = pass ${hours(pass)} + interval ${config.SYNC_INTERVAL_MINUTES} min × ` +
          `SYNC_WEBHOOK_SLOWDOWN ${config.SYNC_WEBHOOK_SLOWDOWN} = ${hours(slowed)} worst; p50 ${hours(slowed / 2)}`,
      },
    );
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------
// Webhooks: one dashboard per database, the rows one after another.

interface Change {
  linkId: string;
  state: "connected" | "error";
  delivery: Delivery;
}

interface RowResult {
  row: Row;
  /** The steady row's rate; null for a burst. */
  perSecond: number | null;
  changes: Change[];
  /** Seconds from the first change made to the last acknowledgement. */
  seconds: number;
  dashboardCpuMs: number;
  senderCpuMs: number;
  /** Filled from the database once the dashboard has stopped. */
  stored: Map<string, StoredEvent>;
  readModel: Map<string, { state: string | null; eventAt: Date | null }>;
  lagFromEventMs: number[];
  lagFromReceiptMs: number[];
}

interface StoredEvent {
  receivedAt: Date;
  eventAt: Date | null;
  processedAt: Date | null;
  outcome: string;
  processAttempts: number;
  redeliveries: number;
  rows: number;
}

interface Measured {
  rows: RowResult[];
  /** Requests the receiver refused over the whole setup, by reason. */
  refused: { reason: string; count: number }[];
  baseline: { perSecond: number; cpuMsPerRequest: number };
}

async function measureSetup(
  setup: Setup,
  { port, material, databaseUrl }: { port: number; material: SeedMaterial; databaseUrl?: string },
): Promise<Measured> {
  const progress = (text: string) => console.log(`  [webhooks, ${setup}] ${text}`);
  const folder = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-webhooks-"));
  const dataDir = path.join(folder, "pglite");
  const sandboxPort = port + 1000;
  const openDatabase = () =>
    createDatabase(databaseUrl ? { url: databaseUrl } : { dataDir, sharedBuffers: PGLITE_SHARED_BUFFERS_DEFAULT });
  let sandbox: Sandbox | undefined;
  let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;
  try {
    sandbox = createSandbox({
      links: SANDBOX_LINKS,
      linksListing: "all",
      rateLimits: false,
      webhookConcurrency: ROWS[0]!.inFlight,
    });
    const sandboxUrl = await sandbox.listen(sandboxPort, "127.0.0.1");
    const { clientId, clientSecret } = sandbox.state.options;
    // A new sandbox knows none of the tokens the one before issued: one client per sandbox.
    const clientFor = () => new UpstreamApi(new UpstreamClient({ baseUrl: sandboxUrl, clientId, clientSecret }));
    let api = clientFor();

    const seedStarted = performance.now();
    const database = await openDatabase();
    try {
      await seedReadModel(database, material);
    } finally {
      await database.close();
    }
    progress(
      `read model seeded: ${READ_MODEL_LINKS.toLocaleString("en")} links in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
    );

    const output: string[] = [];
    dashboard = await startDashboard({
      port,
      host: "127.0.0.1",
      env: {
        UPSTREAM_BASE_URL: sandboxUrl,
        UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
        UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
        UPSTREAM_SANDBOX: "0",
        AUTH_SECRET: "bench-secret-0123456789abcdef0123456789",
        // The dashboard keeps PGlite in LINKDESK_DATA_DIR/pglite, where the read model was seeded.
        LINKDESK_DATA_DIR: folder,
        DATABASE_URL: databaseUrl ?? "",
        LOG_LEVEL: "warn",
        // Only webhooks change the read model.
        SYNC_INTERVAL_MINUTES: "0",
      },
      onOutput: (text) => output.push(text),
    });
    const hookUrl = `${dashboard.url}${HOOK_PATH}`;
    const pid = dashboard.child.pid!;
    const baseline = await measureBaseline(dashboard.url, pid);
    const results: RowResult[] = [];
    for (const [index, row] of ROWS.entries()) {
      if (sandbox.state.options.webhookConcurrency !== row.inFlight) {
        // The same seed on the same address: the links are the same, the signing key is new (the receiver reads the
        // key set again for an unknown kid).
        await sandbox.close();
        // Connections kept alive to the old one (this process's fetch pool) notice it closed.
        await sleep(500);
        sandbox = createSandbox({
          links: SANDBOX_LINKS,
          linksListing: "all",
          rateLimits: false,
          webhookConcurrency: row.inFlight,
        });
        await sandbox.listen(sandboxPort, "127.0.0.1");
        api = clientFor();
        // One delivery first, on a link no row changes: the receiver reads the new signing key before the row, which
        // measures deliveries, not a key rotation. Its refusals, if any, are in the setup's count of refused requests.
        const warmUp = material.listed[1]!.link_id;
        await api.updateLink(warmUp, { webhook: hookUrl }).catch(() => api.updateLink(warmUp, { webhook: hookUrl }));
        await runRow(sandbox, { ...row, name: "warm-up" }, [warmUp], null, pid, databaseUrl);
      }
      const ceiling = results.find((done) => done.row.inFlight === 64 && !done.row.steady);
      const perSecond =
        row.steady && ceiling
          ? Math.max(1, Math.floor(accepted(ceiling.changes).perSecond * row.steady.shareOfCeiling))
          : null;
      const all = material.targets[index]!.map((link) => link.link_id);
      const own = perSecond === null ? all : all.slice(0, Math.ceil(perSecond * row.steady!.seconds));
      // Once more after a failure: a connection kept alive to the sandbox before this one may be found closed.
      await inParallel(own, 16, (linkId) =>
        api.updateLink(linkId, { webhook: hookUrl }).catch(() => api.updateLink(linkId, { webhook: hookUrl })),
      );
      progress(
        `${row.name}: ${own.length} webhooks set; making the changes${perSecond === null ? " at once" : ` at ${perSecond}/s`}`,
      );
      const result = await runRow(sandbox, row, own, perSecond, pid, databaseUrl);
      results.push(result);
      const durations = result.changes.flatMap(({ delivery }) => delivery.attempt_log.map((a) => a.duration_ms));
      const statuses = new Map<string, number>();
      for (const { delivery } of result.changes)
        for (const a of delivery.attempt_log)
          statuses.set(String(a.status ?? a.error), (statuses.get(String(a.status ?? a.error)) ?? 0) + 1);
      progress(
        `${row.name}: ${result.changes.length} changes settled in ${result.seconds.toFixed(1)} s; attempts ${JSON.stringify(Object.fromEntries(statuses))}; ack p50 ${percentile(durations, 50).toFixed(1)} ms, p99 ${percentile(durations, 99).toFixed(1)} ms`,
      );
    }
    await dashboard.stop();
    dashboard = undefined;
    const errors = output
      .join("")
      .split("\n")
      .filter((line) => /"level":(50|60)/.test(line));
    if (errors.length > 0) progress(`the dashboard logged ${errors.length} errors; first: ${errors[0]!.slice(0, 300)}`);

    const after = await openDatabase();
    let refused: Measured["refused"];
    try {
      for (const result of results) await readOutcome(after, result);
      const { rows } = await after.db.execute<{ refusal: string; n: number }>(
        sql`select refusal, count(*)::int as n from webhook_events where verification = 'refused' group by refusal order by n desc`,
      );
      refused = rows.map((row) => ({ reason: row.refusal, count: row.n }));
    } finally {
      await after.close();
    }
    return { rows: results, baseline, refused };
  } finally {
    await dashboard?.stop();
    await sandbox?.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

interface SeedMaterial {
  /** The first 100,000 links GET /links lists: id and creation time. */
  listed: { link_id: string; created_at: string }[];
  /** The links the rows change, as GET /links/{id} answers for them, one set per row. */
  targets: WireLink[][];
}

/** A sandbox with the webhook rows' seed, rate limits off, for the time of `work`. */
async function withSandbox<T>(work: (api: UpstreamApi) => Promise<T>): Promise<T> {
  const sandbox = createSandbox({ links: SANDBOX_LINKS, linksListing: "all", rateLimits: false });
  try {
    const url = await sandbox.listen(0, "127.0.0.1");
    const { clientId, clientSecret } = sandbox.state.options;
    return await work(new UpstreamApi(new UpstreamClient({ baseUrl: url, clientId, clientSecret })));
  } finally {
    await sandbox.close();
  }
}

/**
 * What the read model is seeded from, read once from the sandbox (every sandbox here has the same seed, so the same
 * links): the listing's first 100,000 links, and the links the rows change, read with GET /links/{id}. These are
 * spread over the whole listing (every k-th link), disjoint between rows.
 */
async function readSeedMaterial(api: UpstreamApi, perRow: number): Promise<SeedMaterial> {
  const listed: SeedMaterial["listed"] = [];
  let cursor: string | undefined;
  while (listed.length < READ_MODEL_LINKS) {
    const page = await api.listLinks({ cursor, limit: 5000 });
    listed.push(...page.links);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  if (listed.length < READ_MODEL_LINKS)
    throw new Error(`The sandbox lists ${listed.length} links, fewer than ${READ_MODEL_LINKS}.`);
  const step = Math.floor(READ_MODEL_LINKS / (perRow * ROWS.length));
  const chosen = Array.from({ length: perRow * ROWS.length }, (_, i) => listed[i * step]!.link_id);
  const read = new Map<string, WireLink>();
  await inParallel(chosen, 16, async (linkId) => void read.set(linkId, await api.getLink(linkId)));
  return {
    listed: listed.slice(0, READ_MODEL_LINKS),
    targets: ROWS.map((_, i) => chosen.slice(i * perRow, (i + 1) * perRow).map((linkId) => read.get(linkId)!)),
  };
}

/**
 * The read model at 100,000 links, written before the dashboard starts. Every listed link's row as a completed sync
 * leaves it, with the columns a detail read fills generated in SQL in the sync's shape (as the links-list bench does:
 * reading 100,000 links at the upstream's limit takes hours), its id and creation time the sandbox's; then the links
 * the rows change written by recordLinks from their GET /links/{id} answers, exactly as the sync writes them. The
 * indexes are dropped for the load and rebuilt from their own definitions.
 */
async function seedReadModel({ db }: Database, material: SeedMaterial): Promise<void> {
  const { rows: indexes } = await db.execute<{ name: string; definition: string }>(
    sql`select indexname as name, indexdef as definition from pg_indexes where tablename = 'links' and indexname <> 'links_pkey'`,
  );
  for (const { name } of indexes) await db.execute(sql.raw(`drop index "${name}"`));
  for (let start = 0; start < material.listed.length; start += 25_000) {
    const chunk = JSON.stringify(material.listed.slice(start, start + 25_000));
    await db.execute(sql`
      with listed as (
        select e->>'link_id' as link_id, (e->>'created_at')::timestamptz as created_at, abs(hashtext(e->>'link_id'))::bigint as h
        from jsonb_array_elements(${chunk}::jsonb) e
      ), shaped as (
        select l.*,
               'ins_' || lpad((floor(power((l.h % 1000003) / 1000003.0, 2) * 400))::int::text, 4, '0') as institution_id,
               case when l.h % 100 < 80 then 'connected' when l.h % 100 < 92 then 'error' when l.h % 100 < 96 then 'connecting' else 'awaiting_token_exchange' end as state,
               (array['moneykit', 'plaid', 'finicity', 'mx', 'yodlee', 'akoya', 'sophtron'])[1 + l.h % 7] as provider,
               case when l.h % 3 = 0 then array[]::text[] else array['team:' || (array['retail', 'sme', 'corporate', 'wealth'])[1 + l.h % 4]] end as link_tags,
               now() - make_interval(secs => (l.h % 5184000)) as refreshed
        from listed l
      )
      insert into links (link_id, created_at, institution_id, institution_name, state, error_code, provider, link_tags, raw, last_refreshed_at,
                         seen_at, listed_at, updated_at, learned_from, learned_at)
      select s.link_id, s.created_at, s.institution_id, 'Institution ' || substr(s.institution_id, 5), s.state,
             case when s.state = 'error' then (array['auth_expired', 'institution_error', 'invalid_credentials', 'user_setup_required'])[1 + s.h % 4] end,
             s.provider, s.link_tags,
             jsonb_build_object(
               'link_id', s.link_id, 'institution_id', s.institution_id, 'institution_name', 'Institution ' || substr(s.institution_id, 5),
               'state', s.state, 'provider', s.provider, 'link_tags', to_jsonb(s.link_tags), 'webhook', null,
               'products', jsonb_build_object(
                 'accounts', jsonb_build_object('refreshed_at', to_char(s.refreshed at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
                 'transactions', jsonb_build_object('refreshed_at', to_char(s.refreshed at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
               )
             ),
             s.refreshed, now(), now(), now(), 'listing', now()
      from shaped s
    `);
  }
  for (const { definition } of indexes) await db.execute(sql.raw(definition));
  const targets = material.targets.flat();
  for (let start = 0; start < targets.length; start += 500)
    await recordLinks(db, targets.slice(start, start + 500), new Date(), "listing");
  await db.execute(sql`vacuum analyze links`);
  const [count] = (await db.execute<{ n: number }>(sql`select count(*)::int as n from links`)).rows;
  if (count?.n !== READ_MODEL_LINKS)
    throw new Error(`The read model holds ${count?.n} links, not ${READ_MODEL_LINKS}.`);
}

/** Makes one row's changes the way POST /_sandbox/links/{id}/state does, and waits until they are delivered and applied. */
async function runRow(
  sandbox: Sandbox,
  row: Row,
  linkIds: string[],
  perSecond: number | null,
  dashboardPid: number,
  databaseUrl: string | undefined,
): Promise<RowResult> {
  const world = sandbox.state;
  const changes: Change[] = [];
  const change = (linkId: string) => {
    const link = world.store.getLink(linkId)!;
    const state = link.state === "connected" ? "error" : "connected";
    world.store.setState(link, state, state === "error" ? "auth_expired" : null);
    changes.push({ linkId, state, delivery: notifyStateChanged(world, link)! });
  };
  const cpuBefore = treeCpuMs(dashboardPid);
  const senderBefore = process.cpuUsage();
  const started = performance.now();
  if (perSecond === null) {
    // State changes in the sandbox's process, not over HTTP: the sender's event loop spends its time on deliveries.
    for (const linkId of linkIds) change(linkId);
  } else {
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(linkIds.length, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
        while (changes.length < due) change(linkIds[changes.length]!);
        if (changes.length === linkIds.length) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
    });
  }
  const settled = () => changes.every(({ delivery }) => delivery.state !== "pending" && delivery.state !== "retrying");
  const deadline = performance.now() + ROW_TIMEOUT_MS;
  while (!settled() && performance.now() < deadline) await sleep(20);
  const acknowledged = performance.now();
  await processed(dashboardPid, changes, databaseUrl, deadline);
  const senderCpu = process.cpuUsage(senderBefore);
  return {
    row,
    perSecond,
    changes,
    seconds: (acknowledged - started) / 1000,
    dashboardCpuMs: treeCpuMs(dashboardPid) - cpuBefore,
    senderCpuMs: (senderCpu.user + senderCpu.system) / 1000,
    stored: new Map(),
    readModel: new Map(),
    lagFromEventMs: [],
    lagFromReceiptMs: [],
  };
}

/**
 * Waits until the dashboard has applied the row's events. On PostgreSQL the bench asks the database; PGlite lives in
 * the dashboard's process, so there the bench waits for the process to go quiet (under 5 % of a core for 1.5 s), and
 * the outcome is read once it has stopped.
 */
async function processed(
  pid: number,
  changes: Change[],
  databaseUrl: string | undefined,
  deadline: number,
): Promise<void> {
  if (databaseUrl) {
    const database = await createDatabase({ url: databaseUrl });
    try {
      const keys = JSON.stringify(changes.map((c) => keyOf(c.delivery)));
      while (performance.now() < deadline) {
        const [row] = (
          await database.db.execute<{ n: number }>(
            sql`select count(*)::int as n from webhook_events where idempotency_key in (select jsonb_array_elements_text(${keys}::jsonb)) and outcome = 'processed'`,
          )
        ).rows;
        if ((row?.n ?? 0) >= changes.length) return;
        await sleep(100);
      }
    } finally {
      await database.close();
    }
    return;
  }
  const windowMs = 1500;
  const samples: { at: number; cpu: number }[] = [];
  while (performance.now() < deadline) {
    samples.push({ at: performance.now(), cpu: treeCpuMs(pid) });
    const first = samples.find((s) => s.at >= samples.at(-1)!.at - windowMs);
    const last = samples.at(-1)!;
    if (first && last.at - first.at >= windowMs * 0.9 && (last.cpu - first.cpu) / (last.at - first.at) < 0.05) return;
    await sleep(100);
  }
}

const keyOf = (delivery: Delivery) =>
  (JSON.parse(delivery.body) as { webhook_idempotency_key: string }).webhook_idempotency_key;

async function readOutcome({ db }: Database, result: RowResult): Promise<void> {
  const keys = JSON.stringify(result.changes.map((c) => keyOf(c.delivery)));
  const { rows } = await db.execute<{
    key: string;
    received_at: string;
    event_at: string | null;
    processed_at: string | null;
    outcome: string;
    process_attempts: number;
    redeliveries: number;
    rows: number;
  }>(sql`
    select idempotency_key as key, min(received_at)::text as received_at, min(event_at)::text as event_at, min(processed_at)::text as processed_at,
           min(outcome) as outcome, max(process_attempts)::int as process_attempts, sum(redeliveries)::int as redeliveries, count(*)::int as rows
    from webhook_events
    where verification = 'verified' and idempotency_key in (select jsonb_array_elements_text(${keys}::jsonb))
    group by idempotency_key
  `);
  const date = (text: string | null) => (text === null ? null : new Date(text));
  for (const row of rows) {
    result.stored.set(row.key, {
      receivedAt: new Date(row.received_at),
      eventAt: date(row.event_at),
      processedAt: date(row.processed_at),
      outcome: row.outcome,
      processAttempts: row.process_attempts,
      redeliveries: row.redeliveries,
      rows: row.rows,
    });
  }
  const ids = JSON.stringify(result.changes.map((c) => c.linkId));
  const { rows: links } = await db.execute<{ link_id: string; state: string | null; event_at: string | null }>(
    sql`select link_id, state, event_at::text as event_at from links where link_id in (select jsonb_array_elements_text(${ids}::jsonb))`,
  );
  for (const link of links) result.readModel.set(link.link_id, { state: link.state, eventAt: date(link.event_at) });
  for (const stored of result.stored.values()) {
    if (!stored.processedAt) continue;
    if (stored.eventAt) result.lagFromEventMs.push(stored.processedAt.getTime() - stored.eventAt.getTime());
    result.lagFromReceiptMs.push(stored.processedAt.getTime() - stored.receivedAt.getTime());
  }
}

function rowFigures(setup: Setup, result: RowResult): Figure[] {
  const { row, changes } = result;
  const name = (text: string) => `${setup}, ${row.name}: ${text}`;
  const { count: acks, seconds: windowS, perSecond } = accepted(changes);
  const durations = changes.flatMap(({ delivery }) => delivery.attempt_log.map((a) => a.duration_ms));
  const retried = changes.filter(({ delivery }) => delivery.attempts > 1).length;
  const notOk = changes.flatMap(({ delivery }) =>
    delivery.attempt_log.filter((a) => a.status === null || a.status < 200 || a.status >= 300),
  );

  const lost = changes.filter(({ linkId, state, delivery }) => {
    const stored = result.stored.get(keyOf(delivery));
    const link = result.readModel.get(linkId);
    return (
      delivery.state !== "delivered" ||
      !stored ||
      stored.outcome !== "processed" ||
      link?.state !== state ||
      link.eventAt?.getTime() !== Date.parse(delivery.webhook_timestamp)
    );
  });
  const stored = [...result.stored.values()];
  const doubled = stored.filter((s) => s.rows > 1 || s.processAttempts > 1).length;
  const redeliveries = stored.reduce((sum, s) => sum + s.redeliveries, 0);
  const undelivered = changes.filter(({ delivery }) => delivery.state !== "delivered").length;
  const unprocessed = stored.filter((s) => s.outcome !== "processed").length;
  const lagEvent = result.lagFromEventMs;
  const lagReceipt = result.lagFromReceiptMs;
  const cpuNote = `dashboard CPU ${(result.dashboardCpuMs / changes.length).toFixed(2)} ms an event (${(result.dashboardCpuMs / 1000).toFixed(1)} s over the row, processing included); sandbox (sender) ${(result.senderCpuMs / changes.length).toFixed(2)} ms an event`;
  return [
    {
      label: name("verified events accepted per second"),
      value: perSecond,
      unit: "/s",
      goal: row.goals.accepted ? atLeast(1000) : undefined,
      note: `${acks} 2xx in ${windowS.toFixed(2)} s, first to last${result.perSecond === null ? "" : ` (offered ${result.perSecond}/s, half the burst at 64 in flight)`}; ${cpuNote}`,
    },
    {
      label: name("acknowledgement p50"),
      value: percentile(durations, 50),
      unit: "ms",
      note: "each attempt's duration_ms in the sandbox: sending to the receiver's status line",
    },
    {
      label: name("acknowledgement p99"),
      value: percentile(durations, 99),
      unit: "ms",
      goal: row.goals.ack ? below(50) : undefined,
      note: `max ${Math.max(...durations).toFixed(1)} ms; ${notOk.length} attempts not 2xx, ${retried} deliveries retried`,
    },
    {
      label: name("lag to the read model p50, from webhook_timestamp"),
      value: percentile(lagEvent, 50) / 1000,
      unit: "s",
      note: `from the receipt: p50 ${(percentile(lagReceipt, 50) / 1000).toFixed(3)} s`,
    },
    {
      label: name("lag to the read model p95, from webhook_timestamp"),
      value: percentile(lagEvent, 95) / 1000,
      unit: "s",
      goal: row.goals.lag ? below(2) : undefined,
      note: `from the receipt: p95 ${(percentile(lagReceipt, 95) / 1000).toFixed(3)} s; processed_at is the start of the event's processing batch${result.perSecond === null ? "; a burst's lag from webhook_timestamp includes the wait in the sender's queue" : ""}`,
    },
    {
      label: name("lost"),
      value: lost.length,
      unit: "",
      goal: exactly(0),
      note: `${changes.length} changes: ${undelivered} not delivered, ${changes.length - stored.length} not stored verified, ${unprocessed} stored but not processed, ${lost.length - undelivered} not showing in the read model or not stored`,
    },
    {
      label: name("doubled"),
      value: doubled,
      unit: "",
      goal: exactly(0),
      note: `events processed more than once or stored twice; ${redeliveries} redeliveries received (counted, not processed)`,
    },
  ];
}

/** GET /api/health, 8 in flight for 4 s after a warm-up: the dashboard's cost of a request before any route's work. */
async function measureBaseline(url: string, pid: number): Promise<Measured["baseline"]> {
  const view = async () => void (await (await fetch(`${url}/api/health`)).arrayBuffer());
  for (let i = 0; i < 50; i++) await view();
  const cpuBefore = treeCpuMs(pid);
  const started = performance.now();
  let requests = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() - started < 4_000) {
        await view();
        requests++;
      }
    }),
  );
  return {
    perSecond: requests / ((performance.now() - started) / 1000),
    cpuMsPerRequest: (treeCpuMs(pid) - cpuBefore) / requests,
  };
}

/** The 2xx answers the sandbox received, and their rate from the first to the last. */
function accepted(changes: Change[]): { count: number; seconds: number; perSecond: number } {
  const times = changes
    .flatMap(({ delivery }) =>
      delivery.attempt_log.filter((a) => a.status !== null && a.status >= 200 && a.status < 300),
    )
    .map((a) => Date.parse(a.at))
    .sort((a, b) => a - b);
  const seconds = times.length > 1 ? (times.at(-1)! - times[0]!) / 1000 : Number.NaN;
  return { count: times.length, seconds, perSecond: times.length / seconds };
}

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
