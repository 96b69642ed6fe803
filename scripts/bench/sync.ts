// The links sync against the sandbox enforcing the spec's limits, with 10,000 links: detail reads per minute against
// what the sync may use (goal ≥ 90 %, zero 429s), and the time to a complete read model. Linkdesk's share of the app's
// budget and the sync's share of that are both 100 % here, so the allowed rate is the upstream's 1000 GET /links/{id}
// a minute. A complete run takes about ten minutes at that rate: by default the run is stopped after QUICK_SECONDS and
// the time for 10,000 links is extrapolated from the measured rate; LINKDESK_BENCH_FULL=1 runs it to the end. The
// sandbox lists active links only, as the upstream does: the back end's ids are registered first, as the product
// registers them, so the run reads every link.
import { count, isNotNull } from "drizzle-orm";
import { Budget } from "../../lib/budget/budget";
import { createMemoryStore } from "../../lib/budget/memory-store";
import { createDatabase } from "../../lib/db/client";
import { links } from "../../lib/db/schema";
import { registerLinkIds } from "../../lib/links/discovery";
import { runSync } from "../../lib/sync/engine";
import { syncPaceOf } from "../../lib/sync/pacer";
import { UpstreamClient } from "../../lib/upstream/client";
import { UpstreamApi } from "../../lib/upstream/index";
import { RATE_LIMIT_WINDOW_MS } from "../../lib/upstream/rate-limits";
import { createSandbox } from "../../sandbox/server";
import { type SuiteResult, atLeast, exactly } from "./report";

const QUICK_SECONDS = 90;

export async function benchSync({
  linkCount = 10_000,
  // A bench script, not the app: its switch is read here, like bench.ts reads its arguments.
  full = process.env.LINKDESK_BENCH_FULL === "1",
  quickSeconds = QUICK_SECONDS,
  share = 1,
}: { linkCount?: number; full?: boolean; quickSeconds?: number; share?: number } = {}): Promise<SuiteResult> {
  const sandbox = createSandbox({ links: linkCount, importDelayMs: 0, rateLimits: true });
  const url = await sandbox.listen(0);
  const database = await createDatabase({ dataDir: "memory" });
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
    const pace = syncPaceOf(budget, share);
    const backEnd = (await (await fetch(`${url}/_sandbox/back-end/link-ids`)).json()) as { link_ids: string[] };
    await registerLinkIds(database.db, backEnd.link_ids, "registration");
    const appLimit = budget.keys("GET /links/{id}", { linkId: "-" }).find((k) => k.scope === "app")!.upstreamLimit;
    const allowedPerMinute = appLimit * share;

    const readAt: number[] = [];
    let detailsFrom: number | undefined;
    const stopper = new AbortController();
    const timer = full
      ? undefined
      : setTimeout(() => stopper.abort(new Error("quick mode: time is up")), quickSeconds * 1000);
    const started = performance.now();
    const result = await runSync({
      db: database.db,
      api: {
        listLinks: api.listLinks.bind(api),
        getLink: (linkId, opts) => {
          readAt.push(performance.now());
          return api.getLink(linkId, opts);
        },
      },
      budget,
      share,
      signal: stopper.signal,
      onProgress: (p) => {
        if (p.phase === "details") detailsFrom ??= performance.now();
      },
    });
    clearTimeout(timer);
    const ended = performance.now();

    const stats = (await (await fetch(`${url}/_sandbox/stats`)).json()) as { rateLimited: number };
    const [read] = await database.db.select({ n: count() }).from(links).where(isNotNull(links.seenAt));
    const [all] = await database.db.select({ n: count() }).from(links);
    const listingSeconds = ((detailsFrom ?? ended) - started) / 1000;
    // The steady rate: reads after the pacer's start-up burst of three, over the time from the third to the last.
    const reads = readAt.length;
    const spanMs = reads > 3 ? readAt.at(-1)! - readAt[2]! : Number.NaN;
    const perMinute = ((reads - 3) / spanMs) * RATE_LIMIT_WINDOW_MS;
    const ofAllowed = perMinute / allowedPerMinute;
    const completed = result.outcome === "completed";
    const toComplete = completed
      ? `measured (${read!.n} of ${all!.n} links read)`
      : `extrapolated (listing ${listingSeconds.toFixed(1)} s + ${all!.n} reads at the measured rate)`;

    return {
      name: `links sync of ${linkCount} links against the sandbox's limits (${full ? "full run" : `quick: ${quickSeconds} s of reads`}, sync share ${share * 100} %)`,
      figures: [
        {
          label: "detail reads: share of the allowed rate",
          value: ofAllowed * 100,
          unit: "%",
          goal: atLeast(90),
          note: `${reads} detail reads, the last ${reads - 3} in ${(spanMs / 1000).toFixed(1)} s: ${perMinute.toFixed(1)}/min of the allowed ${allowedPerMinute}/min; the budget's 61 s window caps it at ${((((pace.limit / pace.windowMs) * RATE_LIMIT_WINDOW_MS) / allowedPerMinute) * 100).toFixed(1)} %`,
        },
        { label: "429s from the upstream", value: stats.rateLimited, unit: "", goal: exactly(0) },
        {
          label: "time to a complete read model",
          value: completed ? (ended - started) / 1000 : listingSeconds + (all!.n / perMinute) * 60,
          unit: "s",
          note: `${toComplete}, run ${result.outcome}`,
        },
      ],
    };
  } finally {
    await database.close();
    await sandbox.close();
  }
}
